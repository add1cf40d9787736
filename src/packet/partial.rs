//! Streaming data-packet bodies with partial body lengths (RFC 9580 §4.2.1.4).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-4.2.1.4>
//!
//! [`PartialBodyReader`] reads one data packet's body, following the chain of partial lengths;
//! [`PartialBodyWriter`] writes one, in parts of a power of two: a fixed one for what it
//! buffers, up to a larger one for what is written through it.

use std::io::{self, BufRead, Read, Write};

use crate::crypto::secret::SecretVec;
use crate::error::{Error, Poison, Result};
use crate::packet::header::{self, BodyLength, Header, Tag};

mod index;

pub(crate) use index::{PartIndex, ReadAt};

/// `Read`/`BufRead` over one data packet's body.
///
/// A fixed length yields exactly that many octets and then EOF; a partial length is followed by
/// further lengths until a fixed one ends the body. If the inner reader ends first, reading fails
/// with [`Error::Truncated`] (`UnexpectedEof`), never with EOF.
#[derive(Debug)]
pub(crate) struct PartialBodyReader<R: BufRead> {
    inner: R,
    /// Octets left in the current part.
    remaining: u32,
    /// The current part is the last one (its length was fixed).
    last: bool,
    /// The first octet of the next length, read with the end of the current part (see
    /// `read`).
    ahead: Option<u8>,
    /// The first error, reported again by every later call.
    poison: Poison,
}

impl<R: BufRead> PartialBodyReader<R> {
    /// Reads the body whose first length is `first` (from the packet header), from `inner`,
    /// which is positioned just after that header.
    pub(crate) fn new(inner: R, first: BodyLength) -> Self {
        let (remaining, last) = match first {
            BodyLength::Fixed(n) => (n, true),
            BodyLength::Partial(n) => (n, false),
        };
        Self { inner, remaining, last, ahead: None, poison: Poison::default() }
    }

    /// The inner reader. After EOF it is positioned just after the packet.
    pub(crate) fn into_inner(self) -> R {
        self.inner
    }

