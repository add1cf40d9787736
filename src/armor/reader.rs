//! The armor decoder with binary pass-through
//! ([RFC 9580 §6](https://www.rfc-editor.org/rfc/rfc9580#section-6)).

use std::fmt;
use std::io::{self, BufRead, Read};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::{ArmorKind, DASHES};
use crate::error::{Error, Limit, Result, Unsupported};
use crate::limits::Limits;

/// Base64 characters collected before decoding them in one block (a multiple of 4).
const B64_CAP: usize = 32 * 1024;
/// Decoded octets from one block of `B64_CAP` characters.
const OUT_CAP: usize = B64_CAP / 4 * 3;
/// Longest BEGIN, END or checksum line accepted, trailing whitespace included.
const MAX_MARKER_LINE_LEN: usize = 1024;

/// Reads ASCII-armored OpenPGP data and yields the binary data; binary input passes through.
///
/// # Detection
///
/// The reader looks at the first octet that is not whitespace (space, tab, CR, LF). If its high
/// bit is set, the input is binary OpenPGP (every packet header has that bit set) and is passed
/// through unchanged from that octet on. Otherwise the input must be an armored block
/// ([RFC 9580 §6.2](https://www.rfc-editor.org/rfc/rfc9580#section-6.2)): optional blank lines,
/// the BEGIN line, armor headers (skipped), a blank line, base64 lines, an optional CRC24 line,
/// and the END line with the same label as the BEGIN line.
///
/// Detection happens on the first read, or earlier through [`detect`](Self::detect); until then
/// [`kind`](Self::kind) is `None` and [`is_armored`](Self::is_armored) is `false`.
///
/// # What is accepted
///
/// - The four labels of [`ArmorKind`]; `PGP SIGNED MESSAGE` (the Cleartext Signature Framework)
///   is reported as unsupported, any other label as malformed.
/// - LF or CRLF line endings, trailing whitespace on any line, whitespace inside base64 lines,
///   and base64 lines of any length. Base64 must be padded to a multiple of 4 characters and use
///   canonical trailing bits.
/// - A CRC24 line (`=` and four base64 characters) is accepted and ignored whether it is right,
///   wrong or absent: [RFC 9580 §6.1](https://www.rfc-editor.org/rfc/rfc9580#section-6.1) says
///   a reader MUST NOT reject data because of it.
/// - The armor header lines and the blank line after them are bounded together by
///   [`Limits::armor_header_len_limit`] octets (line endings included); the BEGIN, checksum and
///   END lines by 1024 octets each.
/// - Armor headers must have the `Key: Value` shape (a colon is required) and the blank line
///   after them is required, even when there are no headers.
///
/// The reader stops right after the END line; [`into_inner`](Self::into_inner) gives back the
/// source positioned there. Memory use is fixed (about 56 KiB), whatever the input size.
///
/// # Errors
///
/// Reads fail with an [`io::Error`] carrying an [`Error`] (recover it with [`Error::from_io`]):
/// [`Error::Truncated`] if the input ends before the END line, [`Error::Malformed`] for text
/// before the BEGIN line, an unknown label, a bad header line, invalid base64, or an END line
/// that does not match, [`Error::Unsupported`] for a cleartext signed message, and
/// [`Error::LimitExceeded`]`(`[`Limit::ArmorHeaders`]`)` for oversized armor headers. After an
/// error every later read fails the same way.
///
/// ```
/// use std::io::Read;
/// use sixpgp::{ArmorKind, ArmorReader};
///
/// let armored = b"-----BEGIN PGP SIGNATURE-----\n\nwgA=\n-----END PGP SIGNATURE-----\n";
/// let mut r = ArmorReader::new(&armored[..]);
/// assert_eq!(r.detect()?, Some(ArmorKind::Signature));
/// let mut binary = Vec::new();
/// r.read_to_end(&mut binary)?;
/// assert_eq!(binary, b"\xc2\x00");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ArmorReader<R: BufRead> {
    inner: R,
    state: State,
    header_len_limit: usize,
    kind: Option<ArmorKind>,
    /// Base64 characters not yet decoded: the last incomplete quad, then newly scanned ones.
    b64: Vec<u8>,
    /// Decoded octets; `out[out_pos..out_len]` are not yet returned. Allocated at full length
    /// once the input is known to be armored.
    out: Vec<u8>,
    out_pos: usize,
    out_len: usize,
    /// The body scanner is at the start of a line.
    at_line_start: bool,
    /// Base64 padding (`=`) has been seen.
    padded: bool,
    /// Scratch space for BEGIN, header, checksum and END lines.
    line: Vec<u8>,
}

