//! Fuzz target: decryption with fixed keys and a password, read to EOF with two read patterns.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sixpgp::fuzzing::decrypt(data));
