//! Signature packets, version 6 (RFC 9580 §5.2).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2>

use crate::crypto::{HashAlgorithm, PublicKeyAlgorithm};
use crate::packet::subpacket::Subpacket;

/// ML-DSA-65 signature size.
pub(crate) const MLDSA65_SIGNATURE_LEN: usize = 3309;

/// Signature types (RFC 9580 §5.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SignatureType {
    /// Binary document (0x00).
    Binary,
    /// Canonical text document (0x01).
    Text,
    /// Standalone (0x02).
    Standalone,
    /// Generic certification of a user ID (0x10).
    GenericCertification,
    /// Persona certification (0x11).
    PersonaCertification,
    /// Casual certification (0x12).
    CasualCertification,
    /// Positive certification (0x13).
    PositiveCertification,
    /// Subkey binding (0x18).
    SubkeyBinding,
    /// Primary key binding, the back-signature of a signing subkey (0x19).
    PrimaryKeyBinding,
    /// Direct key (0x1F).
    DirectKey,
    /// Key revocation (0x20).
    KeyRevocation,
    /// Subkey revocation (0x28).
    SubkeyRevocation,
    /// Certification revocation (0x30).
    CertificationRevocation,
    /// Timestamp (0x40).
    Timestamp,
    /// Third-party confirmation (0x50).
    ThirdPartyConfirmation,
    /// Any other type.
    Unknown(u8),
}

/// A v6 signature packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SignaturePacket {
    pub(crate) sig_type: SignatureType,
    pub(crate) pk_algorithm: PublicKeyAlgorithm,
    pub(crate) hash_algorithm: HashAlgorithm,
    pub(crate) hashed: Vec<Subpacket>,
    pub(crate) unhashed: Vec<Subpacket>,
    /// The left 16 bits of the signed hash value.
    pub(crate) left16: [u8; 2],
    pub(crate) salt: Vec<u8>,
    pub(crate) material: SignatureMaterial,
}

/// Algorithm-specific signature material.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SignatureMaterial {
    Ed25519([u8; 64]),
    MlDsa65Ed25519 { ed25519: [u8; 64], mldsa: Box<[u8; MLDSA65_SIGNATURE_LEN]> },
    /// Material of an algorithm this crate does not implement, kept verbatim.
    Unknown(Vec<u8>),
}
