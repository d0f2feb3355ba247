//! Tokens of the composed-operations language: identifiers, integer and string literals,
//! Java's punctuation, `//` and `/* */` comments. Every token carries its span.
//!
//! It knows nothing of grammar; `parser.rs` decides what the tokens mean.

use hindsight_syntax::{Pos, Scanner, Span, SyntaxError, Token};

/// Longest first, so that `==` wins over `=`.
const PUNCTS: &[&str] = &[
    "&&", "||", "==", "!=", "<=", ">=", "++", "--", "+=", "-=", "(", ")", "{", "}", "[", "]", ";",
    ",", ".", "=", "<", ">", "+", "-", "*", "/", "%", "!", "?", ":", "@",
];

pub fn lex(src: &str) -> Result<Vec<(Token, Span)>, SyntaxError> {
    let mut s = Scanner::new(src);
    let mut out = Vec::new();
    while let Some(c) = s.peek() {
        let start = s.pos();
        let token = if c.is_whitespace() {
            s.bump();
            continue;
        } else if s.rest().starts_with("//") {
            s.eat_while(|c| c != '\n');
            continue;
        } else if s.eat("/*") {
            while !s.eat("*/") {
                if s.bump().is_none() {
                    return Err(SyntaxError::new(start, "unterminated comment"));
                }
            }
            continue;
        } else if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            let word = s.eat_while(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
            Token::Ident(word.to_owned())
        } else if c.is_ascii_digit() {
            let digits = s.eat_while(|c| c.is_ascii_digit());
            if !s.eat("L") {
                s.eat("l");
            }
            let n = digits.parse::<i64>().map_err(|_| {
                SyntaxError::new(start, format!("integer `{digits}` does not fit in 64 bits"))
            })?;
            Token::Int(n)
        } else if c == '"' {
            s.bump();
            Token::Str(string(&mut s, start)?)
        } else if let Some(p) = s.eat_any(PUNCTS) {
            Token::Punct(p)
        } else {
            return Err(SyntaxError::new(
                start,
                format!("unexpected character `{c}`"),
            ));
        };
        out.push((token, s.span_from(start)));
    }
    out.push((Token::End, s.span_from(s.pos())));
    Ok(out)
}

/// The rest of a string literal opened at `start`, up to and including its closing quote.
fn string(s: &mut Scanner, start: Pos) -> Result<String, SyntaxError> {
    let mut value = String::new();
    loop {
        match s.peek() {
            None | Some('\n') => {
                return Err(SyntaxError::new(start, "unterminated string literal"))
            }
            Some('"') => {
                s.bump();
                return Ok(value);
            }
            Some('\\') => {
                let escaped = match s.peek_nth(1) {
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some('"') => '"',
                    Some('\\') => '\\',
                    Some('\'') => '\'',
                    _ => return Err(SyntaxError::new(s.pos(), "unknown escape in string")),
                };
                value.push(escaped);
                s.bump();
                s.bump();
            }
            Some(c) => {
                value.push(c);
                s.bump();
            }
        }
    }
}
