//! Literal Data packet framing (RFC 9580 §5.9) as a stream: [`LiteralWriter`] writes the header
//! fields and then the data with partial body lengths; [`LiteralReader`] parses them back.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.9>

use std::io::{self, BufRead, Read, Write};

use crate::error::{Error, Result};
use crate::packet::Serialize;
use crate::packet::header::{Header, Tag};
use crate::packet::literal::LiteralHeader;
use crate::packet::partial::{PartialBodyReader, PartialBodyWriter};
use crate::packet::reader::Reader;

/// Largest literal header: format, length octet, 255-octet file name, date.
const MAX_HEADER_LEN: usize = 1 + 1 + 255 + 4;

/// Writes one Literal Data packet into `inner`.
#[derive(Debug)]
#[must_use = "call finish() to end the packet"]
pub(crate) struct LiteralWriter<W: Write> {
    inner: PartialBodyWriter<W>,
}

impl<W: Write> LiteralWriter<W> {
    /// Starts the packet with `header`'s fields.
    ///
    /// # Errors
    /// `InvalidArgument` for a file name over 255 octets; I/O errors of `inner`.
    pub(crate) fn new(inner: W, header: &LiteralHeader) -> Result<Self> {
        header.check()?;
        let mut inner = PartialBodyWriter::new(inner, Tag::LiteralData);
        header.write_to(&mut inner)?;
        Ok(Self { inner })
    }

    /// Ends the packet and returns `inner`.
    ///
    /// # Errors
    /// I/O errors of `inner`.
    pub(crate) fn finish(self) -> Result<W> {
        self.inner.finish()
    }
}

impl<W: Write> Write for LiteralWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.inner.write(data)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Reads one Literal Data packet: the header fields at construction, then the data.
#[derive(Debug)]
pub(crate) struct LiteralReader<R: BufRead> {
    body: PartialBodyReader<R>,
    header: LiteralHeader,
}

impl<R: BufRead> LiteralReader<R> {
    /// Reads the packet header and the literal header fields from `inner`, which must be
    /// positioned at a Literal Data packet.
    ///
    /// # Errors
    /// `Malformed` if the next packet is not Literal Data; `Truncated` if the input ends early.
    pub(crate) fn new(mut inner: R) -> Result<Self> {
        let header = Header::read_from(&mut inner)?.ok_or(Error::Truncated("literal data packet"))?;
        if header.tag != Tag::LiteralData {
            return Err(Error::malformed("expected a literal data packet"));
        }
        let mut body = PartialBodyReader::new(inner, header.length);
        let mut fields = [0u8; MAX_HEADER_LEN];
        let (head, rest) = fields.split_at_mut(2);
        read_full(&mut body, head)?;
        let name_len = usize::from(head.get(1).copied().unwrap_or(0));
        let tail_len = name_len.checked_add(4).ok_or(Error::malformed("literal header"))?;
        read_full(&mut body, rest.get_mut(..tail_len).ok_or(Error::malformed("literal header"))?)?;
        let used = tail_len.checked_add(2).ok_or(Error::malformed("literal header"))?;
        let mut r =
            Reader::new(fields.get(..used).ok_or(Error::malformed("literal header"))?, "literal data header");
        let header = LiteralHeader::parse(&mut r)?;
        r.finish()?;
        Ok(Self { body, header })
    }

    /// Format, file name and date.
    pub(crate) fn header(&self) -> &LiteralHeader {
        &self.header
    }

    /// The inner reader, positioned after the packet once the data has been read to EOF.
    pub(crate) fn into_inner(self) -> R {
        self.body.into_inner()
    }
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<()> {
    r.read_exact(buf).map_err(|e| match Error::from_io(e) {
        Error::Io(e) if e.kind() == io::ErrorKind::UnexpectedEof => Error::Truncated("literal data header"),
        other => other,
    })
}

impl<R: BufRead> Read for LiteralReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.body.read(out)
    }
}

impl<R: BufRead> BufRead for LiteralReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.body.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.body.consume(amt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::literal::LiteralFormat;

    #[test]
    fn round_trip() {
        let data: Vec<u8> = (0..200_000u32).map(|i| i.to_le_bytes()[1]).collect();
        for len in [0, 1, 65_535, 65_536, 65_537, 200_000] {
            let header = LiteralHeader {
                format: LiteralFormat::Utf8,
                filename: b"f.txt".to_vec(),
                date: 1_700_000_000,
            };
            let mut w = LiteralWriter::new(Vec::new(), &header).unwrap();
            for piece in data[..len].chunks(10_000) {
                w.write_all(piece).unwrap();
            }
            let mut bytes = w.finish().unwrap();
            bytes.extend_from_slice(b"\xd5\x00"); // a trailing (padding) packet
            let mut r = LiteralReader::new(&bytes[..]).unwrap();
            assert_eq!(r.header(), &header);
            let mut out = Vec::new();
            let _ = r.read_to_end(&mut out).unwrap();
            assert_eq!(out, &data[..len]);
            assert_eq!(r.into_inner(), b"\xd5\x00");
        }
    }

    /// RFC 9580 A.8's literal packet.
    #[test]
    fn rfc9580_literal_packet() {
        let bytes = hex::decode("cb1362000000000048656c6c6f2c20776f726c6421").unwrap();
        let mut r = LiteralReader::new(&bytes[..]).unwrap();
        assert_eq!(r.header(), &LiteralHeader::binary());
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"Hello, world!");
        let mut w = LiteralWriter::new(Vec::new(), &LiteralHeader::binary()).unwrap();
        w.write_all(b"Hello, world!").unwrap();
        assert_eq!(w.finish().unwrap(), bytes);
    }

    #[test]
    fn rejects() {
        assert!(matches!(LiteralReader::new(&b"\xcd\x01a"[..]), Err(Error::Malformed(_))));
        assert!(matches!(LiteralReader::new(&b""[..]), Err(Error::Truncated(_))));
        let bytes = hex::decode("cb1362000000000048656c6c6f2c20776f726c6421").unwrap();
        for cut in 1..8 {
            assert!(matches!(LiteralReader::new(&bytes[..cut]), Err(Error::Truncated(_))), "cut {cut}");
        }
        let mut r = LiteralReader::new(&bytes[..bytes.len() - 1]).unwrap();
        assert!(r.read_to_end(&mut Vec::new()).is_err());
    }
}
