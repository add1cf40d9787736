//! Random access through a data packet's body framing (RFC 9580 §4.2.1.4): where the octet at
//! a given offset of the body sits in the container, found by reading length headers only.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-4.2.1.4>

use crate::error::{Error, Result};
use crate::packet::header::{self, BodyLength};

/// A source of octets at any offset: a seekable file, or plaintext decrypted on demand.
pub(crate) trait ReadAt {
    /// Fills `buf` with the octets at `offset`.
    ///
    /// # Errors
    /// `Truncated` if the source ends first; the source's own errors.
    fn read_exact_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()>;
}

/// Checkpoints kept at most: when there would be more, every other one goes, so that memory
/// stays bounded whatever the number of parts, and a lookup walks at most `stride` parts from
/// the checkpoint before it.
const MAX_MARKS: usize = 4096;

/// One part of the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Part {
    /// Its number in the body, from 0.
    number: u64,
    /// Offset of its first octet in the body.
    body: u64,
    /// Offset of its first octet in the container.
    at: u64,
    /// Its length in octets.
    len: u64,
    /// Whether its length was fixed (the body's last part).
    last: bool,
}

impl Part {
    fn body_end(&self) -> Result<u64> {
        self.body.checked_add(self.len).ok_or(Error::malformed("packet body: offsets overflow"))
    }

    fn end(&self) -> Result<u64> {
        self.at.checked_add(self.len).ok_or(Error::malformed("packet body: offsets overflow"))
    }
}

/// The parts of one data packet's body as far as they have been read, with checkpoints.
///
/// A body with a fixed length is one part and needs no reads. With partial lengths, the
/// headers are read forward as far as a lookup needs (never the data between them), and
/// every `stride`-th part is kept as a checkpoint for lookups behind the furthest one read.
#[derive(Debug)]
pub(crate) struct PartIndex {
    marks: Vec<Part>,
    stride: u64,
    /// The furthest part read.
    frontier: Part,
}

impl PartIndex {
    /// The body whose first length is `first` (from the packet header); its first octet is at
    /// `at` in the container.
    pub(crate) fn new(at: u64, first: BodyLength) -> Self {
        let (len, last) = match first {
            BodyLength::Fixed(n) => (u64::from(n), true),
            BodyLength::Partial(n) => (u64::from(n), false),
        };
        let part = Part { number: 0, body: 0, at, len, last };
        Self { marks: vec![part], stride: 1, frontier: part }
    }

    /// The part after `part`, from the length header at its end.
    fn next(src: &mut impl ReadAt, part: &Part) -> Result<Part> {
        let at = part.end()?;
        let mut octets = [0u8; 5];
        let (first, rest) = octets.split_first_mut().ok_or(Error::Internal("length octets"))?;
        src.read_exact_at(at, std::slice::from_mut(first))?;
        let more = match *first {
            192..=223 => 1,
            255 => 4,
            _ => 0,
        };
        let rest = rest.get_mut(..more).ok_or(Error::Internal("length octets"))?;
        let next_at = at.checked_add(1).ok_or(Error::malformed("packet body: offsets overflow"))?;
        src.read_exact_at(next_at, rest)?;
        let header_len = more.saturating_add(1);
        let length = header::read_length(&mut octets.get(..header_len).unwrap_or_default(), true)?;
        let (len, last) = match length {
            BodyLength::Fixed(n) => (u64::from(n), true),
            BodyLength::Partial(n) => (u64::from(n), false),
        };
        let data_at = at
            .checked_add(u64::try_from(header_len).map_err(|_| Error::Internal("length octets"))?)
            .ok_or(Error::malformed("packet body: offsets overflow"))?;
        let number = part.number.checked_add(1).ok_or(Error::malformed("packet body: too many parts"))?;
        Ok(Part { number, body: part.body_end()?, at: data_at, len, last })
    }

    /// Keeps `part` (just read past the frontier) as the frontier, and as a checkpoint if its
    /// number is a multiple of the stride.
    fn advance(&mut self, part: Part) {
        self.frontier = part;
        if part.number.checked_rem(self.stride) != Some(0) {
            return;
        }
        if self.marks.len() >= MAX_MARKS {
            let stride = self.stride.saturating_mul(2);
            self.marks.retain(|m| m.number.checked_rem(stride) == Some(0));
            self.stride = stride;
            if part.number.checked_rem(stride) != Some(0) {
                return;
            }
        }
        self.marks.push(part);
    }

    /// The part holding body offset `pos`, or `None` if the body ends at or before it.
    fn find(&mut self, src: &mut impl ReadAt, pos: u64) -> Result<Option<Part>> {
        let mut part = if pos >= self.frontier.body {
            self.frontier
        } else {
            let i = self.marks.partition_point(|m| m.body <= pos).saturating_sub(1);
            *self.marks.get(i).ok_or(Error::Internal("part index"))?
        };
        loop {
            if pos < part.body_end()? {
                return Ok(Some(part));
            }
            if part.last {
                return Ok(None);
            }
            part = Self::next(src, &part)?;
            if part.number > self.frontier.number {
                self.advance(part);
            }
        }
    }

