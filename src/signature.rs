//! v6 signatures over any signed content (RFC 9580 §5.2): the salted hash and its trailer,
//! making and checking a signature over a digest, the hashed subpackets every signature this
//! crate makes starts with, and document signature modes with their hashing.
//!
//! What a signature over keys and user IDs hashes, and the verification cache of certificates,
//! are in `key::sig`; the signing and verifying streams are in `message`.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.4>
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use crate::crypto::hash::Hasher;
use crate::crypto::rng::Rng;
use crate::crypto::{ed25519, mldsa_ed25519};
use crate::error::{Error, Result, Unsupported};
use crate::packet::key::{PublicKeyMaterial, PublicKeyPacket, SecretKeyMaterial};
use crate::packet::literal::DataFormat;
use crate::packet::signature::{SignatureMaterial, SignaturePacket, SignatureType};
use crate::packet::subpacket::{Subpacket, SubpacketData};
use crate::types::{HashAlgorithm, PublicKeyAlgorithm};

/// How a document signature hashes its data.
///
/// [`SignatureMode::Text`] signs the canonical form of the text: every line ending (LF or
/// CR LF) is hashed as CR LF, so that the signature survives line-ending conversion
/// ([RFC 9580 §5.2.1.2](https://www.rfc-editor.org/rfc/rfc9580#section-5.2.1.2)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SignatureMode {
    /// Signature type 0x00: the octets as they are.
    #[default]
    Binary,
    /// Signature type 0x01: canonical text with CR LF line endings.
    Text,
}

impl SignatureMode {
    /// The type of a document signature in this mode.
    pub(crate) fn signature_type(self) -> SignatureType {
        match self {
            Self::Binary => SignatureType::Binary,
            Self::Text => SignatureType::Text,
        }
    }

    /// The mode of a document signature type; `None` for the other types.
    pub(crate) fn from_signature_type(sig_type: SignatureType) -> Option<Self> {
        match sig_type {
            SignatureType::Binary => Some(Self::Binary),
            SignatureType::Text => Some(Self::Text),
            _ => None,
        }
    }

    /// The format of the Literal Data packet an inline-signed message of this mode carries.
    pub(crate) fn literal_format(self) -> DataFormat {
        match self {
            Self::Binary => DataFormat::Binary,
            Self::Text => DataFormat::Utf8,
        }
    }

