//! The table of JDK collection models: which methods of a collection type read its contents,
//! which overwrite them, which do both, and which types are synchronized on every method. The
//! shipped table is `data/jdk-models.txt` (its header documents the format); `--models FILE`
//! adds lines that win over it.

use hindsight_syntax::Pos;
use hindsight_syntax::SyntaxError;
use rustc_hash::{FxHashMap, FxHashSet};

/// What a call does to the collection's contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Read,
    /// Overwrites without reading: the written value depends only on the arguments.
    Write,
    /// Reads, then writes.
    Update,
}

#[derive(Clone, Debug, Default)]
pub struct Models {
    effects: FxHashMap<(String, String), Effect>,
    /// `read+argN`: the method also fills the array given as its `N`-th argument (from 1).
    fills: FxHashMap<(String, String), usize>,
    types: FxHashSet<String>,
    synchronized: FxHashSet<String>,
    /// Types whose one variable is the object's state (`Connection.socket.<state>`), not
    /// the contents of a collection (`Buffer.items[]`).
    state: FxHashSet<String>,
}

/// The shipped table.
pub const SHIPPED: &str = include_str!("../../../data/jdk-models.txt");

impl Models {
    /// The shipped table.
    pub fn shipped() -> Models {
        let mut m = Models::default();
        m.extend(SHIPPED)
            .expect("the shipped models table is well formed");
        m
    }

    /// Adds the lines of `text` (later lines win); an error names the line.
    pub fn extend(&mut self, text: &str) -> Result<(), SyntaxError> {
        for (i, line) in text.lines().enumerate() {
            let at =
                |col: usize, m: String| SyntaxError::new(Pos::new(i as u32 + 1, col as u32), m);
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            if words[0] == "synchronized" || words[0] == "state" {
                if words.len() != 2 {
                    return Err(at(1, format!("expected `{} TYPES`", words[0])));
                }
                for t in words[1].split(',').filter(|t| !t.is_empty()) {
                    self.types.insert(t.to_owned());
                    if words[0] == "state" {
                        self.state.insert(t.to_owned());
                    } else {
                        self.synchronized.insert(t.to_owned());
                    }
                }
                continue;
            }
            if words.len() != 3 {
                return Err(at(
                    1,
                    format!(
                        "expected `TYPES METHODS EFFECT`, found {} word(s)",
                        words.len()
                    ),
                ));
            }
            let (word, fill) = match words[2].split_once("+arg") {
                Some((w, n)) => match n.parse::<usize>() {
                    Ok(n) if n >= 1 => (w, Some(n)),
                    _ => {
                        return Err(at(
                            line.find(words[2]).unwrap_or(0) + 1,
                            format!("`{}`: `+argN` takes an argument number from 1", words[2]),
                        ))
                    }
                },
                None => (words[2], None),
            };
            let effect = match word {
                "read" => Effect::Read,
                "write" => Effect::Write,
                "update" => Effect::Update,
                other => {
                    return Err(at(
                        line.find(other).unwrap_or(0) + 1,
                        format!(
                            "unknown effect `{other}` (read, write or update, optionally +argN)"
                        ),
                    ))
                }
            };
            for t in words[0].split(',').filter(|t| !t.is_empty()) {
                self.types.insert(t.to_owned());
                for m in words[1].split(',').filter(|m| !m.is_empty()) {
                    let key = (t.to_owned(), m.to_owned());
                    match fill {
                        Some(n) => self.fills.insert(key.clone(), n),
                        None => self.fills.remove(&key),
                    };
                    self.effects.insert(key, effect);
                }
            }
        }
        Ok(())
    }

    pub fn is_model(&self, ty: &str) -> bool {
        self.types.contains(ty)
    }

    pub fn is_synchronized(&self, ty: &str) -> bool {
        self.synchronized.contains(ty)
    }

    /// A type whose variable is its state (`state TYPES`), not a collection's contents.
    pub fn is_state(&self, ty: &str) -> bool {
        self.state.contains(ty)
    }

    /// The argument (counted from 0) whose array `ty.method` fills, if it fills one.
    pub fn fills(&self, ty: &str, method: &str) -> Option<usize> {
        self.fills
            .get(&(ty.to_owned(), method.to_owned()))
            .map(|n| n - 1)
    }

    /// The effect of `ty.method`; a method the table does not name reads and writes.
    pub fn effect(&self, ty: &str, method: &str) -> Effect {
        self.effects
            .get(&(ty.to_owned(), method.to_owned()))
            .copied()
            .unwrap_or(Effect::Update)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_reads_and_extends() {
        let mut m = Models::shipped();
        assert_eq!(m.effect("ArrayList", "clear"), Effect::Write);
        assert_eq!(m.effect("ArrayList", "get"), Effect::Read);
        assert_eq!(m.effect("ArrayList", "frobnicate"), Effect::Update);
        assert!(m.is_synchronized("StringBuffer") && !m.is_synchronized("StringBuilder"));
        m.extend("MyList get,peek read\nMyList reset write\n")
            .unwrap();
        assert!(m.is_model("MyList"));
        assert_eq!(m.effect("MyList", "reset"), Effect::Write);
        let e = m.extend("\nA b sometimes\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "2:5: unknown effect `sometimes` (read, write or update, optionally +argN)"
        );
        assert!(m.extend("A b\n").is_err());
        assert_eq!(m.fills("StringBuffer", "getChars"), Some(2));
        assert_eq!(m.fills("StringBuffer", "length"), None);
        assert!(m.is_state("Socket") && !m.is_state("ArrayList"));
        assert_eq!(m.effect("Socket", "isClosed"), Effect::Read);
        assert_eq!(m.effect("Socket", "close"), Effect::Write);
        m.extend("Gauge sample read+arg1\nstate Gauge\n").unwrap();
        assert!(m.is_state("Gauge") && m.is_model("Gauge"));
        assert_eq!(m.fills("Gauge", "sample"), Some(0));
        let e = m.extend("Gauge sample read+arg0\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "1:14: `read+arg0`: `+argN` takes an argument number from 1"
        );
        assert!(m.extend("state\n").is_err());
    }
}
