//! Tokens of the composed-operations language: identifiers, integer and string literals,
//! Java's punctuation, `//` and `/* */` comments. Every token carries its span.
//!
//! It knows nothing of grammar; `parser.rs` decides what the tokens mean.

use hindsight_syntax::{tokenize, Span, SyntaxError, Token};

/// Longest first, so that `==` wins over `=`.
const PUNCTS: &[&str] = &[
    "&&", "||", "==", "!=", "<=", ">=", "++", "--", "+=", "-=", "(", ")", "{", "}", "[", "]", ";",
    ",", ".", "=", "<", ">", "+", "-", "*", "/", "%", "!", "?", ":", "@",
];

pub fn lex(src: &str) -> Result<Vec<(Token, Span)>, SyntaxError> {
    tokenize(src, |s, c, _| {
        let start = s.pos();
        let token = if c.is_whitespace() {
            s.bump();
            return Ok(None);
        } else if s.rest().starts_with("//") {
            s.skip_line();
            return Ok(None);
        } else if s.eat("/*") {
            while !s.eat("*/") {
                if s.bump().is_none() {
                    return Err(SyntaxError::new(start, "unterminated comment"));
                }
            }
            return Ok(None);
        } else if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            let word = s.eat_while(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
            Token::Ident(word.to_owned())
        } else if c.is_ascii_digit() {
            let n = s.integer().map_err(|digits| {
                SyntaxError::new(start, format!("integer `{digits}` does not fit in 64 bits"))
            })?;
            // Java's `long` suffix.
            if !s.eat("L") {
                s.eat("l");
            }
            Token::Int(n)
        } else if c == '"' {
            Token::Str(
                s.string_literal("unterminated string literal", |c, at| match c {
                    Some('n') => Ok('\n'),
                    Some('t') => Ok('\t'),
                    Some('"') => Ok('"'),
                    Some('\\') => Ok('\\'),
                    Some('\'') => Ok('\''),
                    _ => Err(SyntaxError::new(at, "unknown escape in string")),
                })?,
            )
        } else {
            s.punct(PUNCTS)?
        };
        Ok(Some(token))
    })
}