    /// The mode that signs literal data of `format`: text for `u` and `t`, binary otherwise.
    pub(crate) fn from_literal_format(format: DataFormat) -> Self {
        match format {
            DataFormat::Utf8 | DataFormat::Text => Self::Text,
            _ => Self::Binary,
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

/// The hash algorithm this crate uses for its own signatures with a key of `algorithm`.
///
/// Ed25519: SHA2-256. Its 128-bit collision resistance matches Ed25519's security level (RFC
/// 9580 asks for a digest of at least 256 bits with Ed25519), and CPUs with SHA extensions
/// (most recent x86-64, ARMv8) hash it much faster than SHA2-512; hashing is most of
/// the cost of signing or verifying a large message. ML-DSA-65+Ed25519 (NIST category 3) keeps
/// SHA2-512, whose collision resistance is not below the composite's level. Verification
/// accepts any hash of at least 256 bits either way.
pub(crate) fn default_hash(algorithm: PublicKeyAlgorithm) -> HashAlgorithm {
    match algorithm {
        PublicKeyAlgorithm::Ed25519 => HashAlgorithm::Sha256,
        _ => HashAlgorithm::Sha512,
    }
}

/// The hashed subpackets every signature this crate makes starts with: the creation time
/// (critical, so that no reader ignores it) and the v6 fingerprint of the issuing key
/// (RFC 9580 §5.2.3.11, §5.2.3.35).
pub(crate) fn base_subpackets(issuer: &[u8; 32], created: u32) -> Vec<Subpacket> {
    vec![
        critical(SubpacketData::SignatureCreationTime(created)),
        sub(SubpacketData::IssuerFingerprint { version: 6, fingerprint: issuer.to_vec() }),
    ]
}

/// A hashed subpacket, not critical.
pub(crate) fn sub(data: SubpacketData) -> Subpacket {
    Subpacket::new(false, data)
}

/// A hashed subpacket marked critical.
pub(crate) fn critical(data: SubpacketData) -> Subpacket {
    Subpacket::new(true, data)
}

/// A v6 signature of `sig_type` by a key of `pk_algorithm` over `hash`, with a salt drawn from
/// `rng` and the `hashed` subpackets, waiting for [`sign_hashed`] to set its left 16 bits and
/// material.
///
/// # Errors
/// `Unsupported(HashAlgorithm)` for a hash without a v6 salt size; RNG errors.
pub(crate) fn unsigned(
    pk_algorithm: PublicKeyAlgorithm,
    sig_type: SignatureType,
    hash: HashAlgorithm,
    hashed: Vec<Subpacket>,
    rng: &mut Rng,
) -> Result<SignaturePacket> {
    let salt_len =
        hash.v6_salt_len().ok_or(Error::Unsupported(Unsupported::HashAlgorithm(u8::from(hash))))?;
    let mut salt = vec![0u8; salt_len];
    rng.fill(&mut salt)?;
    Ok(SignaturePacket {
        sig_type,
        pk_algorithm,
        hash_algorithm: hash,
        hashed,
        unhashed: Vec::new(),
        left16: [0; 2],
        salt,
        material: SignatureMaterial::Unknown(Vec::new()),
    })
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
    let mut sig = unsigned(key.algorithm, sig_type, hash, hashed, rng)?;
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
/// `InvalidArgument` if `secret` cannot make signatures; RNG errors (ML-DSA's hedged signing).
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

/// A v6 signature hash over a document: salt first, then the data (canonicalized in text mode).
#[derive(Debug, Clone)]
pub(crate) struct DataHasher {
    hasher: Hasher,
    text: bool,
    /// The last octet fed was CR (text mode), so an LF that follows is already canonical.
    after_cr: bool,
}

impl DataHasher {
    /// Starts a hash of `algorithm` with the v6 `salt`.
    ///
    /// # Errors
    /// `Unsupported(HashAlgorithm)` for an algorithm this crate does not implement.
    pub(crate) fn new(algorithm: HashAlgorithm, salt: &[u8], mode: SignatureMode) -> Result<Self> {
        Ok(Self { hasher: start_hash(algorithm, salt)?, text: mode == SignatureMode::Text, after_cr: false })
    }

    /// Hashes more document data.
    pub(crate) fn update(&mut self, data: &[u8]) {
        if !self.text {
            self.hasher.update(data);
            return;
        }
        // Canonical text: an LF not preceded by CR becomes CR LF; everything else is kept.
        let mut rest = data;
        while let Some(lf) = rest.iter().position(|&b| b == b'\n') {
            let (line, tail) = rest.split_at(lf);
            let cr_before = match line.last() {
                Some(&b) => b == b'\r',
                None => self.after_cr,
            };
            self.hasher.update(line);
            self.hasher.update(if cr_before { b"\n" } else { b"\r\n" });
            self.after_cr = false;
            rest = tail.get(1..).unwrap_or_default();
        }
        if let Some(&last) = rest.last() {
            self.after_cr = last == b'\r';
        }
        self.hasher.update(rest);
    }

    /// The hash state, ready for the signature trailer.
    pub(crate) fn into_hasher(self) -> Hasher {
        self.hasher
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(mode: SignatureMode, pieces: &[&[u8]]) -> Vec<u8> {
        let mut h = DataHasher::new(HashAlgorithm::Sha256, b"", mode).unwrap();
        for p in pieces {
            h.update(p);
        }
        h.into_hasher().finish()
    }

    fn plain(data: &[u8]) -> Vec<u8> {
        digest(SignatureMode::Binary, &[data])
    }

    #[test]
    fn text_is_canonicalized_across_any_split() {
        let input = b"a\nb\r\n\r\nc\rd\n\n-e";
        let canonical = b"a\r\nb\r\n\r\nc\rd\r\n\r\n-e";
        assert_eq!(plain(canonical), digest(SignatureMode::Text, &[input]));
        for cut in 0..input.len() {
            let (x, y) = input.split_at(cut);
            assert_eq!(digest(SignatureMode::Text, &[x, y]), plain(canonical), "cut {cut}");
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(digest(SignatureMode::Text, &bytes), plain(canonical));
        assert_eq!(digest(SignatureMode::Binary, &bytes), plain(input));
    }

    #[test]
    fn modes_map_to_types_and_formats_and_back() {
        for mode in [SignatureMode::Binary, SignatureMode::Text] {
            assert_eq!(SignatureMode::from_signature_type(mode.signature_type()), Some(mode));
            assert_eq!(SignatureMode::from_literal_format(mode.literal_format()), mode);
        }
        assert_eq!(SignatureMode::Text.signature_type(), SignatureType::Text);
        assert_eq!(SignatureMode::Binary.literal_format(), DataFormat::Binary);
        assert_eq!(SignatureMode::from_literal_format(DataFormat::Text), SignatureMode::Text);
        assert_eq!(SignatureMode::from_literal_format(DataFormat::Unknown(b'm')), SignatureMode::Binary);
        assert_eq!(SignatureMode::from_signature_type(SignatureType::Standalone), None);
    }
}
