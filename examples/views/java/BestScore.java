// expect: high-level-race 0, stale-value 1
// finding: stale-value Board.best[][]
// A two-dimensional array whose rows are never stored (issue #41, item 2; the shape of MoTH's
// Knight test, written anew): `best = new int[8][8]` makes the rows with the array, so the
// analysis takes one inner array to stand for them (`Board.best[][]`, the cells). Each searcher
// checks in one atomic method whether its score beats the best for a cell and, because it did,
// stores it in another: another searcher may store a better score between them, which is then
// overwritten (check-then-act on `Board.best[][]`): one stale value. The two searchers have the
// same views, each on one variable: no high-level race.
class Board {
    private final int[][] best = new int[8][8];

    synchronized boolean beats(int x, int y, int score) { return score < best[x][y]; }

    synchronized void record(int x, int y, int score) { best[x][y] = score; }
}

class Searcher extends Thread {
    private final Board board;
    private final int score;

    Searcher(Board board, int score) {
        this.board = board;
        this.score = score;
    }

    public void run() {
        if (board.beats(2, 5, score)) {
            board.record(2, 5, score);
        }
    }
}

public class BestScore {
    public static void main(String[] args) throws InterruptedException {
        Board board = new Board();
        Searcher a = new Searcher(board, 3);
        Searcher b = new Searcher(board, 4);
        a.start();
        b.start();
        a.join();
        b.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// Dynamic (recorded run): nothing. The cells start at 0 and the scores are 3 and 4, so beats()
// is false for both searchers and record() never runs: the trace has two read-only regions
// (`int[][]@ID[]` and `int[]@ID[]`) and no write, in every schedule. The static side sees the
// write region a run does not execute.
