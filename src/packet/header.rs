//! OpenPGP packet headers (RFC 9580 §4.2).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-4.2>

use std::io::{self, BufRead, Write};

use crate::error::{Error, Result, Unsupported};

/// Packet type IDs (RFC 9580 §5, Table 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub(crate) enum Tag {
    /// Public-Key Encrypted Session Key (1).
    Pkesk,
    /// Signature (2).
    Signature,
    /// Symmetric-Key Encrypted Session Key (3).
    Skesk,
    /// One-Pass Signature (4).
    OnePassSignature,
    /// Secret-Key (5).
    SecretKey,
    /// Public-Key (6).
    PublicKey,
    /// Secret-Subkey (7).
    SecretSubkey,
    /// Compressed Data (8).
    CompressedData,
    /// Symmetrically Encrypted Data (9), obsolete.
    SymmetricallyEncryptedData,
    /// Marker (10).
    Marker,
    /// Literal Data (11).
    LiteralData,
    /// Trust (12).
    Trust,
    /// User ID (13).
    UserId,
    /// Public-Subkey (14).
    PublicSubkey,
    /// User Attribute (17).
    UserAttribute,
    /// Symmetrically Encrypted and Integrity Protected Data (18).
    Seipd,
    /// AEAD Encrypted Data (20), from a draft that RFC 9580 did not adopt: refused.
    AeadEncryptedData,
    /// Padding (21).
    Padding,
    /// Any other packet type ID.
    Other(u8),
}

impl From<u8> for Tag {
    fn from(v: u8) -> Self {
        match v {
            1 => Self::Pkesk,
            2 => Self::Signature,
            3 => Self::Skesk,
            4 => Self::OnePassSignature,
            5 => Self::SecretKey,
            6 => Self::PublicKey,
            7 => Self::SecretSubkey,
            8 => Self::CompressedData,
            9 => Self::SymmetricallyEncryptedData,
            10 => Self::Marker,
            11 => Self::LiteralData,
            12 => Self::Trust,
            13 => Self::UserId,
            14 => Self::PublicSubkey,
            17 => Self::UserAttribute,
            18 => Self::Seipd,
            20 => Self::AeadEncryptedData,
            21 => Self::Padding,
            other => Self::Other(other),
        }
    }
}

impl From<Tag> for u8 {
    fn from(t: Tag) -> u8 {
        match t {
            Tag::Pkesk => 1,
            Tag::Signature => 2,
            Tag::Skesk => 3,
            Tag::OnePassSignature => 4,
            Tag::SecretKey => 5,
            Tag::PublicKey => 6,
            Tag::SecretSubkey => 7,
            Tag::CompressedData => 8,
            Tag::SymmetricallyEncryptedData => 9,
            Tag::Marker => 10,
            Tag::LiteralData => 11,
            Tag::Trust => 12,
            Tag::UserId => 13,
            Tag::PublicSubkey => 14,
            Tag::UserAttribute => 17,
            Tag::Seipd => 18,
            Tag::AeadEncryptedData => 20,
            Tag::Padding => 21,
            Tag::Other(v) => v,
        }
    }
}

impl Tag {
    /// Packets a message reader skips wherever they appear: Marker, Padding, and unknown
    /// non-critical packets (type IDs 40-63), which "MUST be ignored" (RFC 9580 §4.3).
    pub(crate) fn is_ignored_in_messages(self) -> bool {
        matches!(self, Self::Marker | Self::Padding | Self::Other(40..=63))
    }

    /// Data packets may use partial body lengths (RFC 9580 §4.2.1.4).
    pub(crate) fn is_data(self) -> bool {
        matches!(
            self,
            Self::CompressedData
                | Self::SymmetricallyEncryptedData
                | Self::LiteralData
                | Self::Seipd
                | Self::AeadEncryptedData
        )
    }
}

/// The length field of a packet header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyLength {
    /// The whole body follows, this many octets.
    Fixed(u32),
    /// A partial body of this many octets (a power of two) follows, then another length.
    Partial(u32),
}

