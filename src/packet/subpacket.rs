//! Signature subpackets (RFC 9580 §5.2.3.7 onwards).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.7>

use std::io::{self, Write};

use crate::error::{Error, Limit, Result};
use crate::packet::Serialize;
use crate::packet::header::write_fixed_length;
use crate::packet::reader::Reader;
use crate::packet::signature::SignaturePacket;

/// Subpacket type IDs (RFC 9580 §5.2.3.7, Table 5).
mod id {
    pub(super) const SIGNATURE_CREATION_TIME: u8 = 2;
    pub(super) const SIGNATURE_EXPIRATION_TIME: u8 = 3;
    pub(super) const KEY_EXPIRATION_TIME: u8 = 9;
    pub(super) const PREFERRED_SYMMETRIC: u8 = 11;
    pub(super) const PREFERRED_HASH: u8 = 21;
    pub(super) const PRIMARY_USER_ID: u8 = 25;
    pub(super) const KEY_FLAGS: u8 = 27;
    pub(super) const REASON_FOR_REVOCATION: u8 = 29;
    pub(super) const FEATURES: u8 = 30;
    pub(super) const EMBEDDED_SIGNATURE: u8 = 32;
    pub(super) const ISSUER_FINGERPRINT: u8 = 33;
    pub(super) const PREFERRED_AEAD: u8 = 39;
}

/// The critical bit of the subpacket type octet.
const CRITICAL_BIT: u8 = 0x80;
/// Largest length the default writer puts in the two-octet form (as for packet headers).
const MAX_DEFAULT_TWO_OCTET_LEN: usize = 8383;
/// Largest length the two-octet subpacket form can encode: ((254 - 192) << 8) + 255 + 192.
const MAX_TWO_OCTET_LEN: usize = 16319;

/// How a subpacket length was encoded, when it differs from what this crate writes by default.
///
/// By default a length below 192 takes one octet, up to 8383 two octets, and beyond five
/// octets. Other encoders may use the five-octet form for small lengths, or the two-octet form
/// up to 16319; the signature covers those octets, so a parsed subpacket keeps its form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum LengthForm {
    /// The default encoding for the length.
    #[default]
    Default,
    /// The two-octet form for a length of 8384 to 16319.
    TwoOctet,
    /// The five-octet form for a length below 8384.
    FiveOctet,
}

/// The encoding actually used on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WireForm {
    One,
    Two,
    Five,
}

impl WireForm {
    fn default_for(len: usize) -> Self {
        match len {
            0..=191 => Self::One,
            192..=MAX_DEFAULT_TWO_OCTET_LEN => Self::Two,
            _ => Self::Five,
        }
    }

    /// The form to write a length in, honouring a recorded form where it can encode `len`.
    fn for_len(len: usize, form: LengthForm) -> Self {
        match form {
            LengthForm::FiveOctet => Self::Five,
            LengthForm::TwoOctet if (192..=MAX_TWO_OCTET_LEN).contains(&len) => Self::Two,
            _ => Self::default_for(len),
        }
    }

    /// What to record after reading `len` in this form.
    fn recorded(self, len: usize) -> LengthForm {
        if self == Self::default_for(len) {
            LengthForm::Default
        } else if self == Self::Two {
            LengthForm::TwoOctet
        } else {
            LengthForm::FiveOctet
        }
    }

    fn octets(self) -> usize {
        match self {
            Self::One => 1,
            Self::Two => 2,
            Self::Five => 5,
        }
    }
}

/// One signature subpacket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Subpacket {
    pub(super) critical: bool,
    /// The length encoding, kept so that a parsed signature serializes to the octets that
    /// were signed.
    len_form: LengthForm,
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

/// A 4-octet time field.
fn time_field(body: &[u8]) -> Result<u32> {
    let mut r = Reader::new(body, "signature subpacket: time field");
    let v = r.be_u32().map_err(|_| Error::malformed("signature subpacket: time field is not 4 octets"))?;
    if !r.is_empty() {
        return Err(Error::malformed("signature subpacket: time field is not 4 octets"));
    }
    Ok(v)
}

