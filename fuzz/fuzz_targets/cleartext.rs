//! Fuzz target: Cleartext Signature Framework parsing and verification.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sixpgp::fuzzing::cleartext(data));
