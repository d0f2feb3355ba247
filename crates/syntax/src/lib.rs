//! What every reader and parser of hindsight shares: where something is in an input
//! ([`Pos`], [`Span`], [`Position`]), how a problem there is told ([`SyntaxError`],
//! [`LineError`], [`Diagnostic`], rendered compiler-style as `FILE:LINE:COL: error: MESSAGE`),
//! and the pieces hand-written lexers and parsers are built from: a [`Scanner`] that keeps
//! lines and columns for lexers, [`tokenize`] that runs a lexer over a text, and a [`Cursor`]
//! over the [`Token`]s for recursive-descent parsers, with a bound on nesting
//! ([`MAX_NESTING`]).
//!
//! This crate owns positions, their rendering and the mechanics of reading text. It knows no
//! input language, no trace, no analysis; it never opens a file or prints.

mod cursor;
mod scan;

pub use cursor::{check_nesting, Cursor, Mark, Token, MAX_NESTING};
pub use scan::{tokenize, Scanner};

use std::fmt;

/// A 1-based line and column in a text input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    pub fn new(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Where a token lies: the position of its first character and the position just past its
/// last, so that a message can point at the start and a renderer can cover the whole token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub start: Pos,
    pub end: Pos,
}

impl Span {
    pub fn new(start: Pos, end: Pos) -> Span {
        Span { start, end }
    }
}

/// A lexical, syntax or semantic error at a position of a text input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub pos: Pos,
    pub message: String,
}

impl SyntaxError {
    pub fn new(pos: Pos, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            pos,
            message: message.into(),
        }
    }

    /// The error as a diagnostic about `input` (the input's name as the user gave it).
    pub fn in_input(&self, input: &str) -> Diagnostic {
        Diagnostic::error(input, Position::At(self.pos), self.message.clone())
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

impl std::error::Error for SyntaxError {}

/// An error about a whole line of a line-oriented input (a history, ...), where a column would
/// say nothing more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// 1-based.
    pub line: u64,
    pub message: String,
}

impl LineError {
    pub fn new(line: u64, message: impl Into<String>) -> LineError {
        LineError {
            line,
            message: message.into(),
        }
    }

    /// The error as a diagnostic about `input` (the input's name as the user gave it).
    pub fn in_input(&self, input: &str) -> Diagnostic {
        Diagnostic::error(input, Position::Line(self.line), self.message.clone())
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for LineError {}

/// Where in its input a problem is: a line and column of a text, a whole text line, a byte of
/// a binary file, an event of a trace built in memory, or the input as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    Line(u64),
    Byte(u64),
    Event(u64),
    At(Pos),
    /// The problem concerns the input as a whole (it cannot be opened, it is empty, ...).
    File,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(n) => write!(f, "line {n}"),
            Position::Byte(n) => write!(f, "byte {n}"),
            Position::Event(n) => write!(f, "event {n}"),
            Position::At(p) => write!(f, "line {}, column {}", p.line, p.col),
            Position::File => f.write_str("file"),
        }
    }
}

/// How bad a diagnostic is: an error stops the run; a warning is about input the run accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// A problem with an input, told the way compilers do: `FILE:LINE: error: MESSAGE`,
/// `FILE:LINE:COL: ...`, `FILE: byte N: ...`, `FILE: event N: ...`, or `FILE: ...` for the
/// whole input. Without an input (a problem with the options rather than a file) it reads
/// `error: MESSAGE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The input's name as the user gave it (`<stdin>` for standard input).
    pub input: Option<String>,
    pub position: Position,
    pub severity: Severity,
    pub message: String,
}

impl Diagnostic {
    pub fn error(input: &str, position: Position, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            input: Some(input.to_owned()),
            position,
            severity: Severity::Error,
            message: message.into(),
        }
    }

    pub fn warning(input: &str, position: Position, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(input, position, message)
        }
    }

    /// An error in the options of a run rather than in one of its inputs.
    pub fn usage(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            input: None,
            position: Position::File,
            severity: Severity::Error,
            message: message.into(),
        }
    }

    /// Where the problem is, as the start of a compiler-style line: `FILE:12`, `FILE:3:7`,
    /// `FILE: byte 40`, `FILE: event 5`, `FILE`.
    pub fn place(input: &str, position: Position) -> String {
        match position {
            Position::Line(n) => format!("{input}:{n}"),
            Position::At(p) => format!("{input}:{}:{}", p.line, p.col),
            Position::Byte(n) => format!("{input}: byte {n}"),
            Position::Event(n) => format!("{input}: event {n}"),
            Position::File => input.to_owned(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match &self.input {
            Some(input) => write!(
                f,
                "{}: {severity}: {}",
                Diagnostic::place(input, self.position),
                self.message
            ),
            None => write!(f, "{severity}: {}", self.message),
        }
    }
}

impl std::error::Error for Diagnostic {}

/// The text of an input read as bytes, or an error at the first byte that is not UTF-8: its
/// line and column (counted in characters) and its offset in the input.
pub fn decode_utf8(input: &str, bytes: Vec<u8>) -> Result<String, Diagnostic> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let bad = e.utf8_error().valid_up_to();
        // Everything before `bad` is valid UTF-8.
        let before = std::str::from_utf8(&bytes[..bad]).unwrap_or_default();
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = before.matches('\n').count() + 1;
        let col = before[line_start..].chars().count() + 1;
        Diagnostic::error(
            input,
            Position::At(Pos::new(
                u32::try_from(line).unwrap_or(u32::MAX),
                u32::try_from(col).unwrap_or(u32::MAX),
            )),
            format!(
                "not UTF-8 text (byte 0x{:02x} at offset {bad} of the file)",
                bytes[bad]
            ),
        )
    })
}

/// The name an input is shown by: its path, or `<stdin>` for `-`.
pub fn input_name(path: &std::path::Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_that_is_not_utf8_is_placed_by_line_column_and_offset() {
        let text = b"one\nt\xc3\xa9\xff".to_vec();
        let e = decode_utf8("f.txt", text).unwrap_err();
        assert_eq!(e.position, Position::At(Pos::new(2, 3)));
        assert!(e.message.contains("0xff at offset 7"), "{}", e.message);
        assert_eq!(decode_utf8("f", b"ok".to_vec()).unwrap(), "ok");
    }

    #[test]
    fn diagnostics_read_like_a_compiler_s() {
        let at = |p| Diagnostic::error("t.std", p, "bad").to_string();
        assert_eq!(at(Position::Line(3)), "t.std:3: error: bad");
        assert_eq!(at(Position::At(Pos::new(2, 7))), "t.std:2:7: error: bad");
        assert_eq!(at(Position::Byte(40)), "t.std: byte 40: error: bad");
        assert_eq!(at(Position::Event(5)), "t.std: event 5: error: bad");
        assert_eq!(at(Position::File), "t.std: error: bad");
        assert_eq!(
            Diagnostic::warning("t.std", Position::Line(1), "odd").to_string(),
            "t.std:1: warning: odd"
        );
        assert_eq!(Diagnostic::usage("no").to_string(), "error: no");
        assert_eq!(
            SyntaxError::new(Pos::new(1, 2), "x")
                .in_input("p")
                .to_string(),
            "p:1:2: error: x"
        );
        let line = LineError::new(4, "y");
        assert_eq!(line.to_string(), "line 4: y");
        assert_eq!(line.in_input("h.edn").to_string(), "h.edn:4: error: y");
    }
}
