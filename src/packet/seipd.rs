//! The fixed fields at the start of a version 2 Symmetrically Encrypted and Integrity Protected
//! Data packet (RFC 9580 §5.13.2). The encrypted chunks that follow are streamed by
//! `message::seipd`.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.13.2>

use std::io::{self, Read, Write};

use crate::error::{Error, Result, Unsupported};
use crate::packet::Serialize;
use crate::packet::header::Tag;
use crate::packet::reader::Reader;
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

/// The largest chunk size octet accepted (RFC 9580 §5.13.2: "MUST be ... at most 16").
pub(crate) const MAX_CHUNK_SIZE_OCTET: u8 = 16;

/// Octets of the SEIPDv2 fields before the first chunk.
const SEIPD_HEADER_LEN: usize = 36;

/// The SEIPDv2 fields: version, cipher, AEAD mode, chunk size octet, salt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SeipdHeader {
    pub(crate) sym: SymmetricAlgorithm,
    pub(crate) aead: AeadAlgorithm,
    /// The chunk size is 2^(chunk_size_octet + 6) octets.
    pub(crate) chunk_size_octet: u8,
    pub(crate) salt: [u8; 32],
}

impl SeipdHeader {
    /// Parses the fields from the start of the packet body.
    ///
    /// # Errors
    /// `Unsupported(Seipdv1)` for version 1, `Unsupported(PacketVersion)` for other versions,
    /// `Malformed` for a chunk size octet above 16, `Truncated` if the fields are incomplete.
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<Self> {
        check_version(r.u8()?)?;
        let sym = SymmetricAlgorithm::from(r.u8()?);
        let aead = AeadAlgorithm::from(r.u8()?);
        let chunk_size_octet = r.u8()?;
        if chunk_size_octet > MAX_CHUNK_SIZE_OCTET {
            return Err(Error::malformed("SEIPD: chunk size octet above 16"));
        }
        let salt = r.array::<32>()?;
        Ok(Self { sym, aead, chunk_size_octet, salt })
    }

    /// Reads the fields from a stream positioned at the start of the packet body. The version
    /// is checked before anything else is read.
    ///
    /// # Errors
    /// As [`SeipdHeader::parse`]; I/O errors of `r`.
    pub(crate) fn read_from(r: &mut impl Read) -> Result<Self> {
        let mut fields = [0u8; SEIPD_HEADER_LEN];
        let (version, rest) = fields.split_at_mut(1);
        read_full(r, version)?;
        if let Some(&v) = version.first() {
            check_version(v)?;
        }
        read_full(r, rest)?;
        Self::parse(&mut Reader::new(&fields, "SEIPD header"))
    }

    /// The chunk size in octets, 2^(c + 6).
    pub(crate) fn chunk_size(&self) -> usize {
        chunk_size(self.chunk_size_octet)
    }

    /// The five octets that start every chunk's associated data and form the HKDF info:
    /// packet type (in OpenPGP form, 0xD2), version, cipher, AEAD mode, chunk size octet.
    pub(crate) fn associated_data(&self) -> [u8; 5] {
        [0xc0 | u8::from(Tag::Seipd), 2, self.sym.into(), self.aead.into(), self.chunk_size_octet]
    }
}

/// The fields before the first chunk.
impl Serialize for SeipdHeader {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        w.write_all(&[2, self.sym.into(), self.aead.into(), self.chunk_size_octet])?;
        w.write_all(&self.salt)
    }

    fn encoded_len(&self) -> usize {
        SEIPD_HEADER_LEN
    }
}

/// 2^(c + 6) for a chunk size octet `c` (capped at 16).
fn chunk_size(chunk_size_octet: u8) -> usize {
    let exp = u32::from(chunk_size_octet.min(MAX_CHUNK_SIZE_OCTET)).saturating_add(6);
    1usize.checked_shl(exp).unwrap_or(1 << 22)
}

fn check_version(version: u8) -> Result<()> {
    match version {
        2 => Ok(()),
        1 => Err(Error::Unsupported(Unsupported::Seipdv1)),
        v => Err(Error::Unsupported(Unsupported::PacketVersion { packet: "SEIPD", version: v })),
    }
}

/// `read_exact` that reports a short input as `Truncated`.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<()> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => Error::Truncated("SEIPD header"),
        _ => Error::from_io(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9580 A.8: the SEIPD body starts `02 07 02 06` and the salt.
    #[test]
    fn rfc9580_a8_header() {
        let body =
            hex::decode("02070206616416535be0b0716d60e052a56c4c407f9eb36b0efafe9ad0a0df9b033c69a2").unwrap();
        let h = SeipdHeader::parse(&mut Reader::new(&body, "t")).unwrap();
        assert_eq!(h.sym, SymmetricAlgorithm::Aes128);
        assert_eq!(h.aead, AeadAlgorithm::Ocb);
        assert_eq!(h.chunk_size(), 1 << 12);
        assert_eq!(h.associated_data(), [0xd2, 2, 7, 2, 6]);
        let mut out = Vec::new();
        h.write_to(&mut out).unwrap();
        assert_eq!(out, body);
        assert_eq!(out.len(), h.encoded_len());
        assert_eq!(SeipdHeader::read_from(&mut &body[..]).unwrap(), h);
    }

    #[test]
    fn rejects() {
        let mut body = vec![2u8, 9, 2, 16];
        body.extend_from_slice(&[0; 32]);
        assert!(SeipdHeader::parse(&mut Reader::new(&body, "t")).is_ok());
        body[3] = 17;
        assert!(matches!(SeipdHeader::parse(&mut Reader::new(&body, "t")), Err(Error::Malformed(_))));
        assert!(matches!(
            SeipdHeader::read_from(&mut &[1u8][..]),
            Err(Error::Unsupported(Unsupported::Seipdv1))
        ));
        assert!(matches!(
            SeipdHeader::read_from(&mut &[3u8, 0][..]),
            Err(Error::Unsupported(Unsupported::PacketVersion { version: 3, .. }))
        ));
        for cut in 0..36 {
            assert!(matches!(SeipdHeader::read_from(&mut &body[..cut]), Err(Error::Truncated(_))));
        }
    }

    proptest::proptest! {
        #[test]
        fn proptest_round_trip(sym: u8, aead: u8, c in 0u8..=16, salt in proptest::array::uniform32(proptest::num::u8::ANY)) {
            let h = SeipdHeader { sym: sym.into(), aead: aead.into(), chunk_size_octet: c, salt };
            let mut out = Vec::new();
            h.write_to(&mut out).unwrap();
            proptest::prop_assert_eq!(out.len(), h.encoded_len());
            proptest::prop_assert_eq!(SeipdHeader::parse(&mut Reader::new(&out, "t")).unwrap(), h);
        }
    }
}