impl SubpacketData {
    /// Parses the body of a subpacket of type `tag` (critical bit removed). `depth` is the
    /// signature nesting depth of the signature holding this subpacket.
    fn parse(tag: u8, body: &[u8], depth: u8, max_subpackets: usize) -> Result<Self> {
        Ok(match tag {
            // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.11>
            id::SIGNATURE_CREATION_TIME => Self::SignatureCreationTime(time_field(body)?),
            // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.18>
            id::SIGNATURE_EXPIRATION_TIME => Self::SignatureExpirationTime(time_field(body)?),
            // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.13>
            id::KEY_EXPIRATION_TIME => Self::KeyExpirationTime(time_field(body)?),
            id::PREFERRED_SYMMETRIC => Self::PreferredSymmetric(body.to_vec()),
            id::PREFERRED_HASH => Self::PreferredHash(body.to_vec()),
            // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.27>: a one-octet flag.
            // Only 0 and 1 are accepted, so that the flag round-trips exactly.
            id::PRIMARY_USER_ID => match body {
                [0] => Self::PrimaryUserId(false),
                [1] => Self::PrimaryUserId(true),
                _ => {
                    return Err(Error::malformed("signature subpacket: primary user ID flag"));
                }
            },
            id::KEY_FLAGS => Self::KeyFlags(body.to_vec()),
            // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.31>: code octet, then reason.
            id::REASON_FOR_REVOCATION => {
                let (&code, reason) = body
                    .split_first()
                    .ok_or(Error::malformed("signature subpacket: empty reason for revocation"))?;
                Self::ReasonForRevocation { code, reason: reason.to_vec() }
            }
            id::FEATURES => Self::Features(body.to_vec()),
            // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.34>: a whole signature packet
            // body. One level of nesting is all a primary key binding needs.
            id::EMBEDDED_SIGNATURE => {
                if depth >= 1 {
                    return Err(Error::malformed("signature subpacket: nested embedded signature"));
                }
                let inner = SignaturePacket::parse_at_depth(body, depth.saturating_add(1), max_subpackets)?;
                Self::EmbeddedSignature(Box::new(inner))
            }
            // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.35>: key version, then the
            // fingerprint (32 octets for v6, 20 for v4).
            id::ISSUER_FINGERPRINT => {
                let (&version, fingerprint) = body
                    .split_first()
                    .ok_or(Error::malformed("signature subpacket: empty issuer fingerprint"))?;
                let want = match version {
                    6 => Some(32),
                    4 => Some(20),
                    _ => None,
                };
                if want.is_some_and(|n| n != fingerprint.len()) {
                    return Err(Error::malformed("signature subpacket: issuer fingerprint length"));
                }
                Self::IssuerFingerprint { version, fingerprint: fingerprint.to_vec() }
            }
            // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.15>: octet pairs.
            id::PREFERRED_AEAD => {
                let (pairs, rest) = body.as_chunks::<2>();
                if !rest.is_empty() {
                    return Err(Error::malformed("signature subpacket: odd AEAD preference length"));
                }
                Self::PreferredAead(pairs.iter().map(|&[s, a]| (s, a)).collect())
            }
            _ => Self::Unknown { tag, body: body.to_vec() },
        })
    }

    /// The type ID, critical bit excluded.
    fn tag(&self) -> u8 {
        match self {
            Self::SignatureCreationTime(_) => id::SIGNATURE_CREATION_TIME,
            Self::SignatureExpirationTime(_) => id::SIGNATURE_EXPIRATION_TIME,
            Self::KeyExpirationTime(_) => id::KEY_EXPIRATION_TIME,
            Self::PreferredSymmetric(_) => id::PREFERRED_SYMMETRIC,
            Self::PreferredHash(_) => id::PREFERRED_HASH,
            Self::PrimaryUserId(_) => id::PRIMARY_USER_ID,
            Self::KeyFlags(_) => id::KEY_FLAGS,
            Self::ReasonForRevocation { .. } => id::REASON_FOR_REVOCATION,
            Self::Features(_) => id::FEATURES,
            Self::EmbeddedSignature(_) => id::EMBEDDED_SIGNATURE,
            Self::IssuerFingerprint { .. } => id::ISSUER_FINGERPRINT,
            Self::PreferredAead(_) => id::PREFERRED_AEAD,
            Self::Unknown { tag, .. } => *tag,
        }
    }

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        match self {
            Self::SignatureCreationTime(t)
            | Self::SignatureExpirationTime(t)
            | Self::KeyExpirationTime(t) => w.write_all(&t.to_be_bytes()),
            Self::PreferredSymmetric(v)
            | Self::PreferredHash(v)
            | Self::KeyFlags(v)
            | Self::Features(v)
            | Self::Unknown { body: v, .. } => w.write_all(v),
            Self::PrimaryUserId(flag) => w.write_all(&[u8::from(*flag)]),
            Self::ReasonForRevocation { code, reason } => {
                w.write_all(&[*code])?;
                w.write_all(reason)
            }
            Self::EmbeddedSignature(sig) => sig.write_to(w),
            Self::IssuerFingerprint { version, fingerprint } => {
                w.write_all(&[*version])?;
                w.write_all(fingerprint)
            }
            Self::PreferredAead(pairs) => pairs.iter().try_for_each(|&(s, a)| w.write_all(&[s, a])),
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            Self::SignatureCreationTime(_)
            | Self::SignatureExpirationTime(_)
            | Self::KeyExpirationTime(_) => 4,
            Self::PreferredSymmetric(v)
            | Self::PreferredHash(v)
            | Self::KeyFlags(v)
            | Self::Features(v)
            | Self::Unknown { body: v, .. } => v.len(),
            Self::PrimaryUserId(_) => 1,
            Self::ReasonForRevocation { reason, .. } => reason.len().saturating_add(1),
            Self::EmbeddedSignature(sig) => sig.encoded_len(),
            Self::IssuerFingerprint { fingerprint, .. } => fingerprint.len().saturating_add(1),
            Self::PreferredAead(pairs) => pairs.len().saturating_mul(2),
        }
    }
}

