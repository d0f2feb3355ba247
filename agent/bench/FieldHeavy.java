// Overhead bench: one thread, 1,000,000 iterations of plain field and array accesses
// (about 5 million recorded accesses) on a small particle system.
public class FieldHeavy {
    double x, y, vx = 1, vy = 0.5;
    static final int N = 16;

    public static void main(String[] args) {
        FieldHeavy[] ps = new FieldHeavy[N];
        for (int i = 0; i < N; i++) {
            ps[i] = new FieldHeavy();
        }
        for (int step = 0; step < 1_000_000 / N; step++) {
            for (int i = 0; i < N; i++) {
                FieldHeavy p = ps[i];
                p.x += p.vx * 0.01;
                p.y += p.vy * 0.01;
            }
        }
        double s = 0;
        for (FieldHeavy p : ps) {
            s += p.x + p.y;
        }
        System.out.println(s);
    }
}
