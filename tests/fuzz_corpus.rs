//! Replays every fuzz corpus file through its fuzz entry point on stable Rust, so that each
//! crash the fuzzers ever found stays fixed (crash inputs are added to the corpus directories).
#![cfg(feature = "fuzzing")]
#![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

use std::fs;
use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut count = 0;
    if let Ok(entries) = fs::read_dir(&dir) {
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_file() {
                run(&fs::read(&path).unwrap());
                count += 1;
            }
        }
    }
    assert!(count > 0, "no corpus files in {}", dir.display());
}

#[test]
fn packet_corpus() {
    replay("packet", sixpgp::fuzzing::packets);
}

#[test]
fn cert_corpus() {
    replay("cert", sixpgp::fuzzing::cert);
}

#[test]
fn armor_corpus() {
    replay("armor", sixpgp::fuzzing::armor);
}

#[test]
fn decrypt_corpus() {
    replay("decrypt", sixpgp::fuzzing::decrypt);
}

#[test]
fn verify_corpus() {
    replay("verify", sixpgp::fuzzing::verify);
}

#[test]
fn cleartext_corpus() {
    replay("cleartext", sixpgp::fuzzing::cleartext);
}