    /// The inner reader. After EOF it is positioned just after the packet.
    pub(crate) fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Makes sure the current part has octets left, reading the next length if needed.
    /// `Ok(false)` at the end of the body.
    fn ensure_part(&mut self) -> io::Result<bool> {
        while self.remaining == 0 {
            if self.last {
                return Ok(false);
            }
            let first = self.ahead.take();
            let length = match first {
                Some(octet) => header::read_length(&mut [octet].as_slice().chain(&mut self.inner), true),
                None => header::read_length(&mut self.inner, true),
            };
            match length {
                Ok(BodyLength::Fixed(n)) => {
                    self.remaining = n;
                    self.last = true;
                }
                Ok(BodyLength::Partial(n)) => self.remaining = n,
                Err(Error::Truncated(_)) => return Err(Error::Truncated("packet body").into()),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(true)
    }

    fn fill_inner(&mut self) -> io::Result<usize> {
        self.poison.check_io()?;
        let result = self.ensure_part().and_then(|more| {
            if !more {
                return Ok(0);
            }
            loop {
                match self.inner.fill_buf() {
                    Ok([]) => return Err(Error::Truncated("packet body").into()),
                    Ok(buf) => {
                        let cap = usize::try_from(self.remaining).unwrap_or(usize::MAX);
                        return Ok(buf.len().min(cap));
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        });
        result.map_err(|e| self.poison.set_io(e))
    }
}

impl<R: BufRead> BufRead for PartialBodyReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let n = self.fill_inner()?;
        if n == 0 {
            return Ok(&[]);
        }
        let buf = self.inner.fill_buf()?;
        Ok(buf.get(..n).unwrap_or(buf))
    }

    fn consume(&mut self, amt: usize) {
        let amt32 = u32::try_from(amt).unwrap_or(u32::MAX).min(self.remaining);
        self.remaining = self.remaining.saturating_sub(amt32);
        self.inner.consume(usize::try_from(amt32).unwrap_or(0));
    }
}

impl<R: BufRead> Read for PartialBodyReader<R> {
    /// Reads through the inner reader's `read`, so that a large read into an empty
    /// `BufReader` goes straight into `out` (no copy through its buffer).
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        self.poison.check_io()?;
        let more = self.ensure_part().map_err(|e| self.poison.set_io(e))?;
        if !more {
            return Ok(0);
        }
        let remaining = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        let cap = remaining.min(out.len());
        let dst = out.get_mut(..cap).unwrap_or_default();
        // A read to the end of a part that another follows also takes the first octet of the
        // next length: a source with an empty buffer (a `BufReader`) is then read straight
        // into `out` part after part, where reading the length by itself would refill its
        // buffer, and the next part's first octets would be copied out of it.
        let mut next = [0u8; 1];
        let take_ahead = cap == remaining && !self.last;
        let n = loop {
            let result = if take_ahead {
                self.inner.read_vectored(&mut [io::IoSliceMut::new(dst), io::IoSliceMut::new(&mut next)])
            } else {
                self.inner.read(dst)
            };
            match result {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Ok(0) => return Err(self.poison.set(Error::Truncated("packet body")).into()),
                Ok(n) => break n,
                Err(e) => return Err(self.poison.set_io(e)),
            }
        };
        if n > cap {
            self.ahead = Some(next[0]);
        }
        let n = n.min(cap);
        let n32 = u32::try_from(n).unwrap_or(u32::MAX).min(self.remaining);
        self.remaining = self.remaining.saturating_sub(n32);
        Ok(n)
    }
}

/// The default part length exponent: parts of 2^16 octets.
pub(crate) const DEFAULT_PART_EXP: u8 = 16;

/// The largest part exponent a SEIPD packet's framing uses for data written through it:
/// parts of 2^18 octets, a default chunk (256 KiB), so that a reader takes a chunk and its
/// tag in two reads rather than five parts of 2^16.
pub(crate) const SEIPD_MAX_PART_EXP: u8 = 18;

/// `Write` adapter that frames its input as one data packet with partial body lengths.
///
/// Output is cut into parts of `2^exp` octets; `finish` writes the final part with a fixed
/// length (possibly 0). A body that never filled one part is written as an ordinary
/// fixed-length packet. Writes of a whole part or more go straight through without copying,
/// as parts of the largest power of two they hold, up to `2^max_exp` octets (`exp` unless
/// set). Dropping without `finish` does no I/O; the packet is then incomplete.
#[derive(Debug)]
#[must_use = "call finish() to end the packet"]
pub(crate) struct PartialBodyWriter<W: Write> {
    inner: W,
    tag: Tag,
    /// Parts made of buffered octets are 2^`exp` long, the buffer's capacity.
    exp: u8,
    /// Parts of octets written through are at most 2^`max_exp` long.
    max_exp: u8,
    /// Buffered octets of the current part; never reaches `part_len` between calls. It may
    /// hold plaintext (literal data), hence the zeroizing buffer allocated once.
    buf: SecretVec,
    header_written: bool,
    /// For a packet written with a fixed length: the octets still to come.
    fixed: Option<u32>,
    /// The first error, reported again by every later call.
    poison: Poison,
}

impl<W: Write> PartialBodyWriter<W> {
    /// A writer for a packet of type `tag` with parts of 2^[`DEFAULT_PART_EXP`] octets.
    pub(crate) fn new(inner: W, tag: Tag) -> Self {
        Self::with_part_exp(inner, tag, DEFAULT_PART_EXP)
    }

    /// A writer with parts of `2^exp` octets; `exp` is clamped to 9..=30 (512 octets is the
    /// smallest first part the RFC allows, 2^30 the largest encodable).
    fn with_part_exp(inner: W, tag: Tag, exp: u8) -> Self {
        let exp = exp.clamp(9, 30);
        Self {
            inner,
            tag,
            exp,
            max_exp: exp,
            buf: SecretVec::with_capacity(1usize << exp),
            header_written: false,
            fixed: None,
            poison: Poison::default(),
        }
    }

    /// A writer for a packet of type `tag` whose body is `len` octets, known in advance: one
    /// fixed length in the header, which a reader can skip over without reading the body
    /// (what a seeking reader needs). Writing more than `len` octets, or finishing with fewer,
    /// is an error.
    ///
    /// # Errors
    /// I/O errors of `inner`, which the header is written to at once.
    pub(crate) fn fixed(mut inner: W, tag: Tag, len: u32) -> Result<Self> {
        Header { tag, length: BodyLength::Fixed(len) }.write_to(&mut inner)?;
        Ok(Self {
            inner,
            tag,
            exp: 9,
            max_exp: 9,
            buf: SecretVec::default(),
            header_written: true,
            fixed: Some(len),
            poison: Poison::default(),
        })
    }

    /// Writes `data` through as fixed-length body octets.
    fn write_fixed(&mut self, left: u32, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        let n = u32::try_from(data.len()).unwrap_or(u32::MAX).min(left);
        if n == 0 {
            return Err(Error::InvalidArgument("packet body longer than its fixed length").into());
        }
        let n = self.inner.write(data.get(..usize::try_from(n).unwrap_or(0)).unwrap_or_default())?;
        let n32 = u32::try_from(n).unwrap_or(u32::MAX).min(left);
        self.fixed = Some(left.saturating_sub(n32));
        Ok(n)
    }

    /// Lets octets written through go out in parts of up to 2^`max_exp` octets (at most 2^30,
    /// at least the buffered parts' length): fewer parts for a reader to read one by one.
    pub(crate) fn with_max_part_exp(mut self, max_exp: u8) -> Self {
        self.max_exp = max_exp.clamp(self.exp, 30);
        self
    }

    fn part_len(&self) -> usize {
        1usize << self.exp
    }

    /// The exponent of the part to write next: of the buffered parts while octets are
    /// buffered, else of the largest power of two in `available` octets, within `exp..=max_exp`.
    fn next_part_exp(&self, available: usize) -> u8 {
        if !self.buf.is_empty() {
            return self.exp;
        }
        let largest = available.checked_ilog2().map_or(0, |e| u8::try_from(e).unwrap_or(u8::MAX));
        largest.clamp(self.exp, self.max_exp)
    }

    /// Writes one full part of 2^`exp` octets: the packet's first octet if not yet written,
    /// the partial length octet, then the buffered octets ‖ `a` ‖ `b` (together exactly one
    /// part long), and empties the buffer.
    fn emit_part(&mut self, exp: u8, a: &[u8], b: &[u8]) -> io::Result<()> {
        // The packet's first octet before the first part, then the part's length octet.
        let length = 0xe0 | exp;
        let (head, head_len) =
            if self.header_written { ([length, 0], 1) } else { ([0xc0 | u8::from(self.tag), length], 2) };
        self.header_written = true;
        // One vectored write: a large part passes a small `BufWriter` in one system call.
        let mut slices = [
            io::IoSlice::new(head.get(..head_len).unwrap_or_default()),
            io::IoSlice::new(&self.buf),
            io::IoSlice::new(a),
            io::IoSlice::new(b),
        ];
        write_all_vectored(&mut self.inner, &mut slices)?;
        self.buf.clear();
        Ok(())
    }

    /// Writes every whole part that the buffered octets ‖ `a` ‖ `b` make and returns the
    /// octets of `a` ‖ `b` taken: all of them, buffered, if they do not complete a part;
    /// otherwise what the parts hold, and the rest (shorter than a part) is left to the
    /// caller, who can pass it again with the data that follows instead of having it copied.
    fn write_parts(&mut self, a: &[u8], b: &[u8]) -> io::Result<usize> {
        let part_len = self.part_len();
        let total = a.len().saturating_add(b.len());
        if self.buf.len().saturating_add(total) < part_len {
            self.buf.extend_from_slice(a);
            self.buf.extend_from_slice(b);
            return Ok(total);
        }
        let mut taken = 0usize;
        loop {
            let exp = self.next_part_exp(total.saturating_sub(taken));
            let need = (1usize << exp).saturating_sub(self.buf.len());
            let end = taken.saturating_add(need);
            if end > total {
                return Ok(taken);
            }
            // Octets `taken..end` of `a` ‖ `b`.
            let from_a = a.get(taken.min(a.len())..end.min(a.len())).unwrap_or_default();
            let from_b = b
                .get(taken.saturating_sub(a.len())..end.saturating_sub(a.len()))
                .ok_or_else(|| io::Error::from(Error::poisoned()))?;
            self.emit_part(exp, from_a, from_b)?;
            taken = end;
        }
    }

    /// Ends the packet: the final part with a fixed length (or, if no part was written, a
    /// fixed-length packet), then flushes and returns the inner writer.
    ///
    /// # Errors
    /// I/O errors of the inner writer, or an earlier error.
    pub(crate) fn finish(mut self) -> Result<W> {
        self.poison.check()?;
        if let Some(left) = self.fixed {
            if left != 0 {
                return Err(Error::InvalidArgument("packet body shorter than its fixed length"));
            }
            self.inner.flush()?;
            return Ok(self.inner);
        }
        let len = u32::try_from(self.buf.len()).map_err(|_| Error::InvalidArgument("part too long"))?;
        if self.header_written {
            header::write_fixed_length(len, &mut self.inner)?;
        } else {
            Header { tag: self.tag, length: BodyLength::Fixed(len) }.write_to(&mut self.inner)?;
        }
        self.inner.write_all(&self.buf)?;
        self.buf.clear();
        self.inner.flush()?;
        Ok(self.inner)
    }
}

/// `Write::write_all_vectored` (not stable yet): writes every slice, in order.
fn write_all_vectored(w: &mut impl Write, mut slices: &mut [io::IoSlice<'_>]) -> io::Result<()> {
    io::IoSlice::advance_slices(&mut slices, 0);
    while !slices.is_empty() {
        match w.write_vectored(slices) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => io::IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl<W: Write> Write for PartialBodyWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.poison.check_io()?;
        if data.is_empty() {
            return Ok(0);
        }
        let result = match self.fixed {
            Some(left) => self.write_fixed(left, data),
            None => self.write_parts(data, &[]),
        };
        result.map_err(|e| self.poison.set_io(e))
    }

    /// Takes the first two non-empty slices as one, and like `write` leaves the octets after
    /// the last whole part to the caller when there is a whole part (see `write_parts`).
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.poison.check_io()?;
        let mut nonempty = bufs.iter().filter(|b| !b.is_empty());
        let a = nonempty.next().map_or(&[][..], |b| &b[..]);
        let b = nonempty.next().map_or(&[][..], |b| &b[..]);
        let result = match self.fixed {
            Some(left) => self.write_fixed(left, a),
            None => self.write_parts(a, b),
        };
        result.map_err(|e| self.poison.set_io(e))
    }

    /// Flushes the inner writer. Buffered octets stay until a part is full or `finish`.
    fn flush(&mut self) -> io::Result<()> {
        self.poison.check_io()?;
        self.inner.flush()
    }
}

/// The exponents of a framed packet's partial parts (its header is one octet), for tests;
/// checks that the final length ends the packet.
#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing, reason = "a test packet of a few KiB")]
pub(crate) fn part_exps(framed: &[u8]) -> Vec<u8> {
    let mut exps = Vec::new();
    let mut i = 1;
    while framed[i] >= 0xe0 {
        let exp = framed[i] & 0x1f;
        exps.push(exp);
        i += 1 + (1usize << exp);
    }
    let (len, octets) = match framed[i] {
        first @ 0..192 => (usize::from(first), 1),
        255 => (u32::from_be_bytes(framed[i + 1..i + 5].try_into().unwrap()) as usize, 5),
        first => (((usize::from(first) - 192) << 8) + usize::from(framed[i + 1]) + 192, 2),
    };
    assert_eq!(i + octets + len, framed.len());
    exps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(data: &[u8], exp: u8, split: usize) -> Vec<u8> {
        let mut w = PartialBodyWriter::with_part_exp(Vec::new(), Tag::LiteralData, exp);
        for piece in data.chunks(split.max(1)) {
            w.write_all(piece).unwrap();
        }
        w.finish().unwrap()
    }

    fn unframe(bytes: &[u8]) -> Result<Vec<u8>> {
        let mut src = bytes;
        let header = Header::read_from(&mut src)?.unwrap();
        assert_eq!(header.tag, Tag::LiteralData);
        let mut r = PartialBodyReader::new(src, header.length);
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
        assert!(r.into_inner().is_empty(), "reader must stop at the end of the packet");
        Ok(out)
    }

    #[test]
    fn round_trip_sizes_and_splits() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        for len in [0, 1, 100, 511, 512, 513, 1023, 1024, 1025, 2047, 4096, 5000] {
            let reference = frame(&data[..len], 9, len.max(1));
            for split in [1, 7, 511, 512, 513, 4096] {
                let framed = frame(&data[..len], 9, split);
                assert_eq!(framed, reference, "len {len} split {split}");
                assert_eq!(unframe(&framed).unwrap(), &data[..len]);
            }
        }
        // Larger parts, and a short body becomes a fixed-length packet.
        let framed = frame(&data, 12, 100);
        assert_eq!(unframe(&framed).unwrap(), data);
        assert_eq!(frame(b"abc", 9, 3), [0xcb, 3, b'a', b'b', b'c']);
        assert_eq!(frame(b"", 9, 1), [0xcb, 0]);
    }

    /// Writes `data` in pieces of `split` octets as `SeipdWriter` does with held tails: each
    /// piece in vectored writes behind the rest the writer left of the one before, until the
    /// writer has taken that rest; checks that what it leaves is less than a part (2^9
    /// here), with nothing buffered. Then finishes the packet.
    #[allow(clippy::arithmetic_side_effects, reason = "lengths of a test packet of a few KiB")]
    fn write_leaving_rest(mut w: PartialBodyWriter<Vec<u8>>, data: &[u8], split: usize) -> Vec<u8> {
        let mut rest: &[u8] = &[];
        for piece in data.chunks(split) {
            let (mut a, mut b) = (rest, piece);
            loop {
                let offered = a.len() + b.len();
                let n = w.write_vectored(&[io::IoSlice::new(a), io::IoSlice::new(b)]).unwrap();
                assert!(n > 0 && n <= offered, "split {split}: took {n} of {offered}");
                if n < offered {
                    assert!(w.buf.is_empty(), "split {split}: parts written, nothing buffered");
                    assert!(offered - n < 512, "split {split}: {} left, a whole part", offered - n);
                }
                let from_a = n.min(a.len());
                a = &a[from_a..];
                b = &b[n - from_a..];
                if a.is_empty() {
                    break;
                }
            }
            rest = b;
        }
        w.write_all(rest).unwrap();
        w.finish().unwrap()
    }

    /// `write_vectored` writes the whole parts that the buffered octets and its slices make
    /// and leaves the rest (shorter than a part) to the caller, or buffers everything when no
    /// part is complete; a caller that passes the rest again in front of what follows (as
    /// `SeipdWriter` does) writes the same packet as `write_all` of the same data.
    #[test]
    fn vectored_writes_leave_the_rest_to_the_caller() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let reference = frame(&data, 9, data.len());
        for split in [1, 100, 511, 512, 513, 1500, 5000] {
            let w = PartialBodyWriter::with_part_exp(Vec::new(), Tag::LiteralData, 9);
            assert_eq!(write_leaving_rest(w, &data, split), reference, "split {split}");
        }
    }

