//! Signature packets, version 6 (RFC 9580 §5.2).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2>

use std::io::{self, Write};

use crate::error::{Error, Result, Unsupported};
use crate::limits::Limits;
use crate::packet::header::Tag;
use crate::packet::key::write_u32_len;
use crate::packet::reader::Reader;
use crate::packet::subpacket::{Subpacket, SubpacketData, area_len, parse_area, write_area};
use crate::packet::{PacketBody, Serialize};
use crate::types::{HashAlgorithm, PublicKeyAlgorithm};

/// ML-DSA-65 signature size.
const MLDSA65_SIGNATURE_LEN: usize = 3309;
/// Ed25519 signature size.
const ED25519_SIGNATURE_LEN: usize = 64;
/// The only signature packet version this crate implements.
const SIGNATURE_VERSION: u8 = 6;
/// The signature version of v4 keys, read but never verified (see [`SignatureV4`]).
const SIGNATURE_VERSION_4: u8 = 4;
/// Issuer Key ID subpacket type (RFC 9580 §5.2.3.12).
const ISSUER_KEY_ID: u8 = 16;

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

impl From<u8> for SignatureType {
    fn from(v: u8) -> Self {
        match v {
            0x00 => Self::Binary,
            0x01 => Self::Text,
            0x02 => Self::Standalone,
            0x10 => Self::GenericCertification,
            0x11 => Self::PersonaCertification,
            0x12 => Self::CasualCertification,
            0x13 => Self::PositiveCertification,
            0x18 => Self::SubkeyBinding,
            0x19 => Self::PrimaryKeyBinding,
            0x1f => Self::DirectKey,
            0x20 => Self::KeyRevocation,
            0x28 => Self::SubkeyRevocation,
            0x30 => Self::CertificationRevocation,
            0x40 => Self::Timestamp,
            0x50 => Self::ThirdPartyConfirmation,
            other => Self::Unknown(other),
        }
    }
}

impl From<SignatureType> for u8 {
    fn from(t: SignatureType) -> u8 {
        match t {
            SignatureType::Binary => 0x00,
            SignatureType::Text => 0x01,
            SignatureType::Standalone => 0x02,
            SignatureType::GenericCertification => 0x10,
            SignatureType::PersonaCertification => 0x11,
            SignatureType::CasualCertification => 0x12,
            SignatureType::PositiveCertification => 0x13,
            SignatureType::SubkeyBinding => 0x18,
            SignatureType::PrimaryKeyBinding => 0x19,
            SignatureType::DirectKey => 0x1f,
            SignatureType::KeyRevocation => 0x20,
            SignatureType::SubkeyRevocation => 0x28,
            SignatureType::CertificationRevocation => 0x30,
            SignatureType::Timestamp => 0x40,
            SignatureType::ThirdPartyConfirmation => 0x50,
            SignatureType::Unknown(other) => other,
        }
    }
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
    MlDsa65Ed25519 {
        ed25519: [u8; 64],
        mldsa: Box<[u8; MLDSA65_SIGNATURE_LEN]>,
    },
    /// Material of an algorithm this crate does not implement, kept verbatim.
    Unknown(Vec<u8>),
}

impl SignatureMaterial {
    /// Parses exactly `bytes` as signature material of `algorithm`.
    fn parse(algorithm: PublicKeyAlgorithm, bytes: &[u8]) -> Result<Self> {
        const WRONG_SIZE: &str = "signature: material length does not match the algorithm";
        let mut r = Reader::new(bytes, "signature material");
        let material = match algorithm {
            // RFC 9580 §5.2.3.4: 64 octets of native signature.
            PublicKeyAlgorithm::Ed25519 => {
                Self::Ed25519(r.array().map_err(|_| Error::malformed(WRONG_SIZE))?)
            }
            // RFC 9980 (draft -17 §5.3.1): Ed25519 signature (64) ‖ ML-DSA-65 signature (3309).
            PublicKeyAlgorithm::MlDsa65Ed25519 => {
                let ed25519 = r.array().map_err(|_| Error::malformed(WRONG_SIZE))?;
                let mldsa = Box::new(r.array().map_err(|_| Error::malformed(WRONG_SIZE))?);
                Self::MlDsa65Ed25519 { ed25519, mldsa }
            }
            _ => Self::Unknown(r.rest().to_vec()),
        };
        if !r.is_empty() {
            return Err(Error::malformed(WRONG_SIZE));
        }
        Ok(material)
    }

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        match self {
            Self::Ed25519(sig) => w.write_all(sig),
            Self::MlDsa65Ed25519 { ed25519, mldsa } => {
                w.write_all(ed25519)?;
                w.write_all(&mldsa[..])
            }
            Self::Unknown(bytes) => w.write_all(bytes),
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            Self::Ed25519(_) => ED25519_SIGNATURE_LEN,
            Self::MlDsa65Ed25519 { .. } => ED25519_SIGNATURE_LEN + MLDSA65_SIGNATURE_LEN,
            Self::Unknown(bytes) => bytes.len(),
        }
    }
}

