//! The shapes of real programs that once made analyses quadratic (#38): traces of one shape at
//! a size, as STD text, for the tests and `--bench shapes` that hold every analysis to linear
//! growth on them.

/// The shapes [`shape`] writes.
pub const SHAPES: [&str; 6] = [
    "one-variable",
    "locks-held",
    "nesting",
    "many-locks",
    "many-variables",
    "thread-per-request",
];

/// The shapes, as text traces of about `n` threads (or `n` nested locks, locks, variables).
pub fn shape(name: &str, n: usize) -> Option<String> {
    let mut s = String::new();
    let mut w = |line: String| {
        s.push_str(&line);
        s.push('\n');
    };
    match name {
        // T0 forks n threads that each write one shared variable, joins them, reads it.
        "one-variable" => {
            (1..=n).for_each(|i| w(format!("T0|fork(T{i})|M.java:1")));
            (1..=n).for_each(|i| w(format!("T{i}|w(x)|W.java:2")));
            (1..=n).for_each(|i| w(format!("T0|join(T{i})|M.java:3")));
            w("T0|r(x)|M.java:4".into());
        }
        // n threads each hold a lock of their own at once and read a shared variable inside.
        "locks-held" => {
            (1..=n).for_each(|i| w(format!("T0|fork(T{i})|M.java:1")));
            (1..=n).for_each(|i| w(format!("T{i}|acq(L{i})|A.java:1")));
            for i in 1..=n {
                w(format!("T{i}|r(y)|A.java:2"));
                w(format!("T{i}|w(v{i})|A.java:3"));
            }
            (1..=n).for_each(|i| w(format!("T{i}|rel(L{i})|A.java:4")));
            (1..=n).for_each(|i| w(format!("T0|join(T{i})|M.java:3")));
        }
        // Two threads in turn nest n locks and write one variable inside, in a transaction.
        "nesting" => {
            for t in 1..=2 {
                w(format!("T0|fork(T{t})|M.java:1"));
            }
            for t in 1..=2 {
                w(format!("T{t}|begin|N.java:0"));
                (0..n).for_each(|i| w(format!("T{t}|acq(L{i})|N.java:1")));
                w(format!("T{t}|w(x)|N.java:2"));
                (0..n)
                    .rev()
                    .for_each(|i| w(format!("T{t}|rel(L{i})|N.java:3")));
                w(format!("T{t}|end|N.java:4"));
            }
        }
        // Two threads each take n locks once, a variable per lock.
        "many-locks" => {
            w("T0|fork(T1)|M.java:1".into());
            for t in 0..2 {
                for i in 0..n {
                    w(format!("T{t}|acq(L{i})|K.java:1"));
                    w(format!("T{t}|w(v{i})|K.java:2"));
                    w(format!("T{t}|rel(L{i})|K.java:3"));
                }
            }
        }
        // Two threads, n variables, each written by one and read by the other.
        "many-variables" => {
            w("T0|fork(T1)|M.java:1".into());
            for i in 0..n {
                w(format!("T1|w(v{i})|V.java:1"));
                w(format!("T0|r(v{i})|V.java:2"));
            }
        }
        // A server: a thread per request, eight in flight, each updating a counter under a lock
        // and reading a configuration variable without one.
        "thread-per-request" => {
            for i in 1..=n {
                w(format!("T0|fork(T{i})|S.java:1"));
                w(format!("T{i}|acq(L)|S.java:2"));
                w(format!("T{i}|r(c)|S.java:3"));
                w(format!("T{i}|w(c)|S.java:4"));
                w(format!("T{i}|rel(L)|S.java:5"));
                w(format!("T{i}|r(cfg)|S.java:6"));
                if i > 8 {
                    w(format!("T0|join(T{})|S.java:7", i - 8));
                }
            }
        }
        _ => return None,
    }
    Some(s)
}
