//! Computing, making and checking v6 signatures (RFC 9580 §5.2.4).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.4>

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use crate::crypto::hash::Hasher;
use crate::crypto::rng::Rng;
use crate::crypto::{HashAlgorithm, PublicKeyAlgorithm, ed25519, mldsa_ed25519};
use crate::error::{Error, Result, Unsupported};
use crate::key::fingerprint::key_hash_input;
use crate::packet::key::{PublicKeyMaterial, PublicKeyPacket, SecretKeyMaterial};
use crate::packet::signature::{SignatureMaterial, SignaturePacket, SignatureType};
use crate::packet::subpacket::{Subpacket, SubpacketData};

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

/// Starts a v6 signature hash: the salt comes first (RFC 9580 §5.2.4).
pub(crate) fn start_hash(hash: HashAlgorithm, salt: &[u8]) -> Result<Hasher> {
    let mut h = Hasher::new(hash)?;
    h.update(salt);
    Ok(h)
}

/// Finishes a v6 signature hash: the hashed part of the signature packet, then the trailer
/// `0x06 0xFF ‖ 4-octet length of that hashed part`.
pub(crate) fn finish_hash(mut h: Hasher, sig: &SignaturePacket) -> Vec<u8> {
    let prefix = sig.hashed_prefix();
    h.update(&prefix);
    h.update(&[0x06, 0xff]);
    h.update(&u32::try_from(prefix.len()).unwrap_or(u32::MAX).to_be_bytes());
    h.finish()
}

/// The digest a signature over keys or user IDs signs.
pub(crate) fn digest_for(sig: &SignaturePacket, signed: Signed<'_>) -> Result<Vec<u8>> {
    let mut h = start_hash(sig.hash_algorithm, &sig.salt)?;
    signed.hash_into(&mut h);
    Ok(finish_hash(h, sig))
}

/// Checks a signature's cryptography over `digest` with `key`. Does not look at times or types.
pub(crate) fn verify_digest(key: &PublicKeyPacket, sig: &SignaturePacket, digest: &[u8]) -> Result<()> {
    if key.algorithm != sig.pk_algorithm {
        return Err(Error::BadSignature("signature algorithm does not match the key"));
    }
    // Hybrid signatures need a digest of at least 256 bits (RFC 9980); we require it of all.
    if digest.len() < 32 {
        return Err(Error::BadSignature("hash algorithm too weak"));
    }
    if digest.get(..2) != Some(&sig.left16[..]) {
        return Err(Error::BadSignature("hash prefix mismatch"));
    }
    match (&key.material, &sig.material) {
        (PublicKeyMaterial::Ed25519(public), SignatureMaterial::Ed25519(s)) => {
            ed25519::verify(public, digest, s)
        }
        (
            PublicKeyMaterial::MlDsa65Ed25519 { ed25519: ed_pub, mldsa: ml_pub },
            SignatureMaterial::MlDsa65Ed25519 { ed25519: ed_sig, mldsa: ml_sig },
        ) => mldsa_ed25519::verify(ed_pub, ml_pub, digest, ed_sig, ml_sig),
        (PublicKeyMaterial::Unknown(_), _) | (_, SignatureMaterial::Unknown(_)) => {
            Err(Error::Unsupported(Unsupported::PublicKeyAlgorithm(u8::from(sig.pk_algorithm))))
        }
        _ => Err(Error::BadSignature("key cannot make signatures")),
    }
}

