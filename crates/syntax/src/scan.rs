//! [`Scanner`]: the characters of a text as a lexer reads them, with the position of the next
//! one kept up to date, so that no lexer counts lines and columns itself; and [`tokenize`], the
//! loop every lexer runs over it.

use crate::{Pos, Span, SyntaxError, Token};

/// Splits `text` into tokens, each with its span, then a [`Token::End`] where the text ends.
/// `token` is called with the scanner at the next character (also given), and the tokens so far;
/// it reads at least that character and returns the token read, or `None` for what is skipped
/// (whitespace, a comment).
pub fn tokenize(
    text: &str,
    mut token: impl FnMut(
        &mut Scanner<'_>,
        char,
        &[(Token, Span)],
    ) -> Result<Option<Token>, SyntaxError>,
) -> Result<Vec<(Token, Span)>, SyntaxError> {
    let mut s = Scanner::new(text);
    let mut out = Vec::new();
    while let Some(c) = s.peek() {
        let (start, offset) = (s.pos(), s.offset());
        if let Some(t) = token(&mut s, c, &out)? {
            out.push((t, s.span_from(start)));
        }
        assert!(s.offset() > offset, "a lexer reads something at {start}");
    }
    out.push((Token::End, s.span_from(s.pos())));
    Ok(out)
}

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

    /// Reads the first of `puncts` the rest starts with (list longer ones first); at anything
    /// else, the error "unexpected character".
    pub fn punct(&mut self, puncts: &[&'static str]) -> Result<Token, SyntaxError> {
        match puncts.iter().find(|p| self.rest().starts_with(**p)) {
            Some(p) => {
                self.eat(p);
                Ok(Token::Punct(p))
            }
            None => Err(SyntaxError::new(
                self.pos,
                match self.peek() {
                    Some(c) => format!("unexpected character `{c}`"),
                    None => "unexpected end of input".to_owned(),
                },
            )),
        }
    }

    /// Reads up to the end of the line (not the line break).
    pub fn skip_line(&mut self) {
        self.eat_while(|c| c != '\n');
    }

    /// Reads an optional `-` and the decimal digits after it: their value, or their text when
    /// the value does not fit in 64 bits.
    pub fn integer(&mut self) -> Result<i64, &'a str> {
        let from = self.at;
        self.eat("-");
        self.eat_while(|c| c.is_ascii_digit());
        let text = self.since(from);
        text.parse().map_err(|_| text)
    }

    /// Reads a string literal from its opening `"` to its closing one; returns its value. A
    /// line break or the end of the input before the closing `"` is the error `unterminated`,
    /// at the opening one. After a backslash, `escape` is given the next character (`None` at
    /// the end of the input) and where the backslash is, and says what the two stand for or
    /// what is wrong.
    pub fn string_literal(
        &mut self,
        unterminated: &str,
        escape: impl Fn(Option<char>, Pos) -> Result<char, SyntaxError>,
    ) -> Result<String, SyntaxError> {
        let start = self.pos;
        self.bump();
        let mut value = String::new();
        loop {
            match self.peek() {
                None | Some('\n') => return Err(SyntaxError::new(start, unterminated)),
                Some('"') => {
                    self.bump();
                    return Ok(value);
                }
                Some('\\') => {
                    value.push(escape(self.peek_nth(1), self.pos)?);
                    self.bump();
                    self.bump();
                }
                Some(c) => {
                    value.push(c);
                    self.bump();
                }
            }
        }
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
        assert_eq!(s.punct(&["\n\n", "\n"]), Ok(Token::Punct("\n")));
        assert_eq!(
            s.punct(&["y"]).unwrap_err().to_string(),
            "3:1: unexpected character `z`"
        );
        assert_eq!(s.bump(), Some('z'));
        assert_eq!((s.bump(), s.peek(), s.pos()), (None, None, Pos::new(3, 2)));
    }

    #[test]
    fn integers_and_strings() {
        let mut s = Scanner::new("-12 99999999999999999999 \"a\\nb\" \"a\\q\" \"open\nx\"");
        assert_eq!(s.integer(), Ok(-12));
        s.bump();
        assert_eq!(s.integer(), Err("99999999999999999999"));
        s.bump();
        let escape = |c: Option<char>, at: Pos| match c {
            Some('n') => Ok('\n'),
            _ => Err(SyntaxError::new(at, "bad escape")),
        };
        assert_eq!(s.string_literal("open", escape), Ok("a\nb".to_owned()));
        s.bump();
        assert_eq!(
            s.string_literal("open", escape).unwrap_err().to_string(),
            "1:35: bad escape"
        );
        let mut s = Scanner::new(" \"open\nx\"");
        s.bump();
        assert_eq!(
            s.string_literal("unterminated", escape)
                .unwrap_err()
                .to_string(),
            "1:2: unterminated"
        );
    }

    #[test]
    fn tokenize_spans_tokens_and_ends_with_end() {
        let tokens = tokenize("ab  12\n", |s, c, _| {
            Ok(if c.is_whitespace() {
                s.bump();
                None
            } else if c.is_ascii_digit() {
                Some(Token::Int(s.integer().unwrap()))
            } else {
                Some(Token::Ident(s.eat_while(char::is_alphabetic).to_owned()))
            })
        })
        .unwrap();
        let span = |l1, c1, l2, c2| Span::new(Pos::new(l1, c1), Pos::new(l2, c2));
        assert_eq!(
            tokens,
            [
                (Token::Ident("ab".into()), span(1, 1, 1, 3)),
                (Token::Int(12), span(1, 5, 1, 7)),
                (Token::End, span(2, 1, 2, 1)),
            ]
        );
    }
}
