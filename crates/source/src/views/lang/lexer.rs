//! Tokens of the views language, each with its span. Comments are `//` to end of line.

use hindsight_syntax::{tokenize, Span, SyntaxError, Token};

/// Punctuation and operators, longest first so that `:=` wins over `:`. `=` is only there to
/// be refused with a hint.
const PUNCTS: &[&str] = &[
    ":=", "==", "!=", "<=", ">=", "&&", "||", "{", "}", "(", ")", ";", ",", ".", ":", "+", "-",
    "*", "/", "%", "<", ">", "!", "=",
];

pub fn lex(src: &str) -> Result<Vec<(Token, Span)>, SyntaxError> {
    tokenize(src, |s, c, _| {
        let start = s.pos();
        let token = if c.is_ascii_whitespace() {
            s.bump();
            return Ok(None);
        } else if s.rest().starts_with("//") {
            s.skip_line();
            return Ok(None);
        } else if c.is_ascii_alphabetic() || c == '_' {
            Token::Ident(
                s.eat_while(|c| c.is_ascii_alphanumeric() || c == '_')
                    .to_owned(),
            )
        } else if c.is_ascii_digit() {
            Token::Int(
                s.integer()
                    .map_err(|_| SyntaxError::new(start, "integer too large"))?,
            )
        } else {
            match s.punct(PUNCTS)? {
                Token::Punct("=") => {
                    return Err(SyntaxError::new(
                        start,
                        "unexpected `=`: assignment is `:=`, equality `==`",
                    ))
                }
                t => t,
            }
        };
        Ok(Some(token))
    })
}