/// Reads a 4-octet area length and the area it announces.
fn area<'a>(r: &mut Reader<'a>) -> Result<&'a [u8]> {
    let len = usize::try_from(r.be_u32()?).map_err(|_| Error::Truncated("signature"))?;
    r.take(len)
}

impl PacketBody for SignaturePacket {
    const TAG: Tag = Tag::Signature;

    /// Parses a whole signature packet body.
    ///
    /// # Errors
    /// `Unsupported(PacketVersion)` for versions other than 6; `Truncated`; `Malformed` for a
    /// salt size that does not match the hash, wrong material size, or a bad subpacket;
    /// `LimitExceeded(Subpackets)`.
    fn parse(body: &[u8]) -> Result<Self> {
        Self::parse_with_limits(body, &Limits::default())
    }
}

impl Serialize for SignaturePacket {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        self.write_hashed_prefix(w)?;
        write_u32_len(area_len(&self.unhashed), w)?;
        write_area(&self.unhashed, w)?;
        w.write_all(&self.left16)?;
        let salt_len = u8::try_from(self.salt.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "salt longer than 255 octets"))?;
        w.write_all(&[salt_len])?;
        w.write_all(&self.salt)?;
        self.material.write_to(w)
    }

    fn encoded_len(&self) -> usize {
        // 4 fixed octets, two 4-octet area lengths, left16 (2), salt length (1).
        [area_len(&self.hashed), area_len(&self.unhashed), self.salt.len(), self.material.encoded_len()]
            .into_iter()
            .fold(15usize, usize::saturating_add)
    }
}

impl SignaturePacket {
    /// Parses a whole signature packet body, with at most `limits.max_subpackets()` subpackets
    /// in each of its areas (and in those of an embedded signature).
    ///
    /// # Errors
    /// As [`SignaturePacket::parse`].
    pub(crate) fn parse_with_limits(body: &[u8], limits: &Limits) -> Result<Self> {
        Self::parse_at_depth(body, 0, limits.max_subpackets())
    }

    /// Parses a signature nested `depth` levels deep in embedded signature subpackets.
    ///
    /// # Errors
    /// As [`SignaturePacket::parse`]; `Malformed` for an embedded signature below depth 1.
    pub(super) fn parse_at_depth(body: &[u8], depth: u8, max_subpackets: usize) -> Result<Self> {
        // RFC 9580 §5.2.3 (version 6):
        // - one-octet version number (6);
        // - one-octet signature type;
        // - one-octet public-key algorithm;
        // - one-octet hash algorithm;
        // - four-octet count of the hashed subpacket data, then the hashed subpackets;
        // - four-octet count of the unhashed subpacket data, then the unhashed subpackets;
        // - two-octet field holding the left 16 bits of the signed hash value;
        // - one-octet salt size, then the salt (its size MUST match the hash algorithm);
        // - the algorithm-specific signature material.
        // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3>
        let mut r = Reader::new(body, "signature");
        let version = r.u8()?;
        if version != SIGNATURE_VERSION {
            return Err(Error::Unsupported(Unsupported::PacketVersion { packet: "signature", version }));
        }
        let sig_type = SignatureType::from(r.u8()?);
        let pk_algorithm = PublicKeyAlgorithm::from(r.u8()?);
        let hash_algorithm = HashAlgorithm::from(r.u8()?);
        let hashed = parse_area(area(&mut r)?, depth, max_subpackets)?;
        let unhashed = parse_area(area(&mut r)?, depth, max_subpackets)?;
        let left16 = r.array()?;
        let salt_len = r.u8()?;
        let salt = r.take(usize::from(salt_len))?.to_vec();
        if hash_algorithm.v6_salt_len().is_some_and(|want| want != salt.len()) {
            return Err(Error::malformed("signature: salt size does not match the hash algorithm"));
        }
        let material = SignatureMaterial::parse(pk_algorithm, r.rest())?;
        Ok(Self { sig_type, pk_algorithm, hash_algorithm, hashed, unhashed, left16, salt, material })
    }

