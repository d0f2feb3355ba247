#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| hindsight_fuzz::java(data));
