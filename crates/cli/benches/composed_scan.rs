//! Scanning a project for composed operations: 5,000 generated Java files (classes with a
//! concurrent map, a plain map, composed operations and ordinary methods, about 60 lines
//! each) through parse + discovery + classification, in lines per second, against the
//! baseline measured in the same run: tree-sitter parsing alone. The bar is 50,000 lines per
//! second for the whole.
//!
//! `cargo bench -p hindsight-cli --bench composed_scan`

use hindsight_source::composed::{classify, front};
use hindsight_source::java;
use std::time::Instant;

/// One generated class; `i` varies names and which methods it has.
fn class(i: usize) -> String {
    let extra = if i % 3 == 0 {
        format!(
            "    public boolean unregister(String name, Handler h) {{\n        Handler current = handlers{i}.get(name);\n        if (current == null) {{\n            return false;\n        }}\n        return handlers{i}.remove(name, h);\n    }}\n"
        )
    } else {
        String::new()
    };
    format!(
        r#"package bench.p{pkg};

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** Generated class {i}. */
public class Service{i} {{
    private final ConcurrentMap<String, Handler> handlers{i} = new ConcurrentHashMap<>();
    private final Map<String, Integer> plain = new HashMap<>();
    private final Factory factory;
    private int calls;

    public Service{i}(Factory factory) {{
        this.factory = factory;
    }}

    public Handler getOrCreate(String name) {{
        Handler h = handlers{i}.get(name);
        if (h == null) {{
            Handler created = factory.create(name, {i});
            Handler raced = handlers{i}.putIfAbsent(name, created);
            h = raced != null ? raced : created;
        }}
        return h;
    }}

    public Handler lookup(String name) {{
        if (!handlers{i}.containsKey(name)) {{
            handlers{i}.put(name, new Handler(name));
        }}
        return handlers{i}.get(name);
    }}
{extra}
    public int count(String word) {{
        Integer n = plain.get(word);
        plain.put(word, n == null ? 1 : n + 1);
        calls++;
        return calls;
    }}

    public String describe(int[] values) {{
        StringBuilder sb = new StringBuilder();
        for (int v : values) {{
            if (v % 2 == 0) {{
                sb.append(v).append(',');
            }} else {{
                sb.append('-');
            }}
        }}
        return sb.toString();
    }}

    @Override
    public String toString() {{
        return "Service{i}[" + handlers{i}.size() + "]";
    }}
}}
"#,
        pkg = i % 50
    )
}

/// This process's CPU seconds (user + system) from /proc/self/stat: the machine is shared,
/// so wall time alone overstates what the work costs.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses): utime is the 12th, stime 13th.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn median(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let files: Vec<String> = (0..5_000).map(class).collect();
    let lines: usize = files.iter().map(|f| f.lines().count()).sum();
    let runs = 5;
    let cpu = cpu_seconds();
    let parse_only = median(runs, || {
        for f in &files {
            std::hint::black_box(java::parse(f).expect("parses"));
        }
    });
    let parse_cpu = (cpu_seconds() - cpu) / runs as f64;
    let mut operations = 0;
    let cpu = cpu_seconds();
    let whole = median(runs, || {
        operations = 0;
        for f in &files {
            let programs = front::parse(f).expect("parses");
            for p in &programs {
                for op in &p.operations {
                    std::hint::black_box(classify(p, op));
                    operations += 1;
                }
            }
        }
    });
    let whole_cpu = (cpu_seconds() - cpu) / runs as f64;
    let rate = |s: f64| lines as f64 / s;
    println!("5,000 files, {lines} lines, {operations} composed operations found and classified");
    println!(
        "parse alone (baseline): {:.3} s wall, {:.0} lines/s; {:.3} s CPU, {:.0} lines/s",
        parse_only,
        rate(parse_only),
        parse_cpu,
        rate(parse_cpu)
    );
    println!(
        "parse + discovery + classification: {:.3} s wall, {:.0} lines/s; {:.3} s CPU, {:.0} lines/s ({:.2}x the parse alone's CPU time); bar 50,000 lines/s (wall): {}",
        whole,
        rate(whole),
        whole_cpu,
        rate(whole_cpu),
        whole_cpu / parse_cpu,
        if rate(whole) >= 50_000.0 { "met" } else { "MISSED" }
    );
}
