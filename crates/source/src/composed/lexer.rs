//! Tokens of the composed-operations language: identifiers, integer and string literals,
//! Java's punctuation, `//` and `/* */` comments. Every token carries its line and column.
//!
//! It knows nothing of grammar; `parser.rs` decides what the tokens mean.

use super::ast::Pos;
use super::SyntaxError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Int(i64),
    Str(String),
    /// Punctuation and operators, e.g. `(`, `==`, `&&`, `+=`.
    Punct(&'static str),
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub pos: Pos,
}

/// Longest first, so that `==` wins over `=`.
const PUNCTS: &[&str] = &[
    "&&", "||", "==", "!=", "<=", ">=", "++", "--", "+=", "-=", "(", ")", "{", "}", "[", "]", ";",
    ",", ".", "=", "<", ">", "+", "-", "*", "/", "%", "!", "?", ":", "@",
];

pub fn lex(src: &str) -> Result<Vec<Token>, SyntaxError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let advance = |i: &mut usize, line: &mut u32, col: &mut u32, n: usize| {
        for _ in 0..n {
            if chars[*i] == '\n' {
                *line += 1;
                *col = 1;
            } else {
                *col += 1;
            }
            *i += 1;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        if c.is_whitespace() {
            advance(&mut i, &mut line, &mut col, 1);
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                advance(&mut i, &mut line, &mut col, 1);
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            advance(&mut i, &mut line, &mut col, 2);
            loop {
                if i + 1 >= chars.len() {
                    return Err(SyntaxError::new(pos, "unterminated comment"));
                }
                if chars[i] == '*' && chars[i + 1] == '/' {
                    advance(&mut i, &mut line, &mut col, 2);
                    break;
                }
                advance(&mut i, &mut line, &mut col, 1);
            }
        } else if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                advance(&mut i, &mut line, &mut col, 1);
            }
            out.push(Token {
                tok: Tok::Ident(chars[start..i].iter().collect()),
                pos,
            });
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                advance(&mut i, &mut line, &mut col, 1);
            }
            let text: String = chars[start..i].iter().collect();
            if i < chars.len() && (chars[i] == 'L' || chars[i] == 'l') {
                advance(&mut i, &mut line, &mut col, 1);
            }
            let n = text.parse::<i64>().map_err(|_| {
                SyntaxError::new(pos, format!("integer `{text}` does not fit in 64 bits"))
            })?;
            out.push(Token {
                tok: Tok::Int(n),
                pos,
            });
        } else if c == '"' {
            advance(&mut i, &mut line, &mut col, 1);
            let mut s = String::new();
            loop {
                match chars.get(i) {
                    None | Some('\n') => {
                        return Err(SyntaxError::new(pos, "unterminated string literal"))
                    }
                    Some('"') => {
                        advance(&mut i, &mut line, &mut col, 1);
                        break;
                    }
                    Some('\\') => {
                        let escaped = match chars.get(i + 1) {
                            Some('n') => '\n',
                            Some('t') => '\t',
                            Some('"') => '"',
                            Some('\\') => '\\',
                            Some('\'') => '\'',
                            _ => {
                                let at = Pos { line, col };
                                return Err(SyntaxError::new(at, "unknown escape in string"));
                            }
                        };
                        s.push(escaped);
                        advance(&mut i, &mut line, &mut col, 2);
                    }
                    Some(&ch) => {
                        s.push(ch);
                        advance(&mut i, &mut line, &mut col, 1);
                    }
                }
            }
            out.push(Token {
                tok: Tok::Str(s),
                pos,
            });
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
                Some(p) => {
                    advance(&mut i, &mut line, &mut col, p.len());
                    out.push(Token {
                        tok: Tok::Punct(p),
                        pos,
                    });
                }
                None => {
                    return Err(SyntaxError::new(pos, format!("unexpected character `{c}`")));
                }
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: Pos { line, col },
    });
    Ok(out)
}