/// The smallest first partial body length allowed (RFC 9580 §4.2.1.4).
const MIN_FIRST_PARTIAL: u32 = 512;

/// A parsed OpenPGP-format packet header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) tag: Tag,
    pub(crate) length: BodyLength,
}

/// Reads one octet, retrying on `Interrupted`. `Ok(None)` at end of input.
fn read_octet(r: &mut impl BufRead) -> io::Result<Option<u8>> {
    loop {
        match r.fill_buf() {
            Ok(buf) => {
                let Some(&b) = buf.first() else {
                    return Ok(None);
                };
                r.consume(1);
                return Ok(Some(b));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

fn need_octet(r: &mut impl BufRead) -> Result<u8> {
    read_octet(r)?.ok_or(Error::Truncated("packet header"))
}

/// Reads an OpenPGP-format length (RFC 9580 §4.2.1). `partial_ok` says whether the partial
/// form may appear here.
pub(super) fn read_length(r: &mut impl BufRead, partial_ok: bool) -> Result<BodyLength> {
    let first = need_octet(r)?;
    match first {
        0..=191 => Ok(BodyLength::Fixed(u32::from(first))),
        192..=223 => {
            let second = need_octet(r)?;
            // ((first - 192) << 8) + second + 192; first - 192 == first & 0x3f in this range,
            // and the sum is at most 8383.
            let len = u32::from(u16::from_be_bytes([first & 0x3f, second])).saturating_add(192);
            Ok(BodyLength::Fixed(len))
        }
        255 => {
            let mut b = [0u8; 4];
            for slot in &mut b {
                *slot = need_octet(r)?;
            }
            Ok(BodyLength::Fixed(u32::from_be_bytes(b)))
        }
        224..=254 => {
            if !partial_ok {
                return Err(Error::malformed("partial body length on a non-data packet"));
            }
            Ok(BodyLength::Partial(1u32 << (first & 0x1f)))
        }
    }
}

/// The error for a legacy-format header (RFC 9580 §4.2.2). GnuPG writes v4 keys with such
/// headers, so for a key packet the version octet after the length is looked at (without
/// consuming anything): "a version 4 key" is what the user needs to hear, not "legacy format".
fn legacy_header_error(ctb: u8, r: &mut impl BufRead) -> Error {
    let tag = (ctb >> 2) & 0x0f;
    let length_octets = match ctb & 3 {
        0 => 1,
        1 => 2,
        2 => 4,
        _ => 0,
    };
    let is_key =
        matches!(Tag::from(tag), Tag::PublicKey | Tag::SecretKey | Tag::PublicSubkey | Tag::SecretSubkey);
    if is_key
        && let Ok(buf) = r.fill_buf()
        && let Some(&version) = buf.get(length_octets)
        && (2..=5).contains(&version)
    {
        return Error::Unsupported(Unsupported::PacketVersion { packet: "public key", version });
    }
    Error::Unsupported(Unsupported::LegacyPacketFormat)
}

/// The packet type of the header at the start of `r`, without consuming it.
pub(crate) fn peek_tag(r: &mut impl BufRead) -> Result<Option<Tag>> {
    loop {
        match r.fill_buf() {
            Ok(buf) => {
                return Ok(buf
                    .first()
                    .map(|&b| if b & 0x40 != 0 { Tag::from(b & 0x3f) } else { Tag::Other(0) }));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::from_io(e)),
        }
    }
}

impl Header {
    /// Reads a packet header. Returns `Ok(None)` if the input is at its end before the first
    /// octet.
    pub(crate) fn read_from(r: &mut impl BufRead) -> Result<Option<Self>> {
        let Some(ctb) = read_octet(r)? else {
            return Ok(None);
        };
        if ctb & 0x80 == 0 {
            return Err(Error::malformed("packet header: bit 7 of the first octet is clear"));
        }
        if ctb & 0x40 == 0 {
            return Err(legacy_header_error(ctb, r));
        }
        let tag = Tag::from(ctb & 0x3f);
        if tag == Tag::Other(0) {
            return Err(Error::malformed("packet header: reserved packet type 0"));
        }
        let length = read_length(r, tag.is_data())?;
        if let BodyLength::Partial(n) = length
            && n < MIN_FIRST_PARTIAL
        {
            return Err(Error::malformed("first partial body length is below 512 octets"));
        }
        Ok(Some(Self { tag, length }))
    }

    /// A header with a fixed length.
    pub(crate) fn fixed(tag: Tag, len: usize) -> Result<Self> {
        let len = u32::try_from(len).map_err(|_| Error::InvalidArgument("packet too long"))?;
        Ok(Self { tag, length: BodyLength::Fixed(len) })
    }

    /// Writes the header in its shortest form.
    pub(crate) fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        w.write_all(&[0xc0 | u8::from(self.tag)])?;
        match self.length {
            BodyLength::Fixed(len) => write_fixed_length(len, w),
            BodyLength::Partial(len) => {
                let exp = len.trailing_zeros();
                debug_assert!(len.is_power_of_two() && exp <= 30);
                // exp <= 30 for any u32 power of two we write; masked to five bits.
                w.write_all(&[0xe0 | (exp.min(30) as u8)])
            }
        }
    }

    /// Octets [`Header::write_to`] writes.
    pub(super) fn encoded_len(&self) -> usize {
        match self.length {
            BodyLength::Fixed(len) => fixed_length_len(len).saturating_add(1),
            BodyLength::Partial(_) => 2,
        }
    }
}

/// Writes an OpenPGP-format fixed length in its shortest form.
pub(crate) fn write_fixed_length(len: u32, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
    let [b0, b1, b2, b3] = len.to_be_bytes();
    match len {
        0..=191 => w.write_all(&[b3]),
        192..=8383 => {
            // v = len - 192 < 8192: its high octet is below 32, so `| 0xc0` adds 192.
            let [_, _, hi, lo] = len.saturating_sub(192).to_be_bytes();
            w.write_all(&[hi | 0xc0, lo])
        }
        _ => w.write_all(&[255, b0, b1, b2, b3]),
    }
}

/// Octets [`write_fixed_length`] writes.
fn fixed_length_len(len: u32) -> usize {
    match len {
        0..=191 => 1,
        192..=8383 => 2,
        _ => 5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8]) -> Result<Option<Header>> {
        Header::read_from(&mut &bytes[..])
    }

    #[test]
    fn length_forms_round_trip() {
        for len in [0u32, 1, 191, 192, 1000, 8383, 8384, 100_000, u32::MAX] {
            let h = Header::fixed(Tag::UserId, len as usize).unwrap();
            let mut out = Vec::new();
            h.write_to(&mut out).unwrap();
            assert_eq!(out.len(), h.encoded_len());
            assert_eq!(parse(&out).unwrap(), Some(h));
        }
    }

    #[test]
    fn partial_only_on_data_packets() {
        // Tag 13 (User ID) with partial length 2^9.
        assert!(matches!(parse(&[0xcd, 0xe9]), Err(Error::Malformed(_))));
        // Tag 18 (SEIPD) with partial length 2^9 is fine; 2^8 is too small a first part.
        assert_eq!(
            parse(&[0xd2, 0xe9]).unwrap(),
            Some(Header { tag: Tag::Seipd, length: BodyLength::Partial(512) })
        );
        assert!(matches!(parse(&[0xd2, 0xe8]), Err(Error::Malformed(_))));
    }

    #[test]
    fn legacy_and_garbage() {
        assert!(matches!(parse(&[0x99, 0, 1]), Err(Error::Unsupported(Unsupported::LegacyPacketFormat))));
        assert!(matches!(parse(&[0x00]), Err(Error::Malformed(_))));
        assert!(matches!(parse(&[0xc0, 0]), Err(Error::Malformed(_))));
        assert!(matches!(parse(&[0xcd]), Err(Error::Truncated(_))));
        assert!(matches!(parse(&[0xcd, 0xff, 0, 0]), Err(Error::Truncated(_))));
        assert_eq!(parse(&[]).unwrap(), None);
    }
}