/// Verifies a signature over keys or user IDs.
pub(crate) fn verify(key: &PublicKeyPacket, sig: &SignaturePacket, signed: Signed<'_>) -> Result<()> {
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
/// It is not part of the certificate's value: every cache compares equal, and a clone starts
/// with a copy of the entries.
#[derive(Default)]
pub(crate) struct VerifyCache(Mutex<HashMap<[u8; 32], bool>>);

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
    pub(crate) fn absorb(&self, other: &Self) {
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
    pub(crate) fn len(&self) -> usize {
        self.0.lock().map(|m| m.len()).unwrap_or(0)
    }
}

impl Clone for VerifyCache {
    fn clone(&self) -> Self {
        Self(Mutex::new(self.entries()))
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
    <[u8; 32]>::try_from(h.finish()).map_err(|_| Error::InvalidArgument("SHA2-256 output length"))
}

/// Does `sig` verify over `signed` with `key`? As [`verify`], but remembering the outcome of
/// the public-key operation in `cache` (see [`VerifyCache`] for why that is sound).
pub(crate) fn verifies_cached(
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

/// The hash algorithm this crate uses for its own signatures with a key of `algorithm`.
///
/// Ed25519: SHA2-256. Its 128-bit collision resistance matches Ed25519's security level (RFC
/// 9580 asks for a digest of at least 256 bits with Ed25519), and CPUs with SHA extensions
/// (most recent x86-64, ARMv8) hash it several times faster than SHA2-512; hashing is most of
/// the cost of signing or verifying a large message. ML-DSA-65+Ed25519 (NIST category 3) keeps
/// SHA2-512, whose collision resistance is not below the composite's level. Verification
/// accepts any hash of at least 256 bits either way.
pub(crate) fn default_hash(algorithm: PublicKeyAlgorithm) -> HashAlgorithm {
    match algorithm {
        PublicKeyAlgorithm::Ed25519 => HashAlgorithm::Sha256,
        _ => HashAlgorithm::Sha512,
    }
}

/// Makes a v6 signature with `hashed` subpackets (creation time and issuer fingerprint must
/// already be among them) over a hash that `feed` fills after the salt.
pub(crate) fn make(
    key: &PublicKeyPacket,
    secret: &SecretKeyMaterial,
    sig_type: SignatureType,
    hash: HashAlgorithm,
    hashed: Vec<Subpacket>,
    rng: &mut Rng,
    feed: impl FnOnce(&mut Hasher),
) -> Result<SignaturePacket> {
    let salt_len =
        hash.v6_salt_len().ok_or(Error::Unsupported(Unsupported::HashAlgorithm(u8::from(hash))))?;
    let mut salt = vec![0u8; salt_len];
    rng.fill(&mut salt)?;
    let mut sig = SignaturePacket {
        sig_type,
        pk_algorithm: key.algorithm,
        hash_algorithm: hash,
        hashed,
        unhashed: Vec::new(),
        left16: [0; 2],
        salt,
        material: SignatureMaterial::Unknown(Vec::new()),
    };
    let mut h = start_hash(hash, &sig.salt)?;
    feed(&mut h);
    sign_hashed(&mut sig, secret, h, rng)?;
    Ok(sig)
}

/// Completes `sig`, whose type, algorithms, salt and hashed subpackets are set, over `h`, a
/// hash that already holds the salt and the signed data: adds the trailer, then sets the left
/// 16 bits and the signature material.
///
/// # Errors
/// `KeyUnusable` if `secret` cannot make signatures; RNG errors (ML-DSA's hedged signing).
pub(crate) fn sign_hashed(
    sig: &mut SignaturePacket,
    secret: &SecretKeyMaterial,
    h: Hasher,
    rng: &mut Rng,
) -> Result<()> {
    let digest = finish_hash(h, sig);
    if let Some(prefix) = digest.first_chunk::<2>() {
        sig.left16 = *prefix;
    }
    sig.material = match secret {
        SecretKeyMaterial::Ed25519(sk) => SignatureMaterial::Ed25519(ed25519::sign(sk, &digest)),
        SecretKeyMaterial::MlDsa65Ed25519 { ed25519: ed, mldsa_seed } => {
            let (ed_sig, ml_sig) = mldsa_ed25519::sign(ed, mldsa_seed, &digest, rng)?;
            SignatureMaterial::MlDsa65Ed25519 { ed25519: ed_sig, mldsa: ml_sig }
        }
        _ => return Err(Error::InvalidArgument("key algorithm cannot make signatures")),
    };
    Ok(())
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

/// A hashed subpacket, not critical.
pub(crate) fn sub(data: SubpacketData) -> Subpacket {
    Subpacket::new(false, data)
}

/// A hashed subpacket marked critical.
pub(crate) fn critical(data: SubpacketData) -> Subpacket {
    Subpacket::new(true, data)
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
