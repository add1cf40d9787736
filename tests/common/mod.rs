//! Helpers shared by the integration tests.
#![allow(dead_code, reason = "each test binary uses a different subset")]
#![allow(clippy::unwrap_used, clippy::panic, reason = "test helpers fail the test by panicking")]

use std::io::Read;

/// Reads a file from `tests/data/`.
pub(crate) fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Reads a JSON file from `tests/data/`.
pub(crate) fn json(name: &str) -> serde_json::Value {
    serde_json::from_slice(&data(name)).unwrap()
}

/// A hex string field of a JSON object, decoded.
pub(crate) fn hex_field(v: &serde_json::Value, path: &[&str]) -> Vec<u8> {
    let mut cur = v;
    for p in path {
        cur = &cur[*p];
    }
    hex::decode(cur.as_str().unwrap_or_else(|| panic!("no field {path:?}"))).unwrap()
}

/// Removes armor (or passes binary through).
pub(crate) fn dearmor(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = sixpgp::ArmorReader::new(bytes).read_to_end(&mut out).unwrap();
    out
}
