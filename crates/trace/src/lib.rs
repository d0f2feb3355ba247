//! The trace layer of hindsight: the event model, interned names, the text formats (RAPID's STD
//! format and our superset of it), the compact binary format, a writer of traces exactly as
//! RAPID reads them, and streaming validation with precise errors.
//!
//! This crate owns what a trace *says*. It knows nothing of happens-before, of any analysis, or
//! of how findings are reported: it hands events to whoever reads them, one at a time, and says
//! exactly where a bad one is.

pub mod arbitrary;
pub mod binary;
pub mod error;
pub mod event;
pub mod files;
pub mod generate;
pub mod names;
pub mod rapid;
pub mod source;
pub mod text;
pub mod validate;

pub use binary::{BinaryReader, BinaryWriter};
pub use error::{ErrorKind, Position, TraceError, Warning, WarningKind};
pub use event::{Call, CallRef, Event, Op, Value};
pub use files::{same_file, OutputFile};
pub use names::{LocId, LockId, MsgId, NameKind, Names, ObjId, SymId, ThreadId, VarId};
pub use rapid::{write_rapid, RapidWriter};
pub use source::{CallHead, EventSource, MemorySource, Step, Trace};
pub use text::{TextReader, TextWriter};
pub use validate::Validator;

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The on-disk formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Binary,
}

impl Format {
    /// The format a path's extension names: `.hst` is binary, anything else text.
    pub fn from_extension(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some("hst") => Format::Binary,
            _ => Format::Text,
        }
    }
}

/// Either reader, chosen at open time; an enum rather than a trait object so that the event
/// loop is monomorphic.
pub enum AnyReader {
    Text(TextReader<Box<dyn Read + Send>>),
    Binary(BinaryReader<Box<dyn Read + Send>>),
}

impl AnyReader {
    pub fn format(&self) -> Format {
        match self {
            AnyReader::Text(_) => Format::Text,
            AnyReader::Binary(_) => Format::Binary,
        }
    }
}

impl EventSource for AnyReader {
    #[inline]
    fn advance(&mut self) -> Result<bool, TraceError> {
        match self {
            AnyReader::Text(r) => r.advance(),
            AnyReader::Binary(r) => r.advance(),
        }
    }
    #[inline]
    fn advance_splitting_calls(&mut self, values: &mut Vec<Value>) -> Result<Step, TraceError> {
        match self {
            AnyReader::Text(r) => r.advance_splitting_calls(values),
            AnyReader::Binary(r) => r.advance_splitting_calls(values),
        }
    }
    #[inline]
    fn current(&self) -> &Event {
        match self {
            AnyReader::Text(r) => r.current(),
            AnyReader::Binary(r) => r.current(),
        }
    }
    fn position(&self) -> Position {
        match self {
            AnyReader::Text(r) => r.position(),
            AnyReader::Binary(r) => r.position(),
        }
    }
    fn names(&self) -> &Names {
        match self {
            AnyReader::Text(r) => r.names(),
            AnyReader::Binary(r) => r.names(),
        }
    }
    #[inline]
    fn names_defined(&self) -> usize {
        match self {
            AnyReader::Text(r) => r.names_defined(),
            AnyReader::Binary(r) => r.names_defined(),
        }
    }
    fn take_names(&mut self) -> Names {
        match self {
            AnyReader::Text(r) => r.take_names(),
            AnyReader::Binary(r) => r.take_names(),
        }
    }
}

/// Opens a trace: `-` is standard input. The format is sniffed from the first bytes (the binary
/// magic number), so a binary trace is recognised whatever its name; a `.hst` file that is not
/// binary is an error rather than a text trace full of garbage.
pub fn open(path: &Path) -> Result<AnyReader, TraceError> {
    let io_err = |e: io::Error| TraceError::new(Position::File, ErrorKind::Io(e.to_string()));
    let mut input: Box<dyn Read + Send> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(io_err)?)
    };
    let mut head = Vec::with_capacity(binary::MAGIC.len());
    (&mut input)
        .take(binary::MAGIC.len() as u64)
        .read_to_end(&mut head)
        .map_err(io_err)?;
    let is_binary = head == binary::MAGIC;
    let input: Box<dyn Read + Send> = Box::new(io::Cursor::new(head).chain(input));
    if is_binary || Format::from_extension(path) == Format::Binary {
        Ok(AnyReader::Binary(BinaryReader::new(input)))
    } else {
        Ok(AnyReader::Text(TextReader::new(input)))
    }
}
