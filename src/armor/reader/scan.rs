//! The lines of an armored block around its body, read one at a time: detection, the BEGIN
//! line and the armor headers, the checksum and END lines; and what the body scanner of
//! [`ArmorReader`](super::ArmorReader) reads from (the text read ahead, then the source).

use std::io::{self, BufRead, Read};

use crate::armor::{ArmorKind, DASHES};
use crate::crypto::secret::SecretVec;
use crate::error::{Error, Limit, Result, Unsupported};

/// Base64 characters collected before decoding them in one block (a multiple of 4).
pub(super) const B64_CAP: usize = 32 * 1024;
/// The same for the first blocks: most armored data (a certificate, a key, a signature) is a
/// few KiB, and the buffers are zeroed when allocated and wiped when dropped.
pub(super) const SMALL_B64_CAP: usize = 4 * 1024;
/// Longest BEGIN or END line accepted, trailing whitespace included.
const MAX_MARKER_LINE_LEN: usize = 1024;

/// Text the body scanner reads before the source.
#[derive(Default)]
pub(super) struct Ahead {
    pub(super) text: SecretVec,
    pub(super) pos: usize,
    /// The error the source gave the threaded path, returned once `text` has been read.
    pub(super) error: Option<io::Error>,
}

/// The body's source for the one-line-at-a-time path: the text read ahead, then `inner`.
pub(super) struct Source<'a, R> {
    pub(super) ahead: &'a mut Ahead,
    pub(super) inner: &'a mut R,
}

impl<R: BufRead> Read for Source<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), available.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Source<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self.ahead.text.get(self.ahead.pos..) {
            Some(rest) if !rest.is_empty() => Ok(rest),
            _ => match self.ahead.error.take() {
                Some(e) => Err(e),
                None => self.inner.fill_buf(),
            },
        }
    }

    fn consume(&mut self, amount: usize) {
        // The same side as `fill_buf` served.
        if self.ahead.pos < self.ahead.text.len() {
            self.ahead.pos = self.ahead.pos.saturating_add(amount).min(self.ahead.text.len());
        } else {
            self.inner.consume(amount);
        }
    }
}

/// How [`read_line`] stopped.
#[derive(PartialEq, Eq)]
enum LineEnd {
    /// At an LF (not included in the line).
    Lf,
    /// At the end of the input.
    Eof,
}

/// What made the body scanner stop at the start of a line.
pub(super) enum Marker {
    /// `-`: the END line.
    End,
    /// `=` after complete base64 quads: the CRC24 line.
    Checksum,
}

/// Detects binary or armored input: skips leading whitespace and, for armor, reads the BEGIN
/// line and the armor headers (bounded by `header_len_limit` octets), up to the blank line
/// after them. Returns the armor kind, `None` for binary input (of which only the leading
/// whitespace is consumed). `line` is scratch space.
pub(super) fn read_armor_start<R: BufRead>(
    inner: &mut R,
    line: &mut Vec<u8>,
    header_len_limit: usize,
) -> Result<Option<ArmorKind>> {
    // Skip leading whitespace; then look at the first octet.
    let first = loop {
        let buf = fill_buf(inner)?;
        if buf.is_empty() {
            return Err(Error::Truncated("armor"));
        }
        let found = buf.iter().position(|b| !is_whitespace(*b)).and_then(|i| Some((i, *buf.get(i)?)));
        let skip = found.map_or(buf.len(), |(i, _)| i);
        inner.consume(skip);
        if let Some((_, first)) = found {
            break first;
        }
    };
    if first & 0x80 != 0 {
        return Ok(None);
    }
    if first != b'-' {
        return Err(Error::malformed("armor: text before the BEGIN line"));
    }

    // The BEGIN line (RFC 9580 §6.2): `-----BEGIN PGP MESSAGE-----` etc.
    let end = read_line(inner, line, MAX_MARKER_LINE_LEN, Error::malformed("armor: BEGIN line too long"))?;
    if end == LineEnd::Eof {
        // At least the blank line and the END line must follow.
        return Err(Error::Truncated("armor"));
    }
    let label = line
        .trim_ascii_end()
        .strip_prefix(b"-----BEGIN ")
        .and_then(|rest| rest.strip_suffix(DASHES))
        .ok_or(Error::malformed("armor: BEGIN line"))?;
    if label == b"PGP SIGNED MESSAGE" {
        return Err(Error::Unsupported(Unsupported::Feature("cleartext signature framework")));
    }
    let kind = ArmorKind::from_label(label).ok_or(Error::malformed("armor: unknown BEGIN label"))?;

    // Armor headers, `Key: Value` lines, up to a blank line (RFC 9580 §6.2.2). They carry
    // nothing we use, so they are checked for shape and skipped.
    let mut budget = header_len_limit;
    loop {
        let end = read_line(inner, line, budget, Error::LimitExceeded(Limit::ArmorHeaders))?;
        if end == LineEnd::Eof {
            return Err(Error::Truncated("armor"));
        }
        budget = budget
            .checked_sub(line.len().saturating_add(1))
            .ok_or(Error::LimitExceeded(Limit::ArmorHeaders))?;
        let header = line.trim_ascii_end();
        if header.is_empty() {
            break;
        }
        if !header.contains(&b':') {
            return Err(Error::malformed("armor: header line"));
        }
    }
    Ok(Some(kind))
}

