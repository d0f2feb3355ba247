//! [`Token`] and [`Cursor`]: what a lexer hands its recursive-descent parser, and how the
//! parser walks it, with errors that say what was expected and what was found, where.

use crate::{Pos, Span, SyntaxError};
use std::fmt;

/// A token of one of hindsight's small languages. Which words, numbers, strings and
/// punctuation exist is each lexer's business; the kinds are the same everywhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    Ident(String),
    Int(i64),
    Str(String),
    /// Punctuation and operators, as written: `(`, `==`, `:=`, ...
    Punct(&'static str),
    /// The end of the input: the last token of every token list.
    End,
}

/// How a token reads in "found ..." messages: `` `x` ``, `` `42` ``, `` `==` ``, `"text"`,
/// `end of input`. A parser whose language words them otherwise gives the cursor its own.
impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Ident(s) => write!(f, "`{s}`"),
            Token::Int(i) => write!(f, "`{i}`"),
            Token::Str(s) => write!(f, "\"{s}\""),
            Token::Punct(p) => write!(f, "`{p}`"),
            Token::End => f.write_str("end of input"),
        }
    }
}

/// How deep brackets, blocks and prefix operators may nest. The parsers recurse on nesting,
/// so deeper input is refused with an error rather than overflowing the stack.
pub const MAX_NESTING: usize = 128;

/// `Err` with the message for input nested `depth` deep, when that is more than
/// [`MAX_NESTING`].
pub fn check_nesting(depth: usize) -> Result<(), String> {
    if depth > MAX_NESTING {
        Err(format!("nested more than {MAX_NESTING} deep"))
    } else {
        Ok(())
    }
}

/// A place in a token list to come back to after looking ahead: see [`Cursor::save`].
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    at: usize,
    depth: usize,
}

/// A parser's position in its tokens. It never moves past the final [`Token::End`], so a
/// parser can always peek.
#[derive(Clone, Debug)]
pub struct Cursor {
    tokens: Vec<(Token, Span)>,
    at: usize,
    depth: usize,
    describe: fn(&Token) -> String,
}

impl Cursor {
    /// A cursor at the first of `tokens`, which must end with [`Token::End`]; `describe` words
    /// a token in messages (`Token::to_string` for the default wording).
    pub fn new(tokens: Vec<(Token, Span)>, describe: fn(&Token) -> String) -> Cursor {
        assert!(
            matches!(tokens.last(), Some((Token::End, _))),
            "a token list ends with Token::End"
        );
        Cursor {
            tokens,
            at: 0,
            depth: 0,
            describe,
        }
    }

    pub fn peek(&self) -> &Token {
        &self.tokens[self.at].0
    }

    /// The token `n` after the next one (`peek_n(0)` is `peek()`); [`Token::End`] past the end.
    pub fn peek_n(&self, n: usize) -> &Token {
        &self.tokens[(self.at + n).min(self.tokens.len() - 1)].0
    }

    /// Where the next token starts.
    pub fn pos(&self) -> Pos {
        self.span().start
    }

    pub fn span(&self) -> Span {
        self.tokens[self.at].1
    }

    pub fn at_end(&self) -> bool {
        *self.peek() == Token::End
    }

    /// Moves past the next token (not past the end); returns where it started.
    pub fn bump(&mut self) -> Pos {
        let pos = self.pos();
        if self.at + 1 < self.tokens.len() {
            self.at += 1;
        }
        pos
    }