    /// Where body offset `pos` is in the container, and how many octets of the body follow
    /// it there without a length header in between; `None` at or after the end of the body.
    ///
    /// # Errors
    /// `Truncated` if the container ends within the framing; `Malformed` for a partial
    /// length where none may be, or offsets that overflow; the source's errors.
    pub(crate) fn locate(&mut self, src: &mut impl ReadAt, pos: u64) -> Result<Option<(u64, u64)>> {
        let Some(part) = self.find(src, pos)? else { return Ok(None) };
        let into = pos.checked_sub(part.body).ok_or(Error::Internal("part index"))?;
        let at = part.at.checked_add(into).ok_or(Error::malformed("packet body: offsets overflow"))?;
        Ok(Some((at, part.len.saturating_sub(into))))
    }

    /// The body's length, and the container offset just after it; reads the rest of the
    /// framing the first time.
    ///
    /// # Errors
    /// As [`locate`](Self::locate).
    pub(crate) fn end(&mut self, src: &mut impl ReadAt) -> Result<(u64, u64)> {
        while !self.frontier.last {
            let part = Self::next(src, &self.frontier)?;
            self.advance(part);
        }
        Ok((self.frontier.body_end()?, self.frontier.end()?))
    }

    /// Fills `buf` with the body octets from `pos`.
    ///
    /// # Errors
    /// `Truncated` if the body or the container ends first; as [`locate`](Self::locate).
    pub(crate) fn read_exact(
        &mut self,
        src: &mut impl ReadAt,
        mut pos: u64,
        mut buf: &mut [u8],
    ) -> Result<()> {
        while !buf.is_empty() {
            let (at, left) = self.locate(src, pos)?.ok_or(Error::Truncated("packet body"))?;
            let n = usize::try_from(left).unwrap_or(usize::MAX).min(buf.len());
            let (now, rest) = buf.split_at_mut(n);
            src.read_exact_at(at, now)?;
            pos = pos
                .checked_add(u64::try_from(n).map_err(|_| Error::Internal("part index"))?)
                .ok_or(Error::malformed("packet body: offsets overflow"))?;
            buf = rest;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "offsets of test packets of at most a few hundred KiB"
)]
mod tests {
    use super::*;
    use crate::packet::header::{Header, Tag};
    use crate::packet::partial::PartialBodyWriter;
    use std::io::Write;

    impl ReadAt for &[u8] {
        fn read_exact_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<()> {
            let start = usize::try_from(offset).unwrap();
            let src = self.get(start..start + buf.len()).ok_or(Error::Truncated("test"))?;
            buf.copy_from_slice(src);
            Ok(())
        }
    }

    fn framed(data: &[u8], split: usize) -> Vec<u8> {
        let mut w = PartialBodyWriter::new(Vec::new(), Tag::LiteralData);
        for piece in data.chunks(split) {
            w.write_all(piece).unwrap();
        }
        w.finish().unwrap()
    }

    /// Every offset, looked up in any order, finds its octet; checkpoints are thinned but
    /// lookups behind the frontier still work; the end is the body's length.
    #[test]
    fn every_offset_maps_to_its_octet() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        for split in [700, 70_000] {
            let packet = framed(&data, split);
            let mut src = &packet[..];
            let mut r = &packet[..];
            let header = Header::read_from(&mut r).unwrap().unwrap();
            let at = (packet.len() - r.len()) as u64;
            let mut index = PartIndex::new(at, header.length);
            for pos in (0..data.len() as u64).rev().step_by(997).chain((0..data.len() as u64).step_by(1231)) {
                let (off, left) = index.locate(&mut src, pos).unwrap().unwrap();
                assert_eq!(packet[off as usize], data[pos as usize], "{pos}");
                assert!(left >= 1);
            }
            assert_eq!(index.locate(&mut src, data.len() as u64).unwrap(), None);
            assert_eq!(index.end(&mut src).unwrap(), (data.len() as u64, packet.len() as u64));
            let mut out = vec![0u8; 5000];
            index.read_exact(&mut src, 100_000, &mut out).unwrap();
            assert_eq!(out, data[100_000..105_000]);
        }
    }

    /// Many tiny parts: the checkpoints stay bounded and lookups stay right.
    #[test]
    fn checkpoints_are_bounded() {
        // A first part of 512, then parts of one octet, then a fixed end.
        let mut packet = vec![0xc0 | 11, 0xe9];
        packet.extend(std::iter::repeat_n(7u8, 512));
        let n = 3 * MAX_MARKS;
        for i in 0..n {
            packet.extend([0xe0, (i % 256) as u8]);
        }
        packet.extend([3, 1, 2, 3]);
        let mut src = &packet[..];
        let mut index = PartIndex::new(2, BodyLength::Partial(512));
        let (len, end) = index.end(&mut src).unwrap();
        assert_eq!((len, end), ((512 + n + 3) as u64, packet.len() as u64));
        assert!(index.marks.len() <= MAX_MARKS);
        for i in (0..n).step_by(313) {
            let (off, left) = index.locate(&mut src, 512 + i as u64).unwrap().unwrap();
            assert_eq!((packet[off as usize], left), ((i % 256) as u8, 1));
        }
    }

    /// A header past the end of the container is `Truncated`, never another octet.
    #[test]
    fn truncated_framing_fails() {
        let data = vec![1u8; 300_000];
        let packet = framed(&data, 70_000);
        // Into the data of the part before the last: the last part's header is missing.
        let cut = &packet[..packet.len() - 40_000];
        let mut src = cut;
        let mut r = cut;
        let header = Header::read_from(&mut r).unwrap().unwrap();
        let mut index = PartIndex::new((cut.len() - r.len()) as u64, header.length);
        assert!(matches!(index.end(&mut src), Err(Error::Truncated(_))));
    }
}
