//! The `lin` checker and models before issue #24, for the same-run baseline of `benches/lin.rs`.

#![allow(dead_code)]

pub mod check;
pub mod models;