    /// With a larger `max_exp`, octets written through go out in parts of the largest power
    /// of two they hold, up to 2^`max_exp`; buffered octets in parts of 2^`exp`; the rest
    /// that vectored writes leave to the caller is still shorter than 2^`exp`.
    #[test]
    fn parts_written_through_grow_to_the_largest() {
        let data: Vec<u8> = (0..9000u32).map(|i| (i % 251) as u8).collect();
        let framed = |max_exp: u8, split: usize| {
            let mut w =
                PartialBodyWriter::with_part_exp(Vec::new(), Tag::LiteralData, 9).with_max_part_exp(max_exp);
            for piece in data.chunks(split) {
                w.write_all(piece).unwrap();
            }
            w.finish().unwrap()
        };
        // 9000 = 4096 + 4096 + 512 + 296 with parts up to 2^12, 2048 × 4 + 512 + 296 up to 2^11.
        assert_eq!(part_exps(&framed(12, data.len())), [12, 12, 9]);
        assert_eq!(part_exps(&framed(11, data.len())), [11, 11, 11, 11, 9]);
        assert_eq!(part_exps(&framed(30, data.len())), [13, 9]);
        // Small writes are buffered: parts of 2^9 only.
        assert_eq!(part_exps(&framed(12, 100)), [9; 17]);
        // Writes of 3000: 2048 through, 952 of which 512 through and 440 buffered, and so on.
        let mixed = framed(12, 3000);
        assert!(part_exps(&mixed).iter().all(|e| (9..=12).contains(e)));
        assert!(part_exps(&mixed).contains(&11));
        for max_exp in [9, 11, 12, 30] {
            for split in [1, 100, 511, 512, 3000, 9000] {
                assert_eq!(unframe(&framed(max_exp, split)).unwrap(), data, "max {max_exp} split {split}");
                let w = PartialBodyWriter::with_part_exp(Vec::new(), Tag::LiteralData, 9)
                    .with_max_part_exp(max_exp);
                let framed = write_leaving_rest(w, &data, split);
                assert!(part_exps(&framed).iter().all(|e| (9..=max_exp).contains(e)));
                assert_eq!(unframe(&framed).unwrap(), data, "vectored, max {max_exp} split {split}");
            }
        }
    }

