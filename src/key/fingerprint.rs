//! v6 fingerprints and key IDs (RFC 9580 §5.5.4.3).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.5.4.3>

use std::fmt;
use std::str::FromStr;

use crate::crypto::hash;
use crate::error::{Error, Result};
use crate::packet::Serialize;
use crate::packet::key::PublicKeyPacket;

/// A version 6 key fingerprint: SHA2-256 over `0x9B ‖ length (4 octets) ‖ key packet body`.
///
/// Displayed as 64 upper-case hex digits, as SOP prints it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint([u8; 32]);

/// A version 6 key ID: the first eight octets of the fingerprint.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId([u8; 8]);

impl Fingerprint {
    /// Computes the fingerprint of a key packet body.
    pub(super) fn of(key: &PublicKeyPacket) -> Self {
        Self(hash::sha256(&key_hash_input(key)))
    }

    /// Wraps 32 fingerprint octets.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// The fingerprint octets.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The key ID derived from this fingerprint.
    #[must_use]
    pub fn key_id(&self) -> KeyId {
        let mut id = [0u8; 8];
        id.copy_from_slice(self.0.first_chunk::<8>().map_or(&[0u8; 8][..], |c| &c[..]));
        KeyId(id)
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

impl KeyId {
    /// The key ID octets.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 8] {
        &self.0
    }
}

fn write_hex(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    for b in bytes {
        write!(f, "{b:02X}")?;
    }
    Ok(())
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0)
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Fingerprint(")?;
        write_hex(f, &self.0)?;
        f.write_str(")")
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0)
    }
}

impl fmt::Debug for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyId(")?;
        write_hex(f, &self.0)?;
        f.write_str(")")
    }
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
        Ok(Self(out))
    }
}
