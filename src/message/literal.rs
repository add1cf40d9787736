//! Literal Data packet framing (RFC 9580 §5.9) as a stream: [`LiteralWriter`] writes the header
//! fields and then the data with partial body lengths; [`LiteralReader`] parses them back.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.9>

use std::io::{self, BufRead, Read, Write};

use crate::error::{Error, Result};
use crate::message::seipd::SeipdWriter;
use crate::packet::Serialize;
use crate::packet::header::{self, Header, Tag};
use crate::packet::literal::LiteralHeader;
use crate::packet::partial::{DEFAULT_PART_EXP, PartialBodyReader, PartialBodyWriter};
use crate::packet::reader::Reader;

/// Largest literal header: format, length octet, 255-octet file name, date.
const MAX_HEADER_LEN: usize = 1 + 1 + 255 + 4;

/// Writes one Literal Data packet into `inner`.
#[derive(Debug)]
#[must_use = "call finish() to end the packet"]
pub(super) struct LiteralWriter<W: Write> {
    inner: PartialBodyWriter<W>,
}

impl<W: Write> LiteralWriter<W> {
    /// Starts the packet with `header`'s fields.
    ///
    /// # Errors
    /// `InvalidArgument` for a file name over 255 octets; I/O errors of `inner`.
    pub(super) fn new(inner: W, header: &LiteralHeader) -> Result<Self> {
        header.check()?;
        let mut inner = PartialBodyWriter::new(inner, Tag::LiteralData);
        header.write_to(&mut inner)?;
        Ok(Self { inner })
    }

