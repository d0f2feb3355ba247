//! `views` on Java: 1,000 generated programs (an account-like class with synchronized and
//! `@Atomic` methods, a worker, a main that starts and joins two threads; about 50 lines
//! each), each analysed as its own program (parse + lowering + static analysis + sensors +
//! report), in lines per second, against the baseline measured in the same run: tree-sitter
//! parsing alone.
//!
//! `cargo bench -p hindsight-cli --bench java_views`

use hindsight_source::java;
use hindsight_source::views::java::{analyse_java, JavaOptions};
use std::time::Instant;

fn program(i: usize) -> String {
    format!(
        r#"import java.util.ArrayList;
import java.util.List;

class Account{i} {{
    private int balance;
    private int ops;
    private final List<Integer> log = new ArrayList<>();

    synchronized int balance() {{ return balance; }}

    synchronized void set(int b) {{
        balance = b;
        ops = ops + 1;
    }}

    synchronized void record(int x) {{ log.add(x); }}

    void deposit(int amount) {{
        int b = balance();
        if (b + amount < {i}) {{
            return;
        }}
        set(b + amount);
        record(amount);
    }}

    synchronized void reset() {{
        balance = 0;
        ops = 0;
        log.clear();
    }}
}}

class Worker{i} implements Runnable {{
    private final Account{i} a;
    Worker{i}(Account{i} a) {{ this.a = a; }}

    public void run() {{
        for (int k = 0; k < 3; k++) {{
            a.deposit(k * {i});
        }}
    }}
}}

public class Main{i} {{
    public static void main(String[] args) throws Exception {{
        Account{i} a = new Account{i}();
        Thread t1 = new Thread(new Worker{i}(a));
        Thread t2 = new Thread(() -> a.reset());
        t1.start();
        t2.start();
        t1.join();
        t2.join();
    }}
}}
"#
    )
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    let programs: Vec<(String, String)> = (0..1000)
        .map(|i| (format!("Main{i}.java"), program(i)))
        .collect();
    let lines: usize = programs.iter().map(|p| p.1.lines().count()).sum();
    let (mut parse, mut full) = (Vec::new(), Vec::new());
    let mut findings = 0;
    for _ in 0..5 {
        let t = Instant::now();
        for (_, text) in &programs {
            java::parse(text).expect("parses");
        }
        parse.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        findings = 0;
        for p in &programs {
            let run =
                analyse_java(std::slice::from_ref(p), &JavaOptions::default()).expect("analyses");
            findings += run.report.findings.len();
        }
        full.push(t.elapsed().as_secs_f64());
    }
    let (p, f) = (median(parse), median(full));
    println!(
        "{} programs, {lines} lines, {findings} findings",
        programs.len()
    );
    println!(
        "parse alone (baseline): {p:.3} s, {:.0} lines/s",
        lines as f64 / p
    );
    println!("views on Java: {f:.3} s, {:.0} lines/s", lines as f64 / f);
    println!("ratio to parse alone: {:.2}", f / p);
}
