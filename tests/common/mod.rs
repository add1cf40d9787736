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

/// Splits a binary message into (tag, body) pairs; the input must use fixed lengths.
#[allow(clippy::cast_possible_truncation, reason = "a test vector's packet lengths fit in usize")]
pub(crate) fn split_packets(mut bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some((&ctb, rest)) = bytes.split_first() {
        let tag = ctb & 0x3f;
        let (len, rest) = match rest[0] {
            l @ 0..192 => (usize::from(l), &rest[1..]),
            l @ 192..224 => (((usize::from(l) - 192) << 8) + usize::from(rest[1]) + 192, &rest[2..]),
            255 => (u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize, &rest[5..]),
            _ => panic!("partial length in a test vector"),
        };
        out.push((tag, rest[..len].to_vec()));
        bytes = &rest[len..];
    }
    out
}

/// The fixed session key the sealer uses (AES-128).
pub(crate) const SESSION_KEY: [u8; 16] = [0x5a; 16];

/// [`SESSION_KEY`] as a session key.
pub(crate) fn session_key() -> sixpgp::SessionKey {
    sixpgp::SessionKey::from_bytes(&SESSION_KEY)
}

/// A SEIPDv2 packet (AES-128, GCM, the given chunk-size octet) around `inner`, sealed under
/// [`SESSION_KEY`] (RFC 9580 §5.13.2).
#[allow(clippy::cast_possible_truncation, reason = "test messages are far shorter than 2^32")]
pub(crate) fn seal(inner: &[u8], chunk_octet: u8) -> Vec<u8> {
    use aes_gcm::aead::{AeadInOut, KeyInit};

    let salt = [0x33u8; 32];
    let header = [0xd2, 2, 7, 3, chunk_octet];
    // Message key ‖ IV = HKDF-SHA256(session key, salt, info = packet header fields).
    let mut okm = [0u8; 16 + 4];
    hkdf::Hkdf::<sha2::Sha256>::new(Some(&salt), &SESSION_KEY).expand(&header, &mut okm).unwrap();
    let cipher = aes_gcm::Aes128Gcm::new_from_slice(&okm[..16]).unwrap();
    let nonce = |index: u64| {
        let mut n = [0u8; 12];
        n[..4].copy_from_slice(&okm[16..]);
        n[4..].copy_from_slice(&index.to_be_bytes());
        n
    };
    let mut body = vec![2, 7, 3, chunk_octet];
    body.extend_from_slice(&salt);
    let chunk_size = 1usize << (chunk_octet + 6);
    let mut index = 0u64;
    for chunk in inner.chunks(chunk_size) {
        let mut buf = chunk.to_vec();
        let n = nonce(index);
        let tag = cipher.encrypt_inout_detached((&n).into(), &header, buf.as_mut_slice().into()).unwrap();
        body.extend_from_slice(&buf);
        body.extend_from_slice(&tag);
        index += 1;
    }
    // Final tag: empty plaintext, AD = header ‖ total plaintext octets.
    let mut ad = header.to_vec();
    ad.extend_from_slice(&(inner.len() as u64).to_be_bytes());
    let n = nonce(index);
    let tag = cipher.encrypt_inout_detached((&n).into(), &ad, (&mut [][..]).into()).unwrap();
    body.extend_from_slice(&tag);
    packet(18, &body)
}
