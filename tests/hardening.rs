//! Hardening checks through the public API: the armor checksum is never a reason to refuse,
//! protection parameters are checked before any key derivation, unlocking is bounded, SEIPDv2
//! chunks cannot be reordered, and a secret key must match its public key.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::cast_possible_truncation,
    reason = "tests fail by panicking; lengths in hand-built packets are small"
)]

mod common;

use std::io::{BufReader, Read, Write};

use sixpgp::{ArmorKind, ArmorReader, ArmorWriter, Error};

// ---------------------------------------------------------------------------------------------
// Armor: RFC 9580 §6.1, the CRC24 line never causes a rejection.

/// Armors `data` and inserts `crc` as the line before the END line.
fn armored_with_crc(data: &[u8], crc: &str) -> Vec<u8> {
    let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap();
    w.write_all(data).unwrap();
    let text = String::from_utf8(w.finish().unwrap()).unwrap();
    let at = text.find("-----END").unwrap();
    format!("{}{crc}\n{}", &text[..at], &text[at..]).into_bytes()
}

#[test]
fn malformed_armor_checksum_lines_are_ignored() {
    let long = format!("=AAAA{}", "x".repeat(5000));
    let crcs = ["=!!", "=", "=AAA", "=AAAAA", "=AA=A", "=AAAA x", "==", "=\u{e9}t\u{e9}", long.as_str()];
    // A short body (one line-at-a-time pass) and one long enough for the worker threads.
    for len in [3_usize, 100, 600_000] {
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8 | 0x80).collect();
        for crc in crcs {
            let input = armored_with_crc(&data, crc);
            for threads in [1, 2] {
                for buffer in if len < 1000 { [1, 8192] } else { [8192, 65536] } {
                    let source = BufReader::with_capacity(buffer, &input[..]);
                    let mut out = Vec::new();
                    let result = ArmorReader::new(source).threads(threads).read_to_end(&mut out);
                    let what = format!("{len} octets, {crc:.8}, {threads} threads, buffer {buffer}");
                    assert!(result.is_ok(), "{what}: {:?}", result.map_err(Error::from_io));
                    assert!(out == data, "{what}");
                }
            }
        }
    }
    // A checksum line still has to be followed by the END line.
    let input = armored_with_crc(b"\xc2\x00", "=!!");
    let cut = input.windows(4).position(|w| w == b"=!!\n").unwrap() + 3;
    let mut out = Vec::new();
    let err = ArmorReader::new(&input[..cut]).read_to_end(&mut out).unwrap_err();
    assert!(matches!(Error::from_io(err), Error::Truncated(_)));
}
