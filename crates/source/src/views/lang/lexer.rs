//! Tokens of the views language, each with its position. Comments are `//` to end of line.

use super::{LangError, Pos};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Int(i64),
    /// Punctuation and operators: `{ } ( ) ; , . : := + - * / % == != < <= > >= && || !`.
    Punct(&'static str),
    Eof,
}

const PUNCTS: &[&str] = &[
    ":=", "==", "!=", "<=", ">=", "&&", "||", "{", "}", "(", ")", ";", ",", ".", ":", "+", "-",
    "*", "/", "%", "<", ">", "!", "=",
];

pub fn lex(src: &str) -> Result<Vec<(Tok, Pos)>, LangError> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    while i < bytes.len() {
        let c = bytes[i];
        let pos = Pos { line, col };
        if c == b'\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            col += (i - start) as u32;
            out.push((Tok::Ident(src[start..i].to_owned()), pos));
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            col += (i - start) as u32;
            let n = src[start..i]
                .parse::<i64>()
                .map_err(|_| LangError::new(pos, "integer too large"))?;
            out.push((Tok::Int(n), pos));
            continue;
        }
        match PUNCTS.iter().find(|p| src[i..].starts_with(**p)) {
            Some(&"=") => {
                return Err(LangError::new(
                    pos,
                    "unexpected `=`: assignment is `:=`, equality `==`",
                ))
            }
            Some(p) => {
                i += p.len();
                col += p.len() as u32;
                out.push((Tok::Punct(p), pos));
            }
            None => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return Err(LangError::new(pos, format!("unexpected character `{ch}`")));
            }
        }
    }
    out.push((Tok::Eof, Pos { line, col }));
    Ok(out)
}