/// Skips the CRC24 line whatever it holds: RFC 9580 §6.1 says an OpenPGP object MUST NOT be
/// rejected when the CRC24 footer is present, missing, malformed, or wrong. The line is
/// consumed without being stored, so its length costs no memory.
pub(super) fn skip_checksum_line<R: BufRead>(source: &mut R) -> Result<()> {
    loop {
        let buf = fill_buf(source)?;
        if buf.is_empty() {
            return Err(Error::Truncated("armor"));
        }
        let lf = buf.iter().position(|b| *b == b'\n');
        let used = lf.map_or(buf.len(), |i| i.saturating_add(1));
        source.consume(used);
        if lf.is_some() {
            return Ok(());
        }
    }
}

/// Reads the END line (skipping blank lines before it) and checks that its label is
/// `expected`. `line` is scratch space.
pub(super) fn read_end_line<R: BufRead>(source: &mut R, line: &mut Vec<u8>, expected: &str) -> Result<()> {
    loop {
        let end = read_line(source, line, MAX_MARKER_LINE_LEN, Error::malformed("armor: END line too long"))?;
        let line = line.trim_ascii_end();
        if line.is_empty() {
            if end == LineEnd::Eof {
                return Err(Error::Truncated("armor"));
            }
            continue;
        }
        let label = line.strip_prefix(b"-----END ").and_then(|rest| rest.strip_suffix(DASHES));
        let Some(label) = label else {
            // An END line cut short by the end of the input is truncation.
            let cut_short = end == LineEnd::Eof
                && [&b"-----END "[..], expected.as_bytes(), DASHES].concat().starts_with(line);
            return Err(if cut_short {
                Error::Truncated("armor")
            } else {
                Error::malformed("armor: END line")
            });
        };
        if label != expected.as_bytes() {
            return Err(Error::malformed("armor: END line does not match the BEGIN line"));
        }
        return Ok(());
    }
}

/// `inner.fill_buf()`, retrying when interrupted.
pub(super) fn fill_buf<R: BufRead>(inner: &mut R) -> Result<&[u8]> {
    // Retry until the source is not interrupted; the second call returns the buffered data
    // (calling `fill_buf` on a non-empty buffer does no I/O).
    loop {
        match inner.fill_buf() {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::from_io(e)),
        }
    }
    inner.fill_buf().map_err(Error::from_io)
}

/// Reads one line into `line` (without its LF), failing with `too_long` if it is longer than
/// `cap` octets. Consumes exactly the line and its LF.
///
/// # Errors
///
/// `too_long`, or the source's error.
fn read_line<R: BufRead>(inner: &mut R, line: &mut Vec<u8>, cap: usize, too_long: Error) -> Result<LineEnd> {
    line.clear();
    loop {
        let buf = fill_buf(inner)?;
        if buf.is_empty() {
            return Ok(LineEnd::Eof);
        }
        let lf = buf.iter().position(|b| *b == b'\n');
        let piece = lf.and_then(|i| buf.get(..i)).unwrap_or(buf);
        if line.len().saturating_add(piece.len()) > cap {
            return Err(too_long);
        }
        line.extend_from_slice(piece);
        let used = lf.map_or(buf.len(), |i| i.saturating_add(1));
        inner.consume(used);
        if lf.is_some() {
            return Ok(LineEnd::Lf);
        }
    }
}

/// Appends a run of base64 characters to `b64`, checking that padding only ends the last quad.
///
/// # Errors
///
/// [`Error::Malformed`] for misplaced padding or data after it.
pub(super) fn push_run(b64: &mut SecretVec, padded: &mut bool, run: &[u8]) -> Result<()> {
    // Position of the run's first character within its quad.
    let pos_in_quad = b64.len() & 3;
    if *padded {
        // After `=`, only more `=` completing the same quad may follow.
        let room = [0, 3, 2, 1].get(pos_in_quad).copied().unwrap_or(0);
        if run.len() > room || run.iter().any(|b| *b != b'=') {
            return Err(Error::malformed("armor: data after base64 padding"));
        }
    } else if let Some(p) = run.iter().position(|b| *b == b'=') {
        // Padding starts at the third or fourth character of a quad and fills it.
        let start = pos_in_quad.wrapping_add(p) & 3;
        let room = [4, 3, 2, 1].get(start).copied().unwrap_or(0);
        let pad = run.get(p..).unwrap_or_default();
        if start < 2 || pad.len() > room || pad.iter().any(|b| *b != b'=') {
            return Err(Error::malformed("armor: base64 padding"));
        }
        *padded = true;
    }
    b64.extend_from_slice(run);
    Ok(())
}

/// Whitespace allowed before the armor or binary data.
const fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push_all(runs: &[&[u8]]) -> Result<Vec<u8>> {
        let mut b64 = SecretVec::default();
        let mut padded = false;
        for run in runs {
            push_run(&mut b64, &mut padded, run)?;
        }
        Ok(b64.to_vec())
    }

    #[test]
    fn padding_rules() {
        assert!(push_all(&[b"AAAA", b"AA==", b""]).is_ok());
        assert!(push_all(&[b"AAA=", b""]).is_ok());
        assert!(push_all(&[b"AA", b"=", b"="]).is_ok());
        assert!(push_all(&[b"A", b"A="]).is_ok());
        assert!(push_all(&[b"A=="]).is_err(), "padding at the second character");
        assert!(push_all(&[b"="]).is_err());
        assert!(push_all(&[b"AA==="]).is_err());
        assert!(push_all(&[b"AA==", b"="]).is_err());
        assert!(push_all(&[b"AAA=", b"A"]).is_err());
        assert!(push_all(&[b"AA=A"]).is_err());
        assert!(push_all(&[b"AA=", b"A"]).is_err());
    }
}