/// Where the reader is.
enum State {
    /// Nothing read yet.
    Start,
    /// Binary input: everything is passed through.
    Binary,
    /// Inside the base64 body of an armored block.
    Body,
    /// The END line has been read.
    Done,
    /// An error happened; this copy of it is returned from then on.
    Failed(Error),
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
enum Marker {
    /// `-`: the END line.
    End,
    /// `=` after complete base64 quads: the CRC24 line.
    Checksum,
}

impl<R: BufRead> ArmorReader<R> {
    /// Reads from `inner` with the default [`Limits`].
    pub fn new(inner: R) -> Self {
        Self::with_limits(inner, &Limits::default())
    }

    /// Reads from `inner`; the armor header section may be at most
    /// [`limits.armor_header_len_limit()`](Limits::armor_header_len_limit) octets long.
    pub fn with_limits(inner: R, limits: &Limits) -> Self {
        Self {
            inner,
            state: State::Start,
            header_len_limit: limits.armor_header_len_limit(),
            kind: None,
            b64: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            out_len: 0,
            at_line_start: true,
            padded: false,
            line: Vec::new(),
        }
    }

    /// Detects binary or armored input, reading up to the end of the armor headers (or only the
    /// leading whitespace of binary input), and returns the armor kind (`None` for binary input).
    /// Calling it again, or after reading, returns the same answer without reading.
    ///
    /// # Errors
    ///
    /// As for reading (see [the type's documentation](Self#errors)), for errors found before the
    /// base64 body; [`Error::Io`] if the source fails.
    pub fn detect(&mut self) -> Result<Option<ArmorKind>> {
        match &self.state {
            State::Failed(e) => return Err(replay(e)),
            State::Start => {
                if let Err(e) = self.detect_inner() {
                    return Err(self.poison(e));
                }
            }
            State::Binary | State::Body | State::Done => {}
        }
        Ok(self.kind)
    }

    /// The armor kind: `None` for binary input, and before detection
    /// (see [`detect`](Self::detect)).
    #[must_use]
    pub fn kind(&self) -> Option<ArmorKind> {
        self.kind
    }

    /// True if the input was detected as armored; `false` for binary input and before detection.
    #[must_use]
    pub fn is_armored(&self) -> bool {
        self.kind.is_some()
    }

    /// Returns the source. After the END line it is positioned right after that line.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Remembers `err` so that later calls fail the same way, and returns it.
    fn poison(&mut self, err: Error) -> Error {
        self.state = State::Failed(replay(&err));
        err
    }

    fn detect_inner(&mut self) -> Result<()> {
        // Skip leading whitespace; then look at the first octet.
        let first = loop {
            let buf = fill_buf(&mut self.inner)?;
            if buf.is_empty() {
                return Err(Error::Truncated("armor"));
            }
            let found = buf.iter().position(|b| !is_whitespace(*b)).and_then(|i| Some((i, *buf.get(i)?)));
            let skip = found.map_or(buf.len(), |(i, _)| i);
            self.inner.consume(skip);
            if let Some((_, first)) = found {
                break first;
            }
        };
        if first & 0x80 != 0 {
            self.state = State::Binary;
            return Ok(());
        }
        if first != b'-' {
            return Err(Error::malformed("armor: text before the BEGIN line"));
        }

        // The BEGIN line (RFC 9580 §6.2): `-----BEGIN PGP MESSAGE-----` etc.
        let end = read_line(
            &mut self.inner,
            &mut self.line,
            MAX_MARKER_LINE_LEN,
            Error::malformed("armor: BEGIN line too long"),
        )?;
        if end == LineEnd::Eof {
            // At least the blank line and the END line must follow.
            return Err(Error::Truncated("armor"));
        }
        let label = self
            .line
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
        let mut budget = self.header_len_limit;
        loop {
            let end = read_line(
                &mut self.inner,
                &mut self.line,
                budget,
                Error::LimitExceeded(Limit::ArmorHeaders),
            )?;
            if end == LineEnd::Eof {
                return Err(Error::Truncated("armor"));
            }
            budget = budget
                .checked_sub(self.line.len().saturating_add(1))
                .ok_or(Error::LimitExceeded(Limit::ArmorHeaders))?;
            let header = self.line.trim_ascii_end();
            if header.is_empty() {
                break;
            }
            if !header.contains(&b':') {
                return Err(Error::malformed("armor: header line"));
            }
        }

        self.kind = Some(kind);
        self.b64 = Vec::with_capacity(B64_CAP);
        self.out = vec![0; OUT_CAP];
        self.line = Vec::new();
        self.state = State::Body;
        Ok(())
    }

