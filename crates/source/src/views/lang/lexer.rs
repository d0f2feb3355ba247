//! Tokens of the views language, each with its span. Comments are `//` to end of line.

use hindsight_syntax::{Scanner, Span, SyntaxError, Token};

/// Punctuation and operators, longest first so that `:=` wins over `:`. `=` is only there to
/// be refused with a hint.
const PUNCTS: &[&str] = &[
    ":=", "==", "!=", "<=", ">=", "&&", "||", "{", "}", "(", ")", ";", ",", ".", ":", "+", "-",
    "*", "/", "%", "<", ">", "!", "=",
];

pub fn lex(src: &str) -> Result<Vec<(Token, Span)>, SyntaxError> {
    let mut s = Scanner::new(src);
    let mut out = Vec::new();
    while let Some(c) = s.peek() {
        let start = s.pos();
        let token = if c.is_ascii_whitespace() {
            s.bump();
            continue;
        } else if s.rest().starts_with("//") {
            s.eat_while(|c| c != '\n');
            continue;
        } else if c.is_ascii_alphabetic() || c == '_' {
            Token::Ident(
                s.eat_while(|c| c.is_ascii_alphanumeric() || c == '_')
                    .to_owned(),
            )
        } else if c.is_ascii_digit() {
            let digits = s.eat_while(|c| c.is_ascii_digit());
            let n = digits
                .parse::<i64>()
                .map_err(|_| SyntaxError::new(start, "integer too large"))?;
            Token::Int(n)
        } else {
            match s.eat_any(PUNCTS) {
                Some("=") => {
                    return Err(SyntaxError::new(
                        start,
                        "unexpected `=`: assignment is `:=`, equality `==`",
                    ))
                }
                Some(p) => Token::Punct(p),
                None => {
                    return Err(SyntaxError::new(
                        start,
                        format!("unexpected character `{c}`"),
                    ))
                }
            }
        };
        out.push((token, s.span_from(start)));
    }
    out.push((Token::End, s.span_from(s.pos())));
    Ok(out)
}