    /// Ends the packet and returns `inner`.
    ///
    /// # Errors
    /// I/O errors of `inner`.
    pub(super) fn finish(self) -> Result<W> {
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

/// Octets of each partial part of a Literal Data packet that [`LiteralChunkWriter`] writes.
const PART_LEN: usize = 1 << DEFAULT_PART_EXP;

/// The partial length octet of a part of [`PART_LEN`] octets (RFC 9580 §4.2.1.4).
const PARTIAL_LENGTH: u8 = 0xe0 | DEFAULT_PART_EXP;

/// Parts one read of [`LiteralChunkWriter::copy_from`] may fill: a chunk of the default
/// 256 KiB spans five.
const READ_PARTS: usize = 6;

/// Writes one Literal Data packet straight into the chunk buffers of a [`SeipdWriter`], so
/// that each octet of plaintext is moved once on the calling thread: copied there by `write`,
/// or read there from the source by [`copy_from`](Self::copy_from).
///
/// The framing is that of [`LiteralWriter`] (parts of [`PART_LEN`] octets, then a
/// fixed-length final part; one fixed-length packet if the body never fills a part), laid in
/// place: each part's partial length octet is written before its data, as if the part were
/// going to be full, and `finish` takes the last part back from the chunk engine (which keeps
/// that many octets unencrypted) and writes it again behind its fixed length.
#[derive(Debug)]
#[must_use = "call finish() to end the packet"]
pub(super) struct LiteralChunkWriter<W: Write> {
    seipd: SeipdWriter<W>,
    /// Octets written after the open part's length octet ([`PART_LEN`]: full, or none open).
    part_len: usize,
    /// Whether the packet's first octet (and so its first part) has been written.
    started: bool,
}

impl<W: Write> LiteralChunkWriter<W> {
    /// Starts the packet with `header`'s fields.
    ///
    /// # Errors
    /// `InvalidArgument` for a file name over 255 octets; I/O errors of `seipd`.
    pub(super) fn new(mut seipd: SeipdWriter<W>, header: &LiteralHeader) -> Result<Self> {
        header.check()?;
        // The open part and its length octet, which `finish` takes back.
        seipd.set_lookback(PART_LEN.checked_add(1).ok_or(Error::InvalidArgument("part length"))?);
        let mut this = Self { seipd, part_len: PART_LEN, started: false };
        this.write_all(&header.to_vec())?;
        Ok(this)
    }

    /// Writes the next part's length octet (the packet's first octet before the first part)
    /// if no part is open.
    fn open_part(&mut self) -> Result<()> {
        if self.part_len == PART_LEN {
            if self.started {
                self.seipd.write_all(&[PARTIAL_LENGTH])?;
            } else {
                self.seipd.write_all(&[0xc0 | u8::from(Tag::LiteralData), PARTIAL_LENGTH])?;
            }
            self.started = true;
            self.part_len = 0;
        }
        Ok(())
    }

    /// Room for data in the open part, in the chunk buffer; opens a part if none is.
    fn spare(&mut self, max: usize) -> Result<&mut [u8]> {
        self.open_part()?;
        let room = PART_LEN.saturating_sub(self.part_len).min(max);
        self.seipd.spare(room)
    }

    fn commit(&mut self, n: usize) -> Result<()> {
        self.seipd.commit(n)?;
        self.part_len = self.part_len.checked_add(n).ok_or(Error::InvalidArgument("part length"))?;
        Ok(())
    }

    /// Reads `src` to its end straight into the chunk buffers; returns the octets read.
    ///
    /// Each read fills the rest of the chunk at once (`read_vectored`): the length octets of
    /// the parts after the open one are laid in the buffer first, at the positions they will
    /// have, and the read goes around them. A source without vectored reads fills the open
    /// part's share each time.
    ///
    /// # Errors
    /// Those of `src` (but `Interrupted`, which is retried) and of the chunk engine;
    /// `InvalidData` if `src` reports more octets than it was given.
    pub(super) fn copy_from(&mut self, src: &mut (impl Read + ?Sized)) -> io::Result<u64> {
        let mut total = 0u64;
        loop {
            self.open_part()?;
            let first = PART_LEN.saturating_sub(self.part_len);
            let want =
                READ_PARTS.saturating_sub(1).saturating_mul(PART_LEN.saturating_add(1)).saturating_add(first);
            let dst = self.seipd.spare(want)?;
            let mut slices: [io::IoSliceMut<'_>; READ_PARTS] =
                std::array::from_fn(|_| io::IoSliceMut::new(&mut []));
            let (head, mut rest) = dst.split_at_mut(first.min(dst.len()));
            let mut room = head.len();
            let mut used = 1usize;
            if let Some(slot) = slices.first_mut() {
                *slot = io::IoSliceMut::new(head);
            }
            for slot in slices.iter_mut().skip(1) {
                let Some((octet, after)) = rest.split_first_mut() else { break };
                *octet = PARTIAL_LENGTH;
                let (part, after) = after.split_at_mut(PART_LEN.min(after.len()));
                room = room.saturating_add(part.len());
                *slot = io::IoSliceMut::new(part);
                used = used.saturating_add(1);
                rest = after;
            }
            let n = match src.read_vectored(slices.get_mut(..used).unwrap_or_default()) {
                Ok(0) => return Ok(total),
                Ok(n) if n > room => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "a read reported more octets than its buffer holds",
                    ));
                }
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            // The data, and the length octet of each later part that got some: those parts
            // are full but the last.
            let (octets, part_len) = match n.checked_sub(first) {
                Some(later) if later > 0 => {
                    let parts = later.div_ceil(PART_LEN);
                    let last = later.saturating_sub(parts.saturating_sub(1).saturating_mul(PART_LEN));
                    (n.saturating_add(parts), last)
                }
                _ => (n, self.part_len.saturating_add(n)),
            };
            self.seipd.commit(octets)?;
            self.part_len = part_len;
            total = total.saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
        }
    }

    /// Ends the packet (the open part gets its fixed length, or an empty final part follows a
    /// full one) and returns the chunk engine.
    ///
    /// # Errors
    /// I/O errors of the chunk engine.
    pub(super) fn finish(mut self) -> Result<SeipdWriter<W>> {
        if self.part_len == PART_LEN {
            header::write_fixed_length(0, &mut self.seipd)?;
            return Ok(self.seipd);
        }
        let len = u32::try_from(self.part_len).map_err(|_| Error::InvalidArgument("part length"))?;
        let open = self
            .seipd
            .take_back(self.part_len.checked_add(1).ok_or(Error::InvalidArgument("part length"))?)?;
        header::write_fixed_length(len, &mut self.seipd)?;
        self.seipd.write_all(open.get(1..).unwrap_or_default())?;
        Ok(self.seipd)
    }
}

impl<W: Write> Write for LiteralChunkWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        let dst = self.spare(data.len())?;
        let n = dst.len();
        dst.copy_from_slice(data.get(..n).unwrap_or_default());
        self.commit(n)?;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.seipd.flush()
    }
}