    /// Decodes more of the body into `out`, until some octets are available or the END line
    /// has been read. Call only in [`State::Body`] with `out` empty.
    fn decode_more(&mut self) -> Result<()> {
        self.out_pos = 0;
        self.out_len = 0;
        loop {
            let marker = self.scan()?;
            self.decode_quads()?;
            match marker {
                Some(Marker::End) => return self.read_end_line(),
                Some(Marker::Checksum) => {
                    self.read_checksum_line()?;
                    return self.read_end_line();
                }
                None if self.out_len > 0 => return Ok(()),
                None => {}
            }
        }
    }

    /// Moves base64 characters from one buffer of the source into `b64`, stopping at a line
    /// that starts with `-` (END) or `=` (checksum), or when `b64` is full.
    fn scan(&mut self) -> Result<Option<Marker>> {
        let buf = fill_buf(&mut self.inner)?;
        if buf.is_empty() {
            return Err(Error::Truncated("armor"));
        }
        let mut rest = buf;
        let mut marker = None;
        while let Some(&first) = rest.first() {
            if self.at_line_start {
                if first == b'-' {
                    marker = Some(Marker::End);
                    break;
                }
                // A line starting with `=` is the checksum if the base64 so far is complete
                // quads; otherwise it continues a quad with padding.
                if first == b'=' && self.b64.len() & 3 == 0 {
                    marker = Some(Marker::Checksum);
                    break;
                }
                self.at_line_start = false;
            }
            // Fast path, the common case: the rest of the line is base64 characters without
            // padding, then "\n" or "\r\n". One vectorizable check per line instead of one
            // table lookup and branch per character.
            if !self.padded
                && let Some(nl) = [64, 76]
                    .into_iter()
                    .find(|&n| rest.get(n) == Some(&b'\n'))
                    .or_else(|| rest.iter().position(|&b| b == b'\n'))
                && let Some((line, after)) = rest.split_at_checked(nl)
            {
                let body = line.strip_suffix(b"\r").unwrap_or(line);
                if body.len() <= B64_CAP.saturating_sub(self.b64.len()) && plain_base64(body) {
                    self.b64.extend_from_slice(body);
                    rest = after.get(1..).unwrap_or_default();
                    self.at_line_start = true;
                    continue;
                }
            }
            let run_len = rest.iter().position(|b| !is_base64(*b)).unwrap_or(rest.len());
            if run_len > 0 {
                let room = B64_CAP.saturating_sub(self.b64.len());
                if room == 0 {
                    break;
                }
                let (run, tail) =
                    rest.split_at_checked(run_len.min(room)).ok_or(Error::malformed("armor: scanner"))?;
                push_run(&mut self.b64, &mut self.padded, run)?;
                rest = tail;
                continue;
            }
            match first {
                b'\n' => self.at_line_start = true,
                b' ' | b'\t' | b'\r' => {}
                _ => return Err(Error::malformed("armor: invalid base64 character")),
            }
            rest = rest.get(1..).unwrap_or_default();
        }
        let used = buf.len().saturating_sub(rest.len());
        self.inner.consume(used);
        Ok(marker)
    }

