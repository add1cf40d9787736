//! Public-Key, Public-Subkey, Secret-Key and Secret-Subkey packets, version 6
//! (RFC 9580 §5.5).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.5>

use crate::crypto::secret::{Curve25519Secret, MlDsaSeed, MlKemSeed};
use crate::crypto::{AeadAlgorithm, PublicKeyAlgorithm, SymmetricAlgorithm};
use crate::packet::s2k::S2k;

/// ML-KEM-768 encapsulation key size.
pub(crate) const MLKEM768_PUBLIC_LEN: usize = 1184;
/// ML-DSA-65 verifying key size.
pub(crate) const MLDSA65_PUBLIC_LEN: usize = 1952;

/// The body of a v6 public key or public subkey packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PublicKeyPacket {
    /// Seconds since the epoch.
    pub(crate) creation_time: u32,
    pub(crate) algorithm: PublicKeyAlgorithm,
    pub(crate) material: PublicKeyMaterial,
}

/// Algorithm-specific public key material (RFC 9580 §5.5.5, RFC 9980).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PublicKeyMaterial {
    X25519([u8; 32]),
    Ed25519([u8; 32]),
    MlDsa65Ed25519 { ed25519: [u8; 32], mldsa: Box<[u8; MLDSA65_PUBLIC_LEN]> },
    MlKem768X25519 { x25519: [u8; 32], mlkem: Box<[u8; MLKEM768_PUBLIC_LEN]> },
    /// Key material of an algorithm this crate does not implement, kept verbatim.
    Unknown(Vec<u8>),
}

/// The body of a v6 secret key or secret subkey packet.
#[derive(Debug)]
pub(crate) struct SecretKeyPacket {
    pub(crate) public: PublicKeyPacket,
    pub(crate) secret: SecretKeyData,
}

/// The secret part of a secret key packet.
#[derive(Debug)]
pub(crate) enum SecretKeyData {
    /// S2K usage 0: the material in the clear (v6 has no checksum).
    Plain(SecretKeyMaterial),
    /// S2K usage 253 (AEAD) or 254 (CFB): protected by a password.
    Encrypted(EncryptedSecret),
}

/// Password-protected secret key material (RFC 9580 §3.7.2.1, §5.5.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EncryptedSecret {
    /// The S2K usage octet: 253 (AEAD) or 254 (CFB, kept for round-trip only).
    pub(crate) usage: u8,
    pub(crate) symmetric: SymmetricAlgorithm,
    /// Present when `usage == 253`.
    pub(crate) aead: Option<AeadAlgorithm>,
    pub(crate) s2k: S2k,
    /// The AEAD nonce (usage 253) or CFB IV (usage 254).
    pub(crate) iv: Vec<u8>,
    /// The encrypted material, including the AEAD tag.
    pub(crate) ciphertext: Vec<u8>,
}

/// Algorithm-specific secret key material.
#[derive(Debug)]
pub(crate) enum SecretKeyMaterial {
    X25519(Curve25519Secret),
    Ed25519(Curve25519Secret),
    MlDsa65Ed25519 { ed25519: Curve25519Secret, mldsa_seed: MlDsaSeed },
    MlKem768X25519 { x25519: Curve25519Secret, mlkem_seed: MlKemSeed },
}
