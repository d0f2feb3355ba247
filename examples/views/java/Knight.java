// expect: high-level-race 1, stale-value 1
// finding: high-level-race Board.moves,Board.visited
// finding: stale-value Board.visited
// Knight (Teixeira et al., PADTAD 2010): a knight's-tour solver checks that a square is free in
// one transaction, then marks it visited and counts the move in another; two solvers can take
// the same square.
// - stale value of `visited`: the marking runs under the branch on the value read;
// - high-level race: a move writes {visited, moves} together while the other solver reads
//   {visited} and {moves} in separate transactions (the report reads `moves` on its own).
class Board {
    int visited;
    int moves;

    @Atomic boolean isFree() { return visited == 0; }

    @Atomic void take() {
        visited = 1;
        moves = moves + 1;
    }

    @Atomic int count() { return moves; }
}

public class Knight {
    static void solve(Board b) {
        if (b.isFree()) {
            b.take();
        }
        System.out.println(b.count());
    }

    public static void main(String[] args) throws InterruptedException {
        Board b = new Board();
        Thread s1 = new Thread(() -> solve(b));
        Thread s2 = new Thread(() -> solve(b));
        s1.start();
        s2.start();
        s1.join();
        s2.join();
    }
}

@interface Atomic {}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 1, stale-value 0
// dynamic-finding: high-level-race Board.moves,Board.visited
// dynamic: high-level-race 1, stale-value 1
// dynamic-finding: high-level-race Board.moves,Board.visited
// dynamic-finding: stale-value Board.visited
// Dynamic (recorded run): the high-level race in every run (the second solver reads {visited}
// and {moves} apart, the first writes them together); the stale value of `visited` only when
// both solvers find the square free before either takes it (otherwise the second never writes
// `visited`).
