//! Lines of a byte stream, read in fixed-size chunks: what every line-based trace reader
//! (STD text, RoadRunner logs) stands on. Memory follows the longest line, not the input.

use crate::error::{ErrorKind, Position, TraceError};
use std::io::{self, Read};
use std::ops::Range;

const CHUNK: usize = 256 * 1024;
/// No event needs more; a longer line means the input is not a trace.
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;

/// A chunked line splitter. [`LineBuf::next_line`] hands out the range of the next line in
/// [`LineBuf::buf`], valid until the next call.
pub struct LineBuf<R> {
    input: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
}

impl<R: Read> LineBuf<R> {
    pub fn new(input: R) -> LineBuf<R> {
        LineBuf {
            input,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
            eof: false,
        }
    }

    /// The bytes the ranges of [`LineBuf::next_line`] index.
    #[inline]
    pub fn buf(&self) -> &[u8] {
        &self.buf
    }

    /// The bytes read and not yet handed out: `buf()[unread()]`. What lies in `buf()` past
    /// them is stale (or zeros) but may be loaded and masked off.
    #[inline]
    pub(crate) fn unread(&self) -> Range<usize> {
        self.start..self.end
    }

    /// Hands out the bytes up to `at` (a line's start in `unread()`), parsed by the caller.
    #[inline]
    pub(crate) fn skip_to(&mut self, at: usize) {
        debug_assert!(self.start <= at && at <= self.end);
        self.start = at;
    }

    /// The next line, without its `\n`, or `None` at the end of the input. `line` is the
    /// number the line will have, for errors.
    #[inline]
    pub fn next_line(&mut self, line: u64) -> Result<Option<Range<usize>>, TraceError> {
        if let Some(nl) = find_newline(&self.buf[self.start..self.end]) {
            let range = self.start..self.start + nl;
            self.start += nl + 1;
            return Ok(Some(range));
        }
        self.next_line_refill(line)
    }

    #[inline(never)]
    fn next_line_refill(&mut self, line: u64) -> Result<Option<Range<usize>>, TraceError> {
        let mut scanned = self.end;
        loop {
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let range = self.start..self.end;
                self.start = self.end;
                return Ok(Some(range));
            }
            // Move the partial line to the front, grow only if it fills the whole buffer.
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                scanned -= self.start;
                self.end -= self.start;
                self.start = 0;
            }
            if self.end == self.buf.len() {
                if self.buf.len() >= MAX_LINE {
                    return Err(TraceError::new(
                        Position::Line(line),
                        ErrorKind::Syntax("line longer than 16 MiB".into()),
                    ));
                }
                self.buf.resize(self.buf.len() * 2, 0);
            }
            let n = loop {
                match self.input.read(&mut self.buf[self.end..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        return Err(TraceError::new(Position::Line(line), ErrorKind::of_io(&e)))
                    }
                }
            };
            self.eof = n == 0;
            self.end += n;
            if let Some(nl) = memchr::memchr(b'\n', &self.buf[scanned..self.end]) {
                let range = self.start..scanned + nl;
                self.start = scanned + nl + 1;
                return Ok(Some(range));
            }
            scanned = self.end;
        }
    }
}

/// Where the first `\n` of `bytes` is. A trace's lines are short (about 15 bytes in RAPID's
/// STD): looking at the first two words, eight bytes at a time in a `u64`, finds most line
/// ends in fewer instructions than a vectorised search, whose setup costs more than such a
/// line (`BENCHMARKS.md`, #43); a longer line goes to that search.
#[inline]
pub(crate) fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(word) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        // The bytes equal to `\n` have their high bit set; a borrow can set a byte's above a
        // match too, but the lowest one set is always a match.
        let x = u64::from_le_bytes(*word) ^ (ONES * u64::from(b'\n'));
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
        if at == 16 {
            break;
        }
    }
    memchr::memchr(b'\n', &bytes[at..]).map(|nl| at + nl)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a byte loop, on slices of every length up to 40 with line ends anywhere.
    #[test]
    fn find_newline_finds_the_first_line_end() {
        let mut rng = hindsight_rng::SplitMix64::new(3);
        for _ in 0..20_000 {
            let len = rng.below(41) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| match rng.below(8) {
                    0..=4 => b'a',
                    _ => [b'\n', b'\x0b', b'|', 0, 0x8a][rng.below(5) as usize],
                })
                .collect();
            let expected = bytes.iter().position(|&b| b == b'\n');
            assert_eq!(find_newline(&bytes), expected, "{bytes:?}");
        }
    }
}
