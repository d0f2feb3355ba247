//! [`Scanner`]: the characters of a text as a lexer reads them, with the position of the next
//! one kept up to date, so that no lexer counts lines and columns itself.

use crate::{Pos, Span};

/// A text being read character by character. Lines are counted at `\n`; columns count
/// characters (not bytes), both from 1.
#[derive(Clone, Debug)]
pub struct Scanner<'a> {
    text: &'a str,
    /// Byte offset of the next character.
    at: usize,
    pos: Pos,
}

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str) -> Scanner<'a> {
        Scanner {
            text,
            at: 0,
            pos: Pos::new(1, 1),
        }
    }

    /// The position of the next character (just past the last one at the end).
    pub fn pos(&self) -> Pos {
        self.pos
    }

    /// The byte offset of the next character, to take the text read since with
    /// [`Scanner::since`].
    pub fn offset(&self) -> usize {
        self.at
    }

    /// The text read from byte offset `offset` (from [`Scanner::offset`]) up to here.
    pub fn since(&self, offset: usize) -> &'a str {
        &self.text[offset..self.at]
    }

    /// What is left to read.
    pub fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    /// The span from `start` (a position this scanner gave) up to here.
    pub fn span_from(&self, start: Pos) -> Span {
        Span {
            start,
            end: self.pos,
        }
    }

    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The character `n` after the next one (`peek_nth(0)` is `peek()`).
    pub fn peek_nth(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }

    /// Reads one character.
    pub fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        if c == '\n' {
            self.pos.line += 1;
            self.pos.col = 1;
        } else {
            self.pos.col += 1;
        }
        Some(c)
    }

    /// Reads `s` if the rest starts with it.
    pub fn eat(&mut self, s: &str) -> bool {
        if !self.rest().starts_with(s) {
            return false;
        }
        for _ in s.chars() {
            self.bump();
        }
        true
    }

    /// Reads the first of `options` the rest starts with (list longer ones first).
    pub fn eat_any(&mut self, options: &[&'static str]) -> Option<&'static str> {
        let found = *options.iter().find(|o| self.rest().starts_with(**o))?;
        self.eat(found);
        Some(found)
    }

    /// Reads characters while `f` holds for them; returns them.
    pub fn eat_while(&mut self, mut f: impl FnMut(char) -> bool) -> &'a str {
        let start = self.at;
        while self.peek().is_some_and(&mut f) {
            self.bump();
        }
        self.since(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_follow_lines_and_characters() {
        let mut s = Scanner::new("ab\n\u{e9}t //x\nz");
        assert_eq!(s.pos(), Pos::new(1, 1));
        assert_eq!(s.eat_while(|c| c.is_alphabetic()), "ab");
        assert_eq!(s.pos(), Pos::new(1, 3));
        assert_eq!(s.bump(), Some('\n'));
        assert_eq!(s.pos(), Pos::new(2, 1));
        let start = s.pos();
        assert_eq!(s.eat_while(|c| c.is_alphabetic()), "\u{e9}t");
        // Columns count characters: `é` is two bytes but one column.
        assert_eq!(
            s.span_from(start),
            Span::new(Pos::new(2, 1), Pos::new(2, 3))
        );
        assert_eq!(s.peek_nth(1), Some('/'));
        s.bump();
        assert!(s.rest().starts_with("//"));
        let from = s.offset();
        assert!(s.eat("//"));
        assert!(!s.eat("//"));
        s.eat_while(|c| c != '\n');
        assert_eq!(s.since(from), "//x");
        assert_eq!(s.eat_any(&["\n\n", "\n"]), Some("\n"));
        assert_eq!(s.eat_any(&["y"]), None);
        assert_eq!(s.bump(), Some('z'));
        assert_eq!((s.bump(), s.peek(), s.pos()), (None, None, Pos::new(3, 2)));
    }
}