/// Writes one Literal Data packet of a length known in advance straight into the chunk
/// buffers of a [`SeipdWriter`]: one fixed length in the packet header and no length octets
/// among the data, so that a reader can find any octet of the data without reading the
/// octets before it. More data than announced, or less by `finish`, is an error.
#[derive(Debug)]
#[must_use = "call finish() to end the packet"]
pub(super) struct FixedLiteralWriter<W: Write> {
    seipd: SeipdWriter<W>,
    /// Octets of data still to come.
    left: u64,
}

impl<W: Write> FixedLiteralWriter<W> {
    /// The packet's length: `header`'s fields and `len` octets of data; `None` if that does
    /// not fit a fixed length.
    pub(super) fn packet_len(header: &LiteralHeader, len: u64) -> Option<u64> {
        let body = u32::try_from(len.checked_add(u64::try_from(header.encoded_len()).ok()?)?).ok()?;
        let head = Header { tag: Tag::LiteralData, length: header::BodyLength::Fixed(body) };
        let mut octets = Vec::with_capacity(6);
        head.write_to(&mut octets).ok()?;
        u64::from(body).checked_add(u64::try_from(octets.len()).ok()?)
    }

    /// Starts the packet: its header with the fixed length, and `header`'s fields.
    ///
    /// # Errors
    /// `InvalidArgument` for a file name over 255 octets or a packet too long for a fixed
    /// length; I/O errors of `seipd`.
    pub(super) fn new(mut seipd: SeipdWriter<W>, header: &LiteralHeader, len: u64) -> Result<Self> {
        header.check()?;
        let body = len
            .checked_add(u64::try_from(header.encoded_len()).map_err(|_| Error::InvalidArgument("length"))?)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or(Error::InvalidArgument("literal data too long for a fixed length"))?;
        Header { tag: Tag::LiteralData, length: header::BodyLength::Fixed(body) }.write_to(&mut seipd)?;
        header.write_to(&mut seipd)?;
        Ok(Self { seipd, left: len })
    }

    /// Reads `src` to its end straight into the chunk buffers; returns the octets read.
    ///
    /// # Errors
    /// Those of `src` (but `Interrupted`, which is retried) and of the chunk engine;
    /// `InvalidInput` if `src` holds more than the announced length.
    pub(super) fn copy_from(&mut self, src: &mut (impl Read + ?Sized)) -> io::Result<u64> {
        let mut total = 0u64;
        loop {
            // One octet of room beyond the announced length, to see whether `src` has more.
            let want = usize::try_from(self.left).unwrap_or(usize::MAX).saturating_add(1);
            let dst = self.seipd.spare(want.min(1 << 20))?;
            let n = match src.read(dst) {
                Ok(0) => return Ok(total),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.take(n)?;
            self.seipd.commit(n)?;
            total = total.saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
        }
    }

    /// Counts `n` octets of data against the announced length.
    fn take(&mut self, n: usize) -> Result<()> {
        self.left = self
            .left
            .checked_sub(u64::try_from(n).unwrap_or(u64::MAX))
            .ok_or(Error::InvalidArgument("more plaintext than the announced length"))?;
        Ok(())
    }

    /// Ends the packet and returns the chunk engine.
    ///
    /// # Errors
    /// `InvalidArgument` if less data than announced was written.
    pub(super) fn finish(self) -> Result<SeipdWriter<W>> {
        if self.left != 0 {
            return Err(Error::InvalidArgument("less plaintext than the announced length"));
        }
        Ok(self.seipd)
    }
}

impl<W: Write> Write for FixedLiteralWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        self.take(data.len())?;
        self.seipd.write_all(data)?;
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.seipd.flush()
    }
}