    #[test]
    fn structure_of_parts() {
        let framed = frame(&[7u8; 1025], 9, 1025);
        // ctb, 2^9 part, 2^9 part, fixed length 1.
        assert_eq!(framed[0], 0xcb);
        assert_eq!(framed[1], 0xe9);
        assert_eq!(framed[2 + 512], 0xe9);
        assert_eq!(&framed[2 + 512 + 1 + 512..], &[1, 7]);
        // An exact multiple ends with an empty fixed part.
        let framed = frame(&[7u8; 1024], 9, 1);
        assert_eq!(framed.last(), Some(&0));
    }

    #[test]
    fn byte_reads_match() {
        let data: Vec<u8> = (0..3000u32).map(|i| (i % 7) as u8).collect();
        let framed = frame(&data, 9, 333);
        let mut src = &framed[..];
        let header = Header::read_from(&mut src).unwrap().unwrap();
        let mut r = PartialBodyReader::new(src, header.length);
        let mut out = Vec::new();
        let mut byte = [0u8; 1];
        while r.read(&mut byte).unwrap() == 1 {
            out.push(byte[0]);
        }
        assert_eq!(out, data);
    }

    #[test]
    fn every_truncation_fails() {
        let data: Vec<u8> = (0..1300u32).map(|i| i.to_le_bytes()[0]).collect();
        let framed = frame(&data, 9, 1300);
        for cut in 2..framed.len() {
            let r = unframe(&framed[..cut]);
            assert!(matches!(r, Err(Error::Truncated(_))), "cut at {cut}: {r:?}");
        }
        assert_eq!(unframe(&framed).unwrap(), data);
    }

