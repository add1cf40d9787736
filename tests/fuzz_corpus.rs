//! Replays every fuzz corpus file through its fuzz entry point on stable Rust, so that each
//! crash the fuzzers ever found stays fixed (crash inputs are added to the corpus directories).
//! The corpus lives in the repository's `fuzz/`, which the published package leaves out: there
//! these tests skip with a note.
#![cfg(feature = "fuzzing")]
#![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

use std::fs;
use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    // The published package carries no `fuzz/` directory; in the repository the corpus must be
    // there (a missing target directory fails below).
    if !fuzz.is_dir() {
        eprintln!("skipped: no {} (the published package does not carry the fuzz corpus)", fuzz.display());
        return;
    }
    let dir = fuzz.join("corpus").join(target);
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