    /// Decodes every complete quad in `b64` into `out` (which is empty), keeping the rest.
    fn decode_quads(&mut self) -> Result<()> {
        let whole = self.b64.len() & !3;
        if whole == 0 {
            return Ok(());
        }
        let quads = self.b64.get(..whole).unwrap_or_default();
        let out = self.out.get_mut(self.out_len..).unwrap_or_default();
        let n = STANDARD.decode_slice(quads, out).map_err(|_| Error::malformed("armor: invalid base64"))?;
        self.out_len = self.out_len.saturating_add(n);
        let left = self.b64.len().saturating_sub(whole);
        self.b64.copy_within(whole.., 0);
        self.b64.truncate(left);
        Ok(())
    }

    /// Reads the CRC24 line, `=` and four base64 characters, and ignores its value
    /// (RFC 9580 §6.1: the checksum MUST NOT cause a rejection).
    fn read_checksum_line(&mut self) -> Result<()> {
        let end = read_line(
            &mut self.inner,
            &mut self.line,
            MAX_MARKER_LINE_LEN,
            Error::malformed("armor: checksum line too long"),
        )?;
        if end == LineEnd::Eof {
            return Err(Error::Truncated("armor"));
        }
        let crc = self.line.trim_ascii_end();
        let valid = crc
            .strip_prefix(b"=")
            .is_some_and(|c| c.len() == 4 && c.iter().all(|b| *b != b'=' && is_base64(*b)));
        if valid { Ok(()) } else { Err(Error::malformed("armor: checksum line")) }
    }

    /// Reads the END line (skipping blank lines before it) and checks its label.
    fn read_end_line(&mut self) -> Result<()> {
        if !self.b64.is_empty() {
            return Err(Error::malformed("armor: base64 length is not a multiple of 4"));
        }
        let expected = self.kind.map(ArmorKind::label).unwrap_or_default();
        loop {
            let end = read_line(
                &mut self.inner,
                &mut self.line,
                MAX_MARKER_LINE_LEN,
                Error::malformed("armor: END line too long"),
            )?;
            let line = self.line.trim_ascii_end();
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
            self.state = State::Done;
            return Ok(());
        }
    }

    /// The decoded octets available, decoding more first if none are.
    fn fill_buf_inner(&mut self) -> Result<()> {
        loop {
            match &self.state {
                State::Failed(e) => return Err(replay(e)),
                State::Start => self.detect_inner()?,
                State::Binary | State::Done => return Ok(()),
                State::Body if self.out_pos < self.out_len => return Ok(()),
                State::Body => self.decode_more()?,
            }
        }
    }
}

impl<R: BufRead> BufRead for ArmorReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Err(e) = self.fill_buf_inner() {
            return Err(io::Error::from(self.poison(e)));
        }
        if matches!(self.state, State::Binary) {
            return self.inner.fill_buf();
        }
        Ok(self.out.get(self.out_pos..self.out_len).unwrap_or_default())
    }

    fn consume(&mut self, amount: usize) {
        if matches!(self.state, State::Binary) {
            self.inner.consume(amount);
        } else {
            self.out_pos = self.out_pos.saturating_add(amount).min(self.out_len);
        }
    }
}

impl<R: BufRead> Read for ArmorReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Err(e) = self.fill_buf_inner() {
            return Err(io::Error::from(self.poison(e)));
        }
        if matches!(self.state, State::Binary) {
            // Large reads go straight to the source.
            return self.inner.read(buf);
        }
        let available = self.out.get(self.out_pos..self.out_len).unwrap_or_default();
        let n = available.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), available.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> fmt::Debug for ArmorReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Start => "start",
            State::Binary => "binary",
            State::Body => "body",
            State::Done => "done",
            State::Failed(_) => "failed",
        };
        f.debug_struct("ArmorReader").field("state", &state).field("kind", &self.kind).finish_non_exhaustive()
    }
}