impl Subpacket {
    /// A subpacket with the shortest length encoding.
    pub(crate) fn new(critical: bool, data: SubpacketData) -> Self {
        Self { critical, len_form: LengthForm::Default, data }
    }

    /// Parses one subpacket from a subpacket area. `depth` is the nesting depth of the
    /// signature holding it (0 for a top-level signature).
    ///
    /// # Errors
    /// `Truncated` if the length runs past the area, `Malformed` for a zero length or a known
    /// subpacket with an invalid body.
    pub(super) fn parse(r: &mut Reader<'_>, depth: u8, max_subpackets: usize) -> Result<Self> {
        // RFC 9580 §5.2.3.7: the length (1, 2 or 5 octets) covers the type octet and the body.
        // - if the 1st octet < 192, then length = 1st octet;
        // - if 192 <= 1st octet < 255, then length = ((1st octet - 192) << 8) + (2nd octet) + 192;
        // - if the 1st octet = 255, then length = [four-octet scalar starting at 2nd octet].
        // <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.7>
        let first = r.u8()?;
        let (len, wire) = match first {
            0..=191 => (usize::from(first), WireForm::One),
            192..=254 => {
                // first - 192 == first & 0x3f in this range.
                let v = u16::from_be_bytes([first & 0x3f, r.u8()?]);
                (usize::from(v).saturating_add(192), WireForm::Two)
            }
            255 => {
                let len =
                    usize::try_from(r.be_u32()?).map_err(|_| Error::Truncated("signature subpacket"))?;
                (len, WireForm::Five)
            }
        };
        let mut sub = r.sub(len, "signature subpacket")?;
        let type_octet =
            sub.u8().map_err(|_| Error::malformed("signature subpacket: length 0 leaves no type octet"))?;
        let critical = type_octet & CRITICAL_BIT != 0;
        let data = SubpacketData::parse(type_octet & !CRITICAL_BIT, sub.rest(), depth, max_subpackets)?;
        Ok(Self { critical, len_form: wire.recorded(len), data })
    }

    /// The length field value: type octet plus body.
    fn length(&self) -> usize {
        self.data.encoded_len().saturating_add(1)
    }

    /// Writes the subpacket.
    ///
    /// # Errors
    /// The writer's errors, or `InvalidInput` if the body exceeds 2^32 octets.
    pub(super) fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        let length = self.length();
        let len = u32::try_from(length)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "subpacket longer than 2^32 octets"))?;
        match WireForm::for_len(length, self.len_form) {
            WireForm::One | WireForm::Two if length <= MAX_DEFAULT_TWO_OCTET_LEN => {
                // Up to 8383 the forms are the packet header's fixed length forms.
                write_fixed_length(len, w)?;
            }
            WireForm::One | WireForm::Two => {
                // 8384..=16319 in two octets: ((1st - 192) << 8) + 2nd + 192 = len.
                let [_, _, hi, lo] = len.saturating_sub(192).to_be_bytes();
                w.write_all(&[hi | 0xc0, lo])?;
            }
            WireForm::Five => {
                w.write_all(&[255])?;
                w.write_all(&len.to_be_bytes())?;
            }
        }
        let critical = if self.critical { CRITICAL_BIT } else { 0 };
        w.write_all(&[critical | self.data.tag()])?;
        self.data.write_to(w)
    }

    /// Octets [`Subpacket::write_to`] writes.
    pub(super) fn encoded_len(&self) -> usize {
        let len = self.length();
        WireForm::for_len(len, self.len_form).octets().saturating_add(len)
    }
}

