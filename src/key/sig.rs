//! Signatures over keys and user IDs (RFC 9580 §5.2.4): what they hash, making and checking
//! them, and the cache of verification outcomes a certificate keeps.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.4>

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use crate::crypto::hash::Hasher;
use crate::crypto::rng::Rng;
use crate::error::{Error, Result};
use crate::key::fingerprint::key_hash_input;
use crate::packet::key::{PublicKeyPacket, SecretKeyMaterial};
use crate::packet::signature::{SignatureMaterial, SignaturePacket, SignatureType};
use crate::packet::subpacket::Subpacket;
use crate::signature::{default_hash, finish_hash, make, start_hash, verify_digest};
use crate::types::HashAlgorithm;

/// What a self- or third-party signature over keys and user IDs covers.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Signed<'a> {
    /// Direct-key signatures and key revocations: the primary key.
    Key(&'a PublicKeyPacket),
    /// Certifications and certification revocations: the primary key and a user ID.
    UserId(&'a PublicKeyPacket, &'a [u8]),
    /// Subkey bindings, subkey revocations and primary-key bindings: primary then subkey.
    Subkey(&'a PublicKeyPacket, &'a PublicKeyPacket),
}

impl Signed<'_> {
    /// Feeds the hash input for this target (RFC 9580 §5.2.4).
    fn hash_into(&self, h: &mut Hasher) {
        match self {
            Self::Key(k) => h.update(&key_hash_input(k)),
            Self::UserId(k, uid) => {
                h.update(&key_hash_input(k));
                // 0xB4 ‖ 4-octet length ‖ User ID octets.
                h.update(&[0xb4]);
                h.update(&u32::try_from(uid.len()).unwrap_or(u32::MAX).to_be_bytes());
                h.update(uid);
            }
            Self::Subkey(primary, sub) => {
                h.update(&key_hash_input(primary));
                h.update(&key_hash_input(sub));
            }
        }
    }
}

/// The digest a signature over keys or user IDs signs.
fn digest_for(sig: &SignaturePacket, signed: Signed<'_>) -> Result<Vec<u8>> {
    let mut h = start_hash(sig.hash_algorithm, &sig.salt)?;
    signed.hash_into(&mut h);
    Ok(finish_hash(h, sig))
}

/// Verifies a signature over keys or user IDs.
pub(super) fn verify(key: &PublicKeyPacket, sig: &SignaturePacket, signed: Signed<'_>) -> Result<()> {
    if sig.has_unknown_critical() {
        return Err(Error::BadSignature("unknown critical subpacket"));
    }
    let digest = digest_for(sig, signed)?;
    verify_digest(key, sig, &digest)
}

/// The largest number of outcomes a [`VerifyCache`] keeps; past it, verifications are simply
/// not remembered (a certificate's signatures are bounded by `Limits`, so this is only reached
/// by a certificate mutated many times).
const VERIFY_CACHE_ENTRIES: usize = 4096;

/// Outcomes of signature verifications already done, so that evaluating a certificate several
/// times (for each recipient, for flags and then for preferences, ...) checks each
/// self-signature's cryptography once.
///
/// An entry is keyed by a SHA2-256 over everything [`verify_digest`] reads: the signer's key
/// (as hashed for fingerprints), the signature's algorithm, its left 16 bits and material, and
/// the digest, which itself covers the salt, the signed keys or user ID and the hashed
/// subpackets. So the cache is content-addressed: an entry can only answer for exactly the
/// same (key, signed data, signature) it was computed from, and changing a certificate in any
/// way (merging, updating, editing a field) cannot make a stale entry apply to a different
/// signature. Nothing needs invalidating, and copying entries between certificates is sound.
///
/// It is not part of the certificate's value: every cache compares equal. Clones share one
/// cache, so that what a copy learns (a key passed by reference is copied into each signer
/// and decryptor) is not lost with the copy. Entries are public: hashes and outcomes.
#[derive(Default)]
pub(super) struct VerifyCache(Arc<Mutex<HashMap<[u8; 32], bool>>>);

impl VerifyCache {
    fn get(&self, id: &[u8; 32]) -> Option<bool> {
        // A poisoned lock (a panic elsewhere while holding it) only means no caching.
        self.0.lock().ok().and_then(|m| m.get(id).copied())
    }

    fn insert(&self, id: [u8; 32], ok: bool) {
        if let Ok(mut m) = self.0.lock()
            && m.len() < VERIFY_CACHE_ENTRIES
        {
            let _ = m.insert(id, ok);
        }
    }

    fn entries(&self) -> HashMap<[u8; 32], bool> {
        self.0.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// Adds the entries of `other` (sound because entries are content-addressed).
    pub(super) fn absorb(&self, other: &Self) {
        if Arc::ptr_eq(&self.0, &other.0) {
            return;
        }
        let theirs = other.entries();
        if let Ok(mut m) = self.0.lock() {
            for (id, ok) in theirs {
                if m.len() >= VERIFY_CACHE_ENTRIES {
                    break;
                }
                let _ = m.insert(id, ok);
            }
        }
    }

    /// The number of remembered outcomes.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.lock().map(|m| m.len()).unwrap_or(0)
    }
}