    /// Whether the next token is the punctuation `p`.
    pub fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Token::Punct(q) if *q == p)
    }

    /// Whether the next token is the word `w`.
    pub fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Token::Ident(s) if s == w)
    }

    /// Moves past the punctuation `p` if it is next.
    pub fn eat(&mut self, p: &str) -> bool {
        let found = self.is(p);
        if found {
            self.bump();
        }
        found
    }

    /// Moves past the word `w` if it is next.
    pub fn eat_word(&mut self, w: &str) -> bool {
        let found = self.is_word(w);
        if found {
            self.bump();
        }
        found
    }

    /// The next token as messages word it.
    pub fn found(&self) -> String {
        (self.describe)(self.peek())
    }

    /// The error "expected `what`, found (the next token)", at the next token.
    pub fn expected(&self, what: &str) -> SyntaxError {
        SyntaxError::new(
            self.pos(),
            format!("expected {what}, found {}", self.found()),
        )
    }

    /// Moves past the punctuation `p`, which must be next, saying "expected `what`" if not;
    /// returns where it was.
    pub fn expect_as(&mut self, p: &str, what: &str) -> Result<Pos, SyntaxError> {
        if self.is(p) {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    /// Moves past the punctuation `p`, which must be next; returns where it was.
    pub fn expect(&mut self, p: &str) -> Result<Pos, SyntaxError> {
        self.expect_as(p, &format!("`{p}`"))
    }

    /// Moves past the word `w`, which must be next; returns where it was.
    pub fn expect_word(&mut self, w: &str) -> Result<Pos, SyntaxError> {
        if self.is_word(w) {
            Ok(self.bump())
        } else {
            Err(self.expected(&format!("`{w}`")))
        }
    }

    /// Reads a word that is not one of `reserved`; `what` names what was expected.
    pub fn ident(&mut self, what: &str, reserved: &[&str]) -> Result<(String, Pos), SyntaxError> {
        match self.peek() {
            Token::Ident(s) if !reserved.contains(&s.as_str()) => {
                let s = s.clone();
                Ok((s, self.bump()))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Goes one level deeper (a bracket, a block, a prefix operator): an error at the next
    /// token beyond [`MAX_NESTING`]. Pair with [`Cursor::leave`] on success; after an error the
    /// parse is abandoned, or resumed from a [`Mark`], so the depth needs no unwinding.
    pub fn enter(&mut self) -> Result<(), SyntaxError> {
        self.depth += 1;
        check_nesting(self.depth).map_err(|m| SyntaxError::new(self.pos(), m))
    }

    pub fn leave(&mut self) {
        self.depth -= 1;
    }

    /// The current place, to come back to with [`Cursor::restore`].
    pub fn save(&self) -> Mark {
        Mark {
            at: self.at,
            depth: self.depth,
        }
    }

    pub fn restore(&mut self, mark: Mark) {
        self.at = mark.at;
        self.depth = mark.depth;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(tokens: &[Token]) -> Cursor {
        let mut list: Vec<(Token, Span)> = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let col = 2 * i as u32 + 1;
                (t.clone(), Span::new(Pos::new(1, col), Pos::new(1, col + 1)))
            })
            .collect();
        let end = Pos::new(1, 2 * tokens.len() as u32 + 1);
        list.push((Token::End, Span::new(end, end)));
        Cursor::new(list, Token::to_string)
    }

    #[test]
    fn peeks_eats_and_stops_at_the_end() {
        let mut c = cursor(&[
            Token::Ident("let".into()),
            Token::Ident("x".into()),
            Token::Punct("="),
            Token::Int(1),
        ]);
        assert_eq!(c.peek_n(3), &Token::Int(1));
        assert_eq!(c.peek_n(9), &Token::End);
        assert!(c.eat_word("let"));
        assert!(!c.eat_word("let"));
        assert_eq!(
            c.ident("a name", &["let"]),
            Ok(("x".into(), Pos::new(1, 3)))
        );
        assert!(c.is("="));
        assert!(!c.eat(";"));
        assert_eq!(c.expect("="), Ok(Pos::new(1, 5)));
        assert_eq!(
            c.expect_as(";", "`;` or `,`").unwrap_err().message,
            "expected `;` or `,`, found `1`"
        );
        assert_eq!(
            c.expect(";").unwrap_err().to_string(),
            "1:7: expected `;`, found `1`"
        );
        assert_eq!(c.bump(), Pos::new(1, 7));
        assert!(c.at_end());
        assert_eq!(c.bump(), Pos::new(1, 9));
        assert!(c.at_end());
        assert_eq!(
            c.expect_word("in").unwrap_err().to_string(),
            "1:9: expected `in`, found end of input"
        );
    }

    #[test]
    fn reserved_words_are_not_names() {
        let mut c = cursor(&[Token::Ident("if".into())]);
        assert_eq!(
            c.ident("a variable", &["if"]).unwrap_err().message,
            "expected a variable, found `if`"
        );
        assert_eq!(c.ident("a variable", &[]).unwrap().0, "if");
    }

    #[test]
    fn descriptions_are_the_parser_s() {
        let describe = |t: &Token| match t {
            Token::Str(s) => format!("string {s:?}"),
            t => t.to_string(),
        };
        let c = Cursor::new(
            vec![
                (Token::Str("a".into()), Span::default()),
                (Token::End, Span::default()),
            ],
            describe,
        );
        assert_eq!(c.found(), "string \"a\"");
        assert_eq!(Token::Str("a".into()).to_string(), "\"a\"");
    }

    #[test]
    fn nesting_is_bounded_and_restored_by_marks() {
        let mut c = cursor(&[Token::Punct("(")]);
        let mark = c.save();
        for _ in 0..MAX_NESTING {
            c.enter().unwrap();
        }
        let e = c.enter().unwrap_err();
        assert_eq!(e.to_string(), "1:1: nested more than 128 deep");
        c.restore(mark);
        c.enter().unwrap();
        c.leave();
        assert_eq!(check_nesting(MAX_NESTING), Ok(()));
        assert!(check_nesting(MAX_NESTING + 1).is_err());
    }
}