/// Parses a whole subpacket area of at most `max_subpackets` subpackets (the caller's
/// [`Limits::max_subpackets`](crate::Limits::max_subpackets)).
///
/// # Errors
/// As [`Subpacket::parse`]; `LimitExceeded(Subpackets)` beyond `max_subpackets` subpackets.
pub(super) fn parse_area(area: &[u8], depth: u8, max_subpackets: usize) -> Result<Vec<Subpacket>> {
    let limit = max_subpackets;
    let mut r = Reader::new(area, "signature subpacket area");
    let mut out = Vec::new();
    while !r.is_empty() {
        if out.len() >= limit {
            return Err(Error::LimitExceeded(Limit::Subpackets));
        }
        out.push(Subpacket::parse(&mut r, depth, max_subpackets)?);
    }
    Ok(out)
}

/// Writes the subpackets of an area (without its length field).
///
/// # Errors
/// The writer's errors.
pub(super) fn write_area(area: &[Subpacket], w: &mut (impl Write + ?Sized)) -> io::Result<()> {
    area.iter().try_for_each(|s| s.write_to(w))
}

/// Octets [`write_area`] writes.
pub(super) fn area_len(area: &[Subpacket]) -> usize {
    area.iter().fold(0usize, |acc, s| acc.saturating_add(s.encoded_len()))
}

