//! The header fields of a Literal Data packet (RFC 9580 §5.9). The body that follows them is
//! streamed by `message::literal`.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.9>

use std::io::{self, Write};

use crate::error::{Error, Result};
use crate::packet::Serialize;
use crate::packet::reader::Reader;

/// The format octet of a Literal Data packet (RFC 9580 §5.9): read and written here, and
/// the public name of the literal data's format.
///
/// <https://www.rfc-editor.org/rfc/rfc9580#section-5.9>
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum DataFormat {
    /// `b`: binary data (the default).
    #[default]
    Binary,
    /// `u`: UTF-8 text. What [`Encryptor::format`](crate::Encryptor::format) writes for text.
    Utf8,
    /// `t`: text, the deprecated form of `u`; accepted on decryption.
    Text,
    /// Any other format octet (`l`, `1`, `m`, ...), as found, so that it can be written back.
    Unknown(u8),
}

impl From<u8> for DataFormat {
    fn from(v: u8) -> Self {
        match v {
            b'b' => Self::Binary,
            b'u' => Self::Utf8,
            b't' => Self::Text,
            other => Self::Unknown(other),
        }
    }
}

impl From<DataFormat> for u8 {
    fn from(f: DataFormat) -> u8 {
        match f {
            DataFormat::Binary => b'b',
            DataFormat::Utf8 => b'u',
            DataFormat::Text => b't',
            DataFormat::Unknown(v) => v,
        }
    }
}

/// Format, file name and date of a Literal Data packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LiteralHeader {
    pub(crate) format: DataFormat,
    /// The file name octets (at most 255; not necessarily UTF-8).
    pub(crate) filename: Vec<u8>,
    /// Seconds since the epoch, or 0.
    pub(crate) date: u32,
}

impl LiteralHeader {
    /// A header for binary data with no file name and date 0.
    pub(crate) fn binary() -> Self {
        Self { format: DataFormat::Binary, filename: Vec::new(), date: 0 }
    }

    /// Parses the fields from the start of the packet body, leaving the data in `r`.
    ///
    /// # Errors
    /// `Truncated` if the fields are incomplete.
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<Self> {
        let format = DataFormat::from(r.u8()?);
        let len = usize::from(r.u8()?);
        let filename = r.take(len)?.to_vec();
        let date = r.be_u32()?;
        Ok(Self { format, filename, date })
    }

    /// Checks that the file name fits its length octet.
    ///
    /// # Errors
    /// `InvalidArgument` for a file name over 255 octets.
    pub(crate) fn check(&self) -> Result<()> {
        if self.filename.len() > 255 {
            return Err(Error::InvalidArgument("literal data file name over 255 octets"));
        }
        Ok(())
    }
}

/// The fields before the data.
impl Serialize for LiteralHeader {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        let len = u8::try_from(self.filename.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "file name over 255 octets"))?;
        w.write_all(&[self.format.into(), len])?;
        w.write_all(&self.filename)?;
        w.write_all(&self.date.to_be_bytes())
    }

    fn encoded_len(&self) -> usize {
        self.filename.len().saturating_add(6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9580 A.8: the literal packet inside the message, `cb 13 62 00 00000000 Hello, world!`.
    #[test]
    fn rfc9580_a8_literal() {
        let body = hex::decode("62000000000048656c6c6f2c20776f726c6421").unwrap();
        let mut r = Reader::new(&body, "literal");
        let h = LiteralHeader::parse(&mut r).unwrap();
        assert_eq!(h, LiteralHeader::binary());
        assert_eq!(r.rest(), b"Hello, world!");
        let mut out = Vec::new();
        h.write_to(&mut out).unwrap();
        assert_eq!(out, &body[..6]);
    }

    #[test]
    fn round_trip_and_limits() {
        for format in [b'b', b'u', b't', b'm', b'l', b'1'] {
            let h = LiteralHeader { format: format.into(), filename: b"n\xffame".to_vec(), date: 0x5c0ffee };
            let mut out = Vec::new();
            h.write_to(&mut out).unwrap();
            assert_eq!(out.len(), h.encoded_len());
            assert_eq!(out[0], format);
            let mut r = Reader::new(&out, "literal");
            assert_eq!(LiteralHeader::parse(&mut r).unwrap(), h);
            assert!(r.is_empty());
            for cut in 0..out.len() {
                assert!(matches!(
                    LiteralHeader::parse(&mut Reader::new(&out[..cut], "l")),
                    Err(Error::Truncated(_))
                ));
            }
        }
        let long = LiteralHeader { format: DataFormat::Binary, filename: vec![b'a'; 256], date: 0 };
        assert!(long.write_to(&mut Vec::new()).is_err());
        assert!(long.check().is_err());
    }

    proptest::proptest! {
        #[test]
        fn proptest_round_trip(format: u8, filename in proptest::collection::vec(proptest::num::u8::ANY, 0..256), date: u32) {
            let h = LiteralHeader { format: format.into(), filename, date };
            let mut out = Vec::new();
            h.write_to(&mut out).unwrap();
            proptest::prop_assert_eq!(out.len(), h.encoded_len());
            let mut r = Reader::new(&out, "literal");
            proptest::prop_assert_eq!(LiteralHeader::parse(&mut r).unwrap(), h);
            proptest::prop_assert!(r.is_empty());
        }
    }
}
