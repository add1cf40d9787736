//! Fuzz target: the packet reader and every non-data packet parser, with a round-trip oracle.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sixpgp::fuzzing::packets(data));