#[cfg(test)]
pub(super) mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::Limits;
    use crate::packet::signature::tests::arb_signature;

    /// The default subpacket limit.
    fn max() -> usize {
        Limits::default().max_subpackets()
    }

    fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(any::<u8>(), 0..max)
    }

    const KNOWN: [u8; 12] = [2, 3, 9, 11, 21, 25, 27, 29, 30, 32, 33, 39];

    fn arb_data(allow_embedded: bool) -> BoxedStrategy<SubpacketData> {
        let simple = prop_oneof![
            any::<u32>().prop_map(SubpacketData::SignatureCreationTime),
            any::<u32>().prop_map(SubpacketData::SignatureExpirationTime),
            any::<u32>().prop_map(SubpacketData::KeyExpirationTime),
            bytes(10).prop_map(SubpacketData::PreferredSymmetric),
            bytes(10).prop_map(SubpacketData::PreferredHash),
            any::<bool>().prop_map(SubpacketData::PrimaryUserId),
            bytes(4).prop_map(SubpacketData::KeyFlags),
            (any::<u8>(), bytes(300))
                .prop_map(|(code, reason)| SubpacketData::ReasonForRevocation { code, reason }),
            bytes(4).prop_map(SubpacketData::Features),
            any::<[u8; 32]>()
                .prop_map(|f| SubpacketData::IssuerFingerprint { version: 6, fingerprint: f.to_vec() }),
            (7u8..=255, bytes(40)).prop_map(|(version, fingerprint)| {
                SubpacketData::IssuerFingerprint { version, fingerprint }
            }),
            proptest::collection::vec(any::<(u8, u8)>(), 0..6).prop_map(SubpacketData::PreferredAead),
            (0u8..128, bytes(300)).prop_filter_map("known tag", |(tag, body)| {
                (!KNOWN.contains(&tag)).then_some(SubpacketData::Unknown { tag, body })
            }),
        ];
        if allow_embedded {
            prop_oneof![
                4 => simple,
                1 => arb_signature(false).prop_map(|s| SubpacketData::EmbeddedSignature(Box::new(s))),
            ]
            .boxed()
        } else {
            simple.boxed()
        }
    }

    /// Any subpacket (with an embedded signature only if `allow_embedded`).
    pub(crate) fn arb_subpacket(allow_embedded: bool) -> impl Strategy<Value = Subpacket> {
        let form =
            prop_oneof![Just(LengthForm::Default), Just(LengthForm::TwoOctet), Just(LengthForm::FiveOctet)];
        (any::<bool>(), form, arb_data(allow_embedded)).prop_map(|(critical, form, data)| {
            // Keep only forms that are not the default for this length, as parsing does.
            let len = data.encoded_len().saturating_add(1);
            let len_form = WireForm::for_len(len, form).recorded(len);
            Subpacket { critical, len_form, data }
        })
    }

    proptest! {
        #[test]
        fn round_trip(sp in arb_subpacket(true)) {
            let mut out = Vec::new();
            sp.write_to(&mut out).unwrap();
            prop_assert_eq!(out.len(), sp.encoded_len());
            let mut r = Reader::new(&out, "test");
            prop_assert_eq!(Subpacket::parse(&mut r, 0, max()).unwrap(), sp);
            prop_assert!(r.is_empty());
        }

        #[test]
        fn area_round_trip(area in proptest::collection::vec(arb_subpacket(false), 0..8)) {
            let mut out = Vec::new();
            write_area(&area, &mut out).unwrap();
            prop_assert_eq!(out.len(), area_len(&area));
            prop_assert_eq!(parse_area(&out, 0, max()).unwrap(), area);
        }

        #[test]
        fn never_panics(area in bytes(300)) {
            if let Ok(parsed) = parse_area(&area, 0, max()) {
                let mut out = Vec::new();
                write_area(&parsed, &mut out).unwrap();
                prop_assert_eq!(out, area);
            }
        }
    }

    #[test]
    fn length_forms_are_kept() {
        // Creation time with a 1-octet, then a needless 5-octet length: both reproduce exactly.
        for area in [&[5u8, 2, 1, 2, 3, 4][..], &[255, 0, 0, 0, 5, 0x82, 1, 2, 3, 4]] {
            let parsed = parse_area(area, 0, max()).unwrap();
            assert_eq!(parsed[0].data, SubpacketData::SignatureCreationTime(0x0102_0304));
            let mut out = Vec::new();
            write_area(&parsed, &mut out).unwrap();
            assert_eq!(out, area);
        }
        // Two-octet length: 192 + 1 = 193 octets of an unknown subpacket.
        let mut area = vec![192, 1, 100];
        area.extend([7u8; 192]);
        let parsed = parse_area(&area, 0, max()).unwrap();
        assert!(matches!(&parsed[0].data, SubpacketData::Unknown { tag: 100, body } if body.len() == 192));
        let mut out = Vec::new();
        write_area(&parsed, &mut out).unwrap();
        assert_eq!(out, area);
        // Two-octet length 8384 (first octet 224), which the default writer puts in five octets.
        let mut area = vec![224, 0, 100];
        area.extend([7u8; 8383]);
        let parsed = parse_area(&area, 0, max()).unwrap();
        assert_eq!(parsed[0].len_form, LengthForm::TwoOctet);
        assert_eq!(parsed[0].encoded_len(), area.len());
        let mut out = Vec::new();
        write_area(&parsed, &mut out).unwrap();
        assert_eq!(out, area);
        // The default writer uses five octets there.
        let fresh = Subpacket::new(false, parsed[0].data.clone());
        assert_eq!(fresh.encoded_len(), area.len() + 3);
    }

    #[test]
    fn hostile_subpackets() {
        let malformed = |area: &[u8]| matches!(parse_area(area, 0, max()), Err(Error::Malformed(_)));
        let truncated = |area: &[u8]| matches!(parse_area(area, 0, max()), Err(Error::Truncated(_)));
        assert!(malformed(&[0]));
        assert!(malformed(&[255, 0, 0, 0, 0]));
        assert!(truncated(&[3, 2, 0]));
        assert!(truncated(&[255, 0xff, 0xff, 0xff, 0xff, 2]));
        assert!(truncated(&[192]));
        assert!(truncated(&[255, 0, 0]));
        // Known types with wrong sizes.
        assert!(malformed(&[4, 2, 0, 0, 0]));
        assert!(malformed(&[6, 2, 0, 0, 0, 0, 0]));
        assert!(malformed(&[3, 9, 0, 0]));
        assert!(malformed(&[3, 25, 0, 0]));
        assert!(malformed(&[2, 25, 2]));
        assert!(malformed(&[1, 29]));
        assert!(malformed(&[1, 33]));
        assert!(malformed(&[3, 33, 6, 0]));
        assert!(malformed(&[4, 39, 9, 2, 7]));
        // Unknown critical subpackets parse; the signature layer reports them.
        let parsed = parse_area(&[2, 0x80 | 100, 1], 0, max()).unwrap();
        assert!(parsed[0].critical);
        assert!(matches!(parsed[0].data, SubpacketData::Unknown { tag: 100, .. }));
    }

    #[test]
    fn subpacket_count_is_limited() {
        let limit = Limits::default().max_subpackets();
        let ok: Vec<u8> = [2u8, 16, 0].repeat(limit);
        assert_eq!(parse_area(&ok, 0, max()).unwrap().len(), limit);
        let over: Vec<u8> = [2u8, 16, 0].repeat(limit + 1);
        assert!(matches!(parse_area(&over, 0, max()), Err(Error::LimitExceeded(Limit::Subpackets))));
    }
}
