//! Fuzz target: inline and detached verification with fixed certificates.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sixpgp::fuzzing::verify(data));