impl Clone for VerifyCache {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl PartialEq for VerifyCache {
    /// A cache is not part of a certificate's value.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for VerifyCache {}

impl fmt::Debug for VerifyCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerifyCache").finish_non_exhaustive()
    }
}

/// The cache key of [`VerifyCache`]: SHA2-256 over every input of [`verify_digest`], each
/// length-prefixed or of fixed length, so that distinct inputs give distinct encodings.
fn outcome_id(key: &PublicKeyPacket, sig: &SignaturePacket, digest: &[u8]) -> Result<[u8; 32]> {
    let mut h = Hasher::new(HashAlgorithm::Sha256)?;
    h.update(&key_hash_input(key));
    h.update(&[u8::from(sig.pk_algorithm)]);
    h.update(&sig.left16);
    h.update(&u32::try_from(digest.len()).unwrap_or(u32::MAX).to_be_bytes());
    h.update(digest);
    match &sig.material {
        SignatureMaterial::Ed25519(s) => {
            h.update(&[1]);
            h.update(s);
        }
        SignatureMaterial::MlDsa65Ed25519 { ed25519, mldsa } => {
            h.update(&[2]);
            h.update(ed25519);
            h.update(mldsa.as_slice());
        }
        SignatureMaterial::Unknown(bytes) => {
            h.update(&[3]);
            h.update(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_be_bytes());
            h.update(bytes);
        }
    }
    <[u8; 32]>::try_from(h.finish()).map_err(|_| Error::Internal("SHA2-256 output length"))
}

/// Does `sig` verify over `signed` with `key`? As [`verify`], but remembering the outcome of
/// the public-key operation in `cache` (see [`VerifyCache`] for why that is sound).
pub(super) fn verifies_cached(
    cache: &VerifyCache,
    key: &PublicKeyPacket,
    sig: &SignaturePacket,
    signed: Signed<'_>,
) -> bool {
    if sig.has_unknown_critical() {
        return false;
    }
    let Ok(digest) = digest_for(sig, signed) else {
        return false;
    };
    let Ok(id) = outcome_id(key, sig, &digest) else {
        return verify_digest(key, sig, &digest).is_ok();
    };
    if let Some(ok) = cache.get(&id) {
        return ok;
    }
    let ok = verify_digest(key, sig, &digest).is_ok();
    cache.insert(id, ok);
    ok
}

/// Makes a signature over keys or user IDs.
pub(crate) fn make_over(
    key: &PublicKeyPacket,
    secret: &SecretKeyMaterial,
    sig_type: SignatureType,
    hashed: Vec<Subpacket>,
    signed: Signed<'_>,
    rng: &mut Rng,
) -> Result<SignaturePacket> {
    let hash = default_hash(key.algorithm);
    make(key, secret, sig_type, hash, hashed, rng, |h| signed.hash_into(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Cert;

    fn a03() -> Cert {
        Cert::from_bytes(include_bytes!("../../tests/data/a03-v6-certificate.asc")).unwrap()
    }

    fn json() -> serde_json::Value {
        serde_json::from_slice(include_bytes!("../../tests/data/a03-v6-certificate.json")).unwrap()
    }

    /// The digest is SHA2-512 over exactly the hashed data stream RFC 9580 A.3.1 prints.
    #[test]
    fn a03_hashed_data_streams_are_reproduced() {
        let cert = a03();
        let v = json();
        let direct = &cert.primary_sigs[0];
        let expect = hex::decode(v["direct_key_signature_hashed_data"].as_str().unwrap()).unwrap();
        let mut h = Hasher::new(HashAlgorithm::Sha512).unwrap();
        h.update(&expect);
        assert_eq!(digest_for(direct, Signed::Key(&cert.primary)).unwrap(), h.finish());

        let sub = &cert.subkeys[0];
        let expect = hex::decode(v["subkey_binding_signature_hashed_data"].as_str().unwrap()).unwrap();
        let mut h = Hasher::new(HashAlgorithm::Sha512).unwrap();
        h.update(&expect);
        assert_eq!(digest_for(&sub.sigs[0], Signed::Subkey(&cert.primary, &sub.key)).unwrap(), h.finish());
    }

    #[test]
    fn a03_signatures_verify_and_tampering_is_detected() {
        let cert = a03();
        let direct = &cert.primary_sigs[0];
        verify(&cert.primary, direct, Signed::Key(&cert.primary)).unwrap();
        let sub = &cert.subkeys[0];
        verify(&cert.primary, &sub.sigs[0], Signed::Subkey(&cert.primary, &sub.key)).unwrap();
        // The direct-key signature does not verify as a subkey binding, nor with a flipped salt.
        assert!(verify(&cert.primary, direct, Signed::Subkey(&cert.primary, &sub.key)).is_err());
        let mut bad = direct.clone();
        bad.salt[0] ^= 1;
        assert!(matches!(
            verify(&cert.primary, &bad, Signed::Key(&cert.primary)),
            Err(Error::BadSignature(_))
        ));
        // A subkey cannot verify the primary's signature.
        assert!(verify(&sub.key, direct, Signed::Key(&cert.primary)).is_err());
    }
}