/// `inner.fill_buf()`, retrying when interrupted.
fn fill_buf<R: BufRead>(inner: &mut R) -> Result<&[u8]> {
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
fn push_run(b64: &mut Vec<u8>, padded: &mut bool, run: &[u8]) -> Result<()> {
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

/// Whether every octet of `s` is a base64 character other than the padding `=`, with no
/// early exit, so that the compiler can check many octets per instruction.
fn plain_base64(s: &[u8]) -> bool {
    let mut bad = 0u8;
    for &b in s {
        let ok = (b.wrapping_sub(b'A') < 26)
            | (b.wrapping_sub(b'a') < 26)
            | (b.wrapping_sub(b'0') < 10)
            | (b == b'+')
            | (b == b'/');
        bad |= u8::from(!ok);
    }
    bad == 0
}

/// A character of the base64 alphabet, or the padding `=`.
fn is_base64(b: u8) -> bool {
    // A table: this runs once per input octet.
    #[allow(
        clippy::indexing_slicing,
        reason = "evaluated at compile time, with an index below 256 into a 256-entry table"
    )]
    const TABLE: [bool; 256] = {
        let mut table = [false; 256];
        let mut i = 0_u8;
        loop {
            table[i as usize] = matches!(i, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/' | b'=');
            if i == u8::MAX {
                break table;
            }
            i += 1;
        }
    };
    TABLE.get(usize::from(b)).copied().unwrap_or(false)
}

/// Whitespace allowed before the armor or binary data.
const fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// A copy of `err` to return again from a poisoned reader.
fn replay(err: &Error) -> Error {
    match err {
        Error::Malformed(m) => Error::Malformed(*m),
        Error::Unsupported(u) => Error::Unsupported(*u),
        Error::Truncated(what) => Error::Truncated(what),
        Error::LimitExceeded(limit) => Error::LimitExceeded(*limit),
        Error::InvalidArgument(what) => Error::InvalidArgument(what),
        Error::Decrypt => Error::Decrypt,
        Error::Io(e) => {
            // A replayed error must not invite a retry loop.
            let kind = match e.kind() {
                io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock => io::ErrorKind::Other,
                kind => kind,
            };
            Error::Io(io::Error::new(kind, "armor: the source failed earlier"))
        }
        _ => Error::malformed("armor: reader failed earlier"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push_all(runs: &[&[u8]]) -> Result<Vec<u8>> {
        let mut b64 = Vec::new();
        let mut padded = false;
        for run in runs {
            push_run(&mut b64, &mut padded, run)?;
        }
        Ok(b64)
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

    #[test]
    fn memory_stays_bounded() {
        // One 1 MiB base64 line.
        let data: Vec<u8> = (0..768 * 1024_u32).map(|i| (i % 251) as u8).collect();
        let armored = [
            &b"-----BEGIN PGP MESSAGE-----\n\n"[..],
            STANDARD.encode(&data).as_bytes(),
            b"\n-----END PGP MESSAGE-----\n",
        ]
        .concat();
        let mut r = ArmorReader::new(&armored[..]);
        let mut out = Vec::new();
        let mut buf = [0_u8; 5000];
        loop {
            let n = r.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
            assert!(r.b64.capacity() <= B64_CAP);
            assert_eq!(r.out.len(), OUT_CAP);
        }
        assert_eq!(out, data);
        assert!(matches!(r.state, State::Done));
    }

    /// A source that fails with `Interrupted` before every refill of its 7-octet buffer.
    struct Interrupting<'a> {
        data: &'a [u8],
        buffered: usize,
        interrupt: bool,
    }

    impl Read for Interrupting<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.fill_buf()?.len().min(buf.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.consume(n);
            Ok(n)
        }
    }

    impl BufRead for Interrupting<'_> {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            if self.buffered == 0 {
                self.interrupt = !self.interrupt;
                if self.interrupt {
                    return Err(io::ErrorKind::Interrupted.into());
                }
                self.buffered = self.data.len().min(7);
            }
            Ok(&self.data[..self.buffered])
        }
        fn consume(&mut self, amount: usize) {
            self.data = &self.data[amount..];
            self.buffered = self.buffered.checked_sub(amount).unwrap();
        }
    }

    #[test]
    fn interrupted_sources_are_retried() {
        let armored = b"-----BEGIN PGP MESSAGE-----\nComment: x\n\nwgABAgMEBQYHCAkK\n=AAAA\n-----END PGP MESSAGE-----\n";
        let mut r = ArmorReader::new(Interrupting { data: armored, buffered: 0, interrupt: false });
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"\xc2\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a");
    }

    #[test]
    fn source_errors_poison() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
        }
        let mut r = ArmorReader::new(io::BufReader::new(Broken));
        assert_eq!(r.read(&mut [0; 4]).unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(r.read(&mut [0; 4]).unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        assert!(matches!(r.detect(), Err(Error::Io(_))));
    }
}
