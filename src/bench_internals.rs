//! The per-chunk AEAD of SEIPDv2, for `benches/aead.rs` (feature `bench-internals`). Not part
//! of the stable API.
//!
//! The message-level benchmarks (`benches/throughput.rs`) include copying the plaintext into
//! chunk buffers, framing and the key agreement; this measures what `openssl speed -evp`
//! measures, one in-place AEAD call on a buffer.

use crate::crypto::aead;
use crate::crypto::aead_backend::TAG_LEN;
use crate::{AeadAlgorithm, Result, SymmetricAlgorithm};

/// One keyed AEAD, as a SEIPDv2 message uses it for each chunk.
#[derive(Debug)]
pub struct KeyedAead(aead::KeyedAead);

impl KeyedAead {
    /// Keys `aead` over `sym` with `key`.
    ///
    /// # Errors
    /// `Unsupported` for a cipher or mode this crate lacks; `InvalidArgument` for a key of the
    /// wrong length.
    pub fn new(sym: SymmetricAlgorithm, aead: AeadAlgorithm, key: &[u8]) -> Result<Self> {
        aead::KeyedAead::new(sym, aead, key).map(Self)
    }

    /// Encrypts `buf` in place; returns the tag.
    ///
    /// # Errors
    /// `InvalidArgument` for a nonce of the wrong length.
    pub fn seal(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
        self.0.seal(nonce, ad, buf)
    }

    /// Checks `tag` and decrypts `buf` in place.
    ///
    /// # Errors
    /// `Decrypt` if the tag does not verify.
    pub fn open(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
        self.0.open(nonce, ad, buf, tag)
    }
}