    /// A source that counts the calls made to it.
    struct Counted<'a>(&'a [u8], usize);

    impl Read for Counted<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.1 = self.1.saturating_add(1);
            self.0.read(buf)
        }

        fn read_vectored(&mut self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
            self.1 = self.1.saturating_add(1);
            self.0.read_vectored(bufs)
        }
    }

    /// Whole-part reads through a `BufReader` go to the source once per part (the next length's
    /// first octet comes with the end of each part, so the buffer is not refilled between
    /// parts), and mixing them with `fill_buf`/`consume` and short reads loses nothing, whatever
    /// the final length's encoding (one, two or five octets).
    #[test]
    fn reads_part_after_part_from_a_buffered_source() {
        let data: Vec<u8> = (0..40_000u32).map(|i| (i % 253) as u8).collect();
        for len in [512 * 20, 512 * 20 + 100, 512 * 20 + 300, 512 * 20 + 9000] {
            let framed = frame(&data[..len], 9, len);
            let (header_len, header) = {
                let mut src = &framed[..];
                let header = Header::read_from(&mut src).unwrap().unwrap();
                (framed.len() - src.len(), header)
            };
            let mut source = io::BufReader::with_capacity(64, Counted(&framed[header_len..], 0));
            // Empties the buffer the header would have left.
            assert_eq!(source.fill_buf().unwrap().len(), 64);
            let mut r = PartialBodyReader::new(&mut source, header.length);
            let mut out = Vec::new();
            let mut buf = [0u8; 512];
            loop {
                let n = r.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            assert_eq!(out, &data[..len], "len {len}");
            let calls = source.get_ref().1;
            let parts = len / 512 + 1;
            assert!(calls <= parts + 2, "len {len}: {calls} reads of the source for {parts} parts");

            // Whole parts, short reads and fill_buf/consume in turn.
            let mut r = PartialBodyReader::new(
                io::BufReader::with_capacity(64, &framed[header_len..]),
                header.length,
            );
            let mut out = Vec::new();
            for step in 0usize.. {
                let n = match step % 3 {
                    0 => r.read(&mut buf).unwrap(),
                    1 => r.read(&mut buf[..17]).unwrap(),
                    _ => {
                        let available = r.fill_buf().unwrap();
                        let n = available.len().min(100);
                        buf[..n].copy_from_slice(&available[..n]);
                        r.consume(n);
                        n
                    }
                };
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            assert_eq!(out, &data[..len], "len {len}, mixed");
            assert!(r.into_inner().fill_buf().unwrap().is_empty(), "stops at the end of the packet");
        }
    }

    #[test]
    fn poisoned_after_error_and_fixed_body() {
        let mut r = PartialBodyReader::new(&[1u8, 2][..], BodyLength::Fixed(3));
        let mut out = Vec::new();
        assert!(r.read_to_end(&mut out).is_err());
        assert!(r.read(&mut [0u8; 4]).is_err());
        let mut r = PartialBodyReader::new(&[1u8, 2, 3, 4][..], BodyLength::Fixed(3));
        let mut out = Vec::new();
        assert_eq!(r.read_to_end(&mut out).unwrap(), 3);
        assert_eq!(r.into_inner(), &[4]);
    }
}
