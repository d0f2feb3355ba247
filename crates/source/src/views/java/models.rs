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
    types: FxHashSet<String>,
    synchronized: FxHashSet<String>,
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
            if words[0] == "synchronized" {
                if words.len() != 2 {
                    return Err(at(1, "expected `synchronized TYPES`".into()));
                }
                for t in words[1].split(',').filter(|t| !t.is_empty()) {
                    self.types.insert(t.to_owned());
                    self.synchronized.insert(t.to_owned());
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
            let effect = match words[2] {
                "read" => Effect::Read,
                "write" => Effect::Write,
                "update" => Effect::Update,
                other => {
                    return Err(at(
                        line.find(other).unwrap_or(0) + 1,
                        format!("unknown effect `{other}` (read, write or update)"),
                    ))
                }
            };
            for t in words[0].split(',').filter(|t| !t.is_empty()) {
                self.types.insert(t.to_owned());
                for m in words[1].split(',').filter(|m| !m.is_empty()) {
                    self.effects.insert((t.to_owned(), m.to_owned()), effect);
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
            "2:5: unknown effect `sometimes` (read, write or update)"
        );
        assert!(m.extend("A b\n").is_err());
    }
}