    /// Writes the fields hashed before the trailer: version through the hashed subpackets.
    fn write_hashed_prefix(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        w.write_all(&[
            SIGNATURE_VERSION,
            u8::from(self.sig_type),
            u8::from(self.pk_algorithm),
            u8::from(self.hash_algorithm),
        ])?;
        write_u32_len(area_len(&self.hashed), w)?;
        write_area(&self.hashed, w)
    }

    /// The octets of this signature that enter the v6 hash before the trailer (RFC 9580 §5.2.4):
    /// version (6) ‖ type ‖ public-key algorithm ‖ hash algorithm ‖ four-octet hashed area
    /// length ‖ hashed subpackets.
    ///
    /// <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.4>
    pub(crate) fn hashed_prefix(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(area_len(&self.hashed).saturating_add(8));
        // Writing to a Vec cannot fail.
        let _ = self.write_hashed_prefix(&mut out);
        out
    }

    /// The first hashed subpacket `f` selects.
    fn find_hashed<'a, T>(&'a self, f: impl Fn(&'a SubpacketData) -> Option<T>) -> Option<T> {
        self.hashed.iter().find_map(|s| f(&s.data))
    }

    /// The first subpacket `f` selects, hashed area first.
    fn find_any<'a, T>(&'a self, f: impl Fn(&'a SubpacketData) -> Option<T>) -> Option<T> {
        self.hashed.iter().chain(&self.unhashed).find_map(|s| f(&s.data))
    }

    /// Signature creation time (hashed area only).
    pub(crate) fn creation_time(&self) -> Option<u32> {
        self.find_hashed(|d| match d {
            SubpacketData::SignatureCreationTime(t) => Some(*t),
            _ => None,
        })
    }

    /// Signature expiration time, seconds after creation (hashed area only).
    pub(crate) fn signature_expiration(&self) -> Option<u32> {
        self.find_hashed(|d| match d {
            SubpacketData::SignatureExpirationTime(t) => Some(*t),
            _ => None,
        })
    }

    /// Key expiration time, seconds after key creation (hashed area only).
    pub(crate) fn key_expiration(&self) -> Option<u32> {
        self.find_hashed(|d| match d {
            SubpacketData::KeyExpirationTime(t) => Some(*t),
            _ => None,
        })
    }

