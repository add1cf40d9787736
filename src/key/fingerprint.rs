//! How a v6 key's fingerprint is computed (RFC 9580 §5.5.4.3); the value types are in
//! `types`.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.5.4.3>

use std::str::FromStr;

use crate::crypto::hash;
use crate::error::{Error, Result};
use crate::packet::Serialize;
use crate::packet::key::PublicKeyPacket;

use crate::types::Fingerprint;

impl Fingerprint {
    /// Computes the fingerprint of a key packet body.
    pub(super) fn of(key: &PublicKeyPacket) -> Self {
        Self::from_bytes(hash::sha256(&key_hash_input(key)))
    }
}

/// The octets a v6 key contributes to fingerprints and signature hashes:
/// `0x9B ‖ 4-octet body length ‖ body` (RFC 9580 §5.2.4).
pub(super) fn key_hash_input(key: &PublicKeyPacket) -> Vec<u8> {
    let body = key.to_vec();
    let len = u32::try_from(body.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(body.len().saturating_add(5));
    out.push(0x9b);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&body);
    out
}

impl FromStr for Fingerprint {
    type Err = Error;

    /// Parses 64 hex digits (either case; spaces are ignored).
    fn from_str(s: &str) -> Result<Self> {
        let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        if digits.len() != 64 {
            return Err(Error::InvalidArgument("a v6 fingerprint has 64 hex digits"));
        }
        let mut out = [0u8; 32];
        for (slot, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
            let text = std::str::from_utf8(pair).map_err(|_| Error::InvalidArgument("not hex"))?;
            *slot = u8::from_str_radix(text, 16).map_err(|_| Error::InvalidArgument("not hex"))?;
        }
        Ok(Self::from_bytes(out))
    }
}