/// Reads one Literal Data packet: the header fields at construction, then the data.
#[derive(Debug)]
pub(super) struct LiteralReader<R: BufRead> {
    body: PartialBodyReader<R>,
    header: LiteralHeader,
}

impl<R: BufRead> LiteralReader<R> {
    /// Reads the packet header and the literal header fields from `inner`, which must be
    /// positioned at a Literal Data packet.
    ///
    /// # Errors
    /// `Malformed` if the next packet is not Literal Data; `Truncated` if the input ends early.
    pub(super) fn new(mut inner: R) -> Result<Self> {
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
    pub(super) fn header(&self) -> &LiteralHeader {
        &self.header
    }

    /// The inner reader, positioned after the packet once the data has been read to EOF.
    pub(super) fn into_inner(self) -> R {
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
    use crate::packet::literal::DataFormat;

    #[test]
    fn round_trip() {
        let data: Vec<u8> = (0..200_000u32).map(|i| i.to_le_bytes()[1]).collect();
        for len in [0, 1, 65_535, 65_536, 65_537, 200_000] {
            let header =
                LiteralHeader { format: DataFormat::Utf8, filename: b"f.txt".to_vec(), date: 1_700_000_000 };
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

    /// A source that gives at most `steps[i % len]` octets per read, and `Interrupted` before
    /// every third read.
    struct Uneven<'a> {
        data: &'a [u8],
        steps: &'a [usize],
        i: usize,
        /// Whether `read_vectored` fills several buffers (as a file or `&[u8]` does) or only
        /// the first non-empty one (`Read`'s default).
        vectored: bool,
    }

    impl Read for Uneven<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            self.i = self.i.wrapping_add(1);
            if self.i.is_multiple_of(3) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let step = self.steps[self.i.checked_rem(self.steps.len()).unwrap()];
            let n = step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }

        fn read_vectored(&mut self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
            if !self.vectored {
                let first = bufs.iter_mut().find(|b| !b.is_empty());
                return self.read(first.map_or(&mut [][..], |b| &mut b[..]));
            }
            self.i = self.i.wrapping_add(1);
            if self.i.is_multiple_of(3) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let mut left = self.steps[self.i.checked_rem(self.steps.len()).unwrap()];
            let mut total = 0usize;
            for buf in bufs {
                let n = left.min(buf.len()).min(self.data.len());
                buf[..n].copy_from_slice(&self.data[..n]);
                self.data = &self.data[n..];
                left = left.saturating_sub(n);
                total = total.saturating_add(n);
            }
            Ok(total)
        }
    }

    /// The SEIPD body of `feed`'s literal packet, chunk size octet `c`, on `threads` threads.
    fn seipd_body(
        c: u8,
        threads: usize,
        feed: impl FnOnce(SeipdWriter<Vec<u8>>) -> SeipdWriter<Vec<u8>>,
    ) -> Vec<u8> {
        use crate::crypto::secret::SessionKey;
        use crate::types::{AeadAlgorithm, SymmetricAlgorithm};
        let key = SessionKey::from_bytes(&[0x42; 16]);
        let mut w =
            SeipdWriter::new(Vec::new(), &key, SymmetricAlgorithm::Aes128, AeadAlgorithm::Ocb, c, [7; 32])
                .unwrap();
        w.set_threads(threads);
        feed(w).finish().unwrap()
    }

    /// The in-place writer gives the ciphertext of `LiteralWriter` (the reference framing)
    /// for bodies ending at and around part and chunk boundaries, whether the data comes by
    /// `write` in any split or by `copy_from` with short and interrupted reads, with writes
    /// before and after it; with chunks shorter than a part (the open part then spans
    /// several held chunks) and longer.
    #[test]
    fn chunk_writer_matches_the_reference_framing() {
        let header = LiteralHeader { format: DataFormat::Binary, filename: b"x".to_vec(), date: 7 };
        let fields = header.encoded_len();
        let data: Vec<u8> =
            (0..3 * PART_LEN + 99).map(|i| (i.wrapping_mul(7) ^ (i >> 8)).to_le_bytes()[0]).collect();
        let mut lens = vec![0, 1, 2, 100, 4095, 4096, 4097];
        for k in 1..=3 {
            for d in [-2isize, -1, 0, 1] {
                lens.push((k * PART_LEN - fields).saturating_add_signed(d));
            }
        }
        lens.push(data.len());
        for c in [6u8, 12, 16] {
            for &len in &lens {
                let plain = &data[..len];
                let reference = seipd_body(c, 1, |w| {
                    let mut l = LiteralWriter::new(w, &header).unwrap();
                    l.write_all(plain).unwrap();
                    l.finish().unwrap()
                });
                for (threads, split) in [(1, usize::MAX), (2, 1000), (3, 65_537)] {
                    let body = seipd_body(c, threads, |w| {
                        let mut l = LiteralChunkWriter::new(w, &header).unwrap();
                        for piece in plain.chunks(split) {
                            l.write_all(piece).unwrap();
                        }
                        l.finish().unwrap()
                    });
                    assert!(body == reference, "write: c {c} len {len} split {split}");
                }
                let head = len.min(5);
                let (a, rest) = plain[head..].split_at((len - head) / 2);
                let steps: [&[usize]; 5] =
                    [&[usize::MAX], &[1, 7, 300], &[PART_LEN, 1], &[PART_LEN + 1], &[3 * PART_LEN + 2, 5]];
                for (steps, vectored) in steps.into_iter().flat_map(|s| [(s, false), (s, true)]) {
                    let body = seipd_body(c, 2, |w| {
                        let mut l = LiteralChunkWriter::new(w, &header).unwrap();
                        l.write_all(&plain[..head]).unwrap();
                        assert_eq!(
                            l.copy_from(&mut Uneven { data: a, steps, i: 0, vectored }).unwrap(),
                            a.len() as u64
                        );
                        assert_eq!(l.copy_from(&mut Uneven { data: &[], steps, i: 0, vectored }).unwrap(), 0);
                        let (b, tail) = rest.split_at(rest.len() / 2);
                        assert_eq!(
                            l.copy_from(&mut Uneven { data: b, steps, i: 1, vectored }).unwrap(),
                            b.len() as u64
                        );
                        l.write_all(tail).unwrap();
                        l.finish().unwrap()
                    });
                    assert!(
                        body == reference,
                        "copy_from: c {c} len {len} steps {steps:?} vectored {vectored}"
                    );
                }
            }
        }
    }

    /// A source that claims more octets than it was given is refused, not trusted.
    #[test]
    fn chunk_writer_refuses_an_overstated_read() {
        struct Liar;
        impl Read for Liar {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                Ok(out.len() + 1)
            }
        }
        let header = LiteralHeader { format: DataFormat::Binary, filename: Vec::new(), date: 0 };
        let _ = seipd_body(16, 1, |w| {
            let mut l = LiteralChunkWriter::new(w, &header).unwrap();
            let err = l.copy_from(&mut Liar).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidData);
            l.finish().unwrap()
        });
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
