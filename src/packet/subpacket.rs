//! Signature subpackets (RFC 9580 §5.2.3.7 onwards).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.7>

use crate::packet::signature::SignaturePacket;

/// One signature subpacket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Subpacket {
    pub(crate) critical: bool,
    pub(crate) data: SubpacketData,
}

/// The subpackets a v6 certificate or message signature uses; anything else is `Unknown`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SubpacketData {
    /// 2: seconds since the epoch.
    SignatureCreationTime(u32),
    /// 3: seconds after creation; 0 = never.
    SignatureExpirationTime(u32),
    /// 9: seconds after key creation; 0 = never.
    KeyExpirationTime(u32),
    /// 11.
    PreferredSymmetric(Vec<u8>),
    /// 21.
    PreferredHash(Vec<u8>),
    /// 25.
    PrimaryUserId(bool),
    /// 27: the flag octets as found.
    KeyFlags(Vec<u8>),
    /// 29.
    ReasonForRevocation { code: u8, reason: Vec<u8> },
    /// 30: the feature octets as found.
    Features(Vec<u8>),
    /// 32.
    EmbeddedSignature(Box<SignaturePacket>),
    /// 33: key version and fingerprint.
    IssuerFingerprint { version: u8, fingerprint: Vec<u8> },
    /// 39: (symmetric, AEAD) pairs.
    PreferredAead(Vec<(u8, u8)>),
    /// Any other subpacket, kept with its type and body.
    Unknown { tag: u8, body: Vec<u8> },
}
