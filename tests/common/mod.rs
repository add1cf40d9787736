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

/// A tiny deterministic RNG for tests (SplitMix64): reproducible runs, nothing more.
pub(crate) struct TestRng(pub(crate) u64);

impl sixpgp::rand_core::TryRng for TestRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(u32::try_from(self.try_next_u64()? >> 32).unwrap_or_default())
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Ok(z ^ (z >> 31))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let v = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(())
    }
}

impl sixpgp::rand_core::TryCryptoRng for TestRng {}

/// A new-format packet with a fixed length (one, two or five length octets as needed).
#[allow(clippy::cast_possible_truncation, reason = "each cast is bounded by the branch it is in")]
pub(crate) fn packet(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![0xc0 | tag];
    let len = body.len();
    if len < 192 {
        out.push(len as u8);
    } else if len < 8384 {
        let l = len - 192;
        out.extend_from_slice(&[((l >> 8) as u8) + 192, l as u8]);
    } else {
        out.push(0xff);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    }
    out.extend_from_slice(body);
    out
}
