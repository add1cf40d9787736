#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sixpgp::fuzzing::armor(data));