    /// Key flags octets (hashed area only).
    pub(crate) fn key_flags(&self) -> Option<&[u8]> {
        self.find_hashed(|d| match d {
            SubpacketData::KeyFlags(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// Features octets (hashed area only).
    pub(crate) fn features(&self) -> Option<&[u8]> {
        self.find_hashed(|d| match d {
            SubpacketData::Features(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// Preferred AEAD ciphersuites (hashed area only).
    pub(crate) fn preferred_aead(&self) -> Option<&[(u8, u8)]> {
        self.find_hashed(|d| match d {
            SubpacketData::PreferredAead(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// Preferred symmetric ciphers (hashed area only).
    pub(crate) fn preferred_symmetric(&self) -> Option<&[u8]> {
        self.find_hashed(|d| match d {
            SubpacketData::PreferredSymmetric(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// Preferred hash algorithms (hashed area only).
    pub(crate) fn preferred_hash(&self) -> Option<&[u8]> {
        self.find_hashed(|d| match d {
            SubpacketData::PreferredHash(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// True if the hashed area marks the user ID as primary.
    pub(crate) fn primary_user_id(&self) -> bool {
        self.find_hashed(|d| match d {
            SubpacketData::PrimaryUserId(flag) => Some(*flag),
            _ => None,
        })
        .unwrap_or(false)
    }

    /// The issuer fingerprint (hashed or unhashed area), without its version octet.
    pub(crate) fn issuer_fingerprint(&self) -> Option<&[u8]> {
        self.find_any(|d| match d {
            SubpacketData::IssuerFingerprint { fingerprint, .. } => Some(fingerprint.as_slice()),
            _ => None,
        })
    }

    /// The embedded signature (hashed or unhashed area).
    pub(crate) fn embedded_signature(&self) -> Option<&SignaturePacket> {
        self.find_any(|d| match d {
            SubpacketData::EmbeddedSignature(sig) => Some(&**sig),
            _ => None,
        })
    }

    /// Reason for revocation: code and reason string (hashed area only).
    pub(crate) fn reason_for_revocation(&self) -> Option<(u8, &[u8])> {
        self.find_hashed(|d| match d {
            SubpacketData::ReasonForRevocation { code, reason } => Some((*code, reason.as_slice())),
            _ => None,
        })
    }

    /// True if the hashed area holds a critical subpacket this crate does not understand;
    /// such a signature must be treated as invalid (RFC 9580 §5.2.3.7).
    pub(crate) fn has_unknown_critical(&self) -> bool {
        self.hashed.iter().any(|s| s.critical && matches!(s.data, SubpacketData::Unknown { .. }))
    }
}

/// What this crate reads of a v4 signature packet: a message signed with a v4 key besides v6
/// keys carries one (announced by a v3 One-Pass Signature, RFC 9580 §5.4). It is parsed to
/// check the message's structure and to report the signature, never verified; its packet is
/// kept verbatim, so it is never written from these fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SignatureV4 {
    pub(crate) sig_type: SignatureType,
    pub(crate) pk_algorithm: PublicKeyAlgorithm,
    pub(crate) hash_algorithm: HashAlgorithm,
    /// The hashed Signature Creation Time, as the signature states it.
    pub(crate) creation_time: Option<u32>,
    /// The key ID of the issuer, from an Issuer Key ID or a v4 Issuer Fingerprint subpacket.
    pub(crate) issuer_key_id: Option<[u8; 8]>,
}

/// Reads a 2-octet area length and the area it announces.
fn area_v4<'a>(r: &mut Reader<'a>) -> Result<&'a [u8]> {
    let len = u16::from_be_bytes(r.array()?);
    r.take(usize::from(len))
}

impl SignatureV4 {
    /// Parses a whole v4 signature packet body.
    ///
    /// # Errors
    /// `Unsupported(PacketVersion)` for versions other than 4; `Truncated`; `Malformed` for a
    /// bad subpacket or no signature material; `LimitExceeded(Subpackets)`.
    pub(crate) fn parse(body: &[u8], max_subpackets: usize) -> Result<Self> {
        // RFC 9580 §5.2.3 (version 4):
        // - one-octet version number (4);
        // - one-octet signature type;
        // - one-octet public-key algorithm;
        // - one-octet hash algorithm;
        // - two-octet count of the hashed subpacket data, then the hashed subpackets;
        // - two-octet count of the unhashed subpacket data, then the unhashed subpackets;
        // - two-octet field holding the left 16 bits of the signed hash value;
        // - the algorithm-specific signature material (MPIs, or native octets).
        // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3>
        let mut r = Reader::new(body, "v4 signature");
        let version = r.u8()?;
        if version != SIGNATURE_VERSION_4 {
            return Err(Error::Unsupported(Unsupported::PacketVersion { packet: "signature", version }));
        }
        let sig_type = SignatureType::from(r.u8()?);
        let pk_algorithm = PublicKeyAlgorithm::from(r.u8()?);
        let hash_algorithm = HashAlgorithm::from(r.u8()?);
        let hashed = parse_area(area_v4(&mut r)?, 0, max_subpackets)?;
        let unhashed = parse_area(area_v4(&mut r)?, 0, max_subpackets)?;
        let _left16: [u8; 2] = r.array()?;
        // The material is never used: only its size is checked where it is fixed.
        let size_ok = match pk_algorithm {
            PublicKeyAlgorithm::Ed25519 => r.rest().len() == ED25519_SIGNATURE_LEN,
            _ => !r.rest().is_empty(),
        };
        if !size_ok {
            return Err(Error::malformed("v4 signature: material length does not match the algorithm"));
        }
        let creation_time = hashed.iter().find_map(|s| match s.data {
            SubpacketData::SignatureCreationTime(t) => Some(t),
            _ => None,
        });
        let issuer_key_id = hashed.iter().chain(&unhashed).find_map(|s| match &s.data {
            SubpacketData::Unknown { tag: ISSUER_KEY_ID, body } => <[u8; 8]>::try_from(body.as_slice()).ok(),
            // A v4 fingerprint's key ID is its last 8 octets (RFC 9580 §5.5.4.2).
            SubpacketData::IssuerFingerprint { version: 4, fingerprint } => {
                fingerprint.get(12..).and_then(|id| <[u8; 8]>::try_from(id).ok())
            }
            _ => None,
        });
        Ok(Self { sig_type, pk_algorithm, hash_algorithm, creation_time, issuer_key_id })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::packet::subpacket::tests::arb_subpacket;

    /// Any v6 signature; its subpackets hold an embedded signature only if `allow_embedded`.
    pub(crate) fn arb_signature(allow_embedded: bool) -> BoxedStrategy<SignaturePacket> {
        let material = prop_oneof![
            any::<[u8; 64]>().prop_map(|s| (PublicKeyAlgorithm::Ed25519, SignatureMaterial::Ed25519(s))),
            (any::<[u8; 64]>(), any::<u8>()).prop_map(|(ed25519, seed)| {
                let mut mldsa = Box::new([0u8; MLDSA65_SIGNATURE_LEN]);
                mldsa
                    .iter_mut()
                    .enumerate()
                    .for_each(|(i, b)| *b = seed.wrapping_add(u8::try_from(i & 0xff).unwrap()));
                (PublicKeyAlgorithm::MlDsa65Ed25519, SignatureMaterial::MlDsa65Ed25519 { ed25519, mldsa })
            }),
            (any::<u8>(), proptest::collection::vec(any::<u8>(), 0..100)).prop_filter_map(
                "signature algorithm",
                |(a, bytes)| {
                    let alg = PublicKeyAlgorithm::from(a);
                    (!matches!(alg, PublicKeyAlgorithm::Ed25519 | PublicKeyAlgorithm::MlDsa65Ed25519))
                        .then_some((alg, SignatureMaterial::Unknown(bytes)))
                }
            ),
        ];
        let subpackets = || proptest::collection::vec(arb_subpacket(allow_embedded), 0..5);
        (any::<u8>(), any::<u8>(), material, subpackets(), subpackets(), any::<[u8; 2]>(), any::<u8>())
            .prop_map(|(ty, hash, (pk_algorithm, material), hashed, unhashed, left16, salt_seed)| {
                let hash_algorithm = HashAlgorithm::from(hash);
                let salt_len = hash_algorithm.v6_salt_len().unwrap_or(usize::from(salt_seed % 40));
                SignaturePacket {
                    sig_type: SignatureType::from(ty),
                    pk_algorithm,
                    hash_algorithm,
                    hashed,
                    unhashed,
                    left16,
                    salt: vec![salt_seed; salt_len],
                    material,
                }
            })
            .boxed()
    }

    proptest! {
        #[test]
        fn round_trip(sig in arb_signature(true)) {
            let bytes = sig.to_vec();
            prop_assert_eq!(bytes.len(), sig.encoded_len());
            prop_assert_eq!(SignaturePacket::parse(&bytes).unwrap(), sig.clone());
            let prefix = sig.hashed_prefix();
            prop_assert!(bytes.starts_with(&prefix));
        }

        #[test]
        fn signature_type_round_trip(v in any::<u8>()) {
            prop_assert_eq!(u8::from(SignatureType::from(v)), v);
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            if let Ok(sig) = SignaturePacket::parse(&bytes) {
                prop_assert_eq!(sig.to_vec(), bytes);
            }
        }

        #[test]
        fn v4_never_panics(tail in proptest::collection::vec(any::<u8>(), 0..120)) {
            let mut bytes = vec![4];
            bytes.extend(tail);
            let _ = SignatureV4::parse(&bytes, Limits::default().max_subpackets());
        }
    }

    /// A v4 signature: its fields, the issuer from a v4 Issuer Fingerprint (hashed) or an Issuer
    /// Key ID (unhashed), and every truncation refused.
    #[test]
    fn v4_signature_fields() {
        let mut hashed = vec![5, 2, 0x68, 0x00, 0x00, 0x00, 22, 33, 4];
        hashed.extend((1..=20u8).collect::<Vec<_>>());
        let mut body = vec![4, 1, 27, 10, 0, u8::try_from(hashed.len()).unwrap()];
        body.extend(&hashed);
        body.extend([0, 0, 0xab, 0xcd]);
        body.extend([0x77; 64]);
        let sig = SignatureV4::parse(&body, Limits::default().max_subpackets()).unwrap();
        assert_eq!(
            (sig.sig_type, sig.pk_algorithm, sig.hash_algorithm),
            (SignatureType::Text, PublicKeyAlgorithm::Ed25519, HashAlgorithm::Sha512)
        );
        assert_eq!(sig.creation_time, Some(0x6800_0000));
        assert_eq!(sig.issuer_key_id, Some([13, 14, 15, 16, 17, 18, 19, 20]));
        for cut in 0..body.len() {
            assert!(
                SignatureV4::parse(&body[..cut], Limits::default().max_subpackets()).is_err(),
                "cut {cut}"
            );
        }
        // No hashed subpackets, the issuer key ID unhashed; another algorithm's MPIs.
        let body = [&[4, 0, 22, 8, 0, 0, 0, 10, 9, 16][..], &[8; 8], &[0xab, 0xcd, 0, 1, 1]].concat();
        let sig = SignatureV4::parse(&body, Limits::default().max_subpackets()).unwrap();
        assert_eq!((sig.creation_time, sig.issuer_key_id), (None, Some([8; 8])));
        assert!(matches!(
            SignatureV4::parse(&[6, 0, 27, 8], Limits::default().max_subpackets()),
            Err(Error::Unsupported(Unsupported::PacketVersion { version: 6, .. }))
        ));
    }

    fn a03_signatures() -> Vec<SignaturePacket> {
        let bytes = crate::packet::tests::dearmor(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/a03-v6-certificate.asc"
        )));
        crate::packet::tests::parse_all(&bytes)
            .unwrap()
            .into_iter()
            .filter_map(|(_, p)| match p {
                crate::packet::Packet::Signature(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn hashed_prefix_matches_rfc9580_a3() {
        let json: serde_json::Value = serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/a03-v6-certificate.json"
        )))
        .unwrap();
        let sigs = a03_signatures();
        for (sig, field, key_input_len) in [
            (&sigs[0], "direct_key_signature_hashed_data", 5 + 42),
            (&sigs[1], "subkey_binding_signature_hashed_data", 2 * (5 + 42)),
        ] {
            let data = hex::decode(json[field].as_str().unwrap()).unwrap();
            let prefix = sig.hashed_prefix();
            // salt ‖ key hash input ‖ hashed_prefix ‖ 0x06 0xff ‖ 4-octet length of hashed_prefix.
            let start = sig.salt.len() + key_input_len;
            assert_eq!(&data[..sig.salt.len()], &sig.salt[..], "{field}");
            assert_eq!(&data[start..start + prefix.len()], &prefix[..], "{field}");
            let mut trailer = vec![0x06, 0xff];
            trailer.extend(u32::try_from(prefix.len()).unwrap().to_be_bytes());
            assert_eq!(&data[start + prefix.len()..], &trailer[..], "{field}");
        }
    }

    #[test]
    fn accessors() {
        let sigs = a03_signatures();
        let binding = &sigs[1];
        assert_eq!(binding.sig_type, SignatureType::SubkeyBinding);
        assert_eq!(binding.key_flags(), Some(&[0x0c][..]));
        assert_eq!(binding.creation_time(), Some(0x6387_7fe3));
        assert_eq!(binding.signature_expiration(), None);
        assert_eq!(binding.key_expiration(), None);
        assert!(binding.embedded_signature().is_none());
        assert!(!binding.primary_user_id());
        assert!(binding.issuer_fingerprint().is_some());

        let mut sig = binding.clone();
        sig.hashed.push(Subpacket::new(false, SubpacketData::KeyExpirationTime(100)));
        sig.hashed.push(Subpacket::new(false, SubpacketData::SignatureExpirationTime(200)));
        sig.hashed.push(Subpacket::new(false, SubpacketData::PrimaryUserId(true)));
        sig.hashed.push(Subpacket::new(false, SubpacketData::Features(vec![0x09])));
        sig.hashed.push(Subpacket::new(false, SubpacketData::PreferredHash(vec![10, 8])));
        sig.hashed.push(Subpacket::new(
            false,
            SubpacketData::ReasonForRevocation { code: 2, reason: b"gone".to_vec() },
        ));
        sig.unhashed.push(Subpacket::new(false, SubpacketData::EmbeddedSignature(Box::new(sigs[0].clone()))));
        // Unhashed creation times and critical unknowns do not count.
        sig.unhashed.insert(0, Subpacket::new(false, SubpacketData::SignatureCreationTime(1)));
        sig.unhashed.push(Subpacket::new(true, SubpacketData::Unknown { tag: 100, body: vec![] }));
        let sig = SignaturePacket::parse(&sig.to_vec()).unwrap();
        assert_eq!(sig.key_expiration(), Some(100));
        assert_eq!(sig.signature_expiration(), Some(200));
        assert_eq!(sig.creation_time(), Some(0x6387_7fe3));
        assert!(sig.primary_user_id());
        assert_eq!(sig.features(), Some(&[0x09][..]));
        assert_eq!(sig.preferred_hash(), Some(&[10, 8][..]));
        assert_eq!(sig.reason_for_revocation(), Some((2, &b"gone"[..])));
        assert_eq!(sig.embedded_signature(), Some(&sigs[0]));
        assert!(!sig.has_unknown_critical());
        let mut critical = sig.clone();
        critical.hashed.push(Subpacket::new(true, SubpacketData::Unknown { tag: 100, body: vec![] }));
        let critical = SignaturePacket::parse(&critical.to_vec()).unwrap();
        assert!(critical.has_unknown_critical());
    }

    #[test]
    fn hostile_signatures() {
        let sigs = a03_signatures();
        let good = sigs[0].to_vec();
        for version in [3u8, 4, 5] {
            let mut v = good.clone();
            v[0] = version;
            assert!(matches!(
                SignaturePacket::parse(&v),
                Err(Error::Unsupported(Unsupported::PacketVersion { packet: "signature", version: x })) if x == version
            ));
        }
        // Wrong salt size for SHA2-512: change the salt length octet, keep the total length.
        let salt_len_at = good.len() - 64 - 32 - 1;
        assert_eq!(good[salt_len_at], 32);
        let mut bad_salt = good.clone();
        bad_salt[salt_len_at] = 16;
        assert!(matches!(SignaturePacket::parse(&bad_salt), Err(Error::Malformed(_))));
        // Ed25519 material one octet short or long.
        assert!(matches!(SignaturePacket::parse(&good[..good.len() - 1]), Err(Error::Malformed(_))));
        let mut long = good.clone();
        long.push(0);
        assert!(matches!(SignaturePacket::parse(&long), Err(Error::Malformed(_))));
        // Hashed area length past the end.
        let mut past = good.clone();
        past[4..8].copy_from_slice(&[0xff; 4]);
        assert!(matches!(SignaturePacket::parse(&past), Err(Error::Truncated(_))));
        // An embedded signature inside an embedded signature.
        let mut inner = sigs[0].clone();
        inner
            .unhashed
            .push(Subpacket::new(false, SubpacketData::EmbeddedSignature(Box::new(sigs[0].clone()))));
        let mut outer = sigs[1].clone();
        outer.unhashed.push(Subpacket::new(false, SubpacketData::EmbeddedSignature(Box::new(inner))));
        assert!(matches!(SignaturePacket::parse(&outer.to_vec()), Err(Error::Malformed(_))));
        for cut in 0..good.len() {
            assert!(SignaturePacket::parse(&good[..cut]).is_err());
        }
    }
}
