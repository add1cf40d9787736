//! The armor decoder with binary pass-through
//! ([RFC 9580 §6](https://www.rfc-editor.org/rfc/rfc9580#section-6)).

use std::fmt;
use std::io::{self, BufRead, Read};

mod scan;
#[cfg(test)]
mod tests;
mod threaded;

use self::scan::{Ahead, B64_CAP, Marker, SMALL_B64_CAP, Source, fill_buf, push_run};
use self::threaded::{BLOCK_TEXT_LEN, BlockDecoder};
use super::base64::{decode_into, decoded_len, is_base64, line_end, plain_base64};
use super::{ArmorKind, reserve_wiped};
use crate::crypto::secret::SecretVec;
use crate::error::{Error, Poison, Result};
use crate::limits::Limits;

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
/// - A line that starts with `=` after complete base64 quads is the CRC24 line and is skipped
///   whatever it holds (right, wrong, malformed, of any length) or absent:
///   [RFC 9580 §6.1](https://www.rfc-editor.org/rfc/rfc9580#section-6.1) says a reader MUST NOT
///   reject data because of it.
/// - The armor header lines and the blank line after them are bounded together by
///   [`Limits::max_armor_header_len`] octets (line endings included); the BEGIN and END lines
///   by 1024 octets each.
/// - Armor headers must have the `Key: Value` shape (a colon is required) and the blank line
///   after them is required, even when there are no headers.
///
/// The reader stops right after the END line; [`into_inner`](Self::into_inner) gives back the
/// source positioned there. Memory use is fixed (about 56 KiB, 7 KiB for a body of a few KiB),
/// whatever the input size.
///
/// # Threads
///
/// With [`threads`](Self::threads) above 1, the base64 body is read in blocks, cut after their
/// last line break, and the blocks' lines are decoded on
/// worker threads while the calling thread reads the next ones. Only the plain part of a block
/// goes this way: lines of base64 characters whose length is a multiple of 4, without padding
/// or whitespace, each ending in LF or CRLF. From the first other line on (the last line of the
/// body, the checksum line, the END line, or anything unusual) the reader goes on one line at a
/// time as above, so the output and the kind of every error are the same for any thread count
/// (which fault of a malformed body is named may differ, as it does with the source's buffer
/// sizes: base64 is decoded a buffer at a time). An error of the source is returned after the
/// octets read before it, as without threads.
///
/// The reader then reads the source up to a few blocks ahead, through the source's own
/// buffer ([`BufRead::fill_buf`]), and stops reading at the buffer that holds a `-` (which in
/// a body only the END line has): it consumes nothing past the END line, so
/// [`into_inner`](Self::into_inner) gives the source positioned right after it whatever the
/// thread count, and a source that would block or fail after the armor does not stop the
/// reader. Each block is copied out of the source's buffer, so a source buffer of 256 KiB
/// (`BufReader::with_capacity`) brings a block per system call where the default 8 KiB takes
/// dozens. Memory is bounded by the blocks in flight, about 2 × `threads` + 2 blocks of
/// 450 KiB, and, while it hands over to the one-line-at-a-time path, a copy of the text not yet
/// decoded (at most the blocks in flight).
///
/// # Errors
///
/// Reads fail with an [`io::Error`] carrying an [`Error`] (recover it with [`Error::from_io`]):
/// [`Error::Truncated`] if the input ends before the END line, [`Error::Malformed`] for text
/// before the BEGIN line, an unknown label, a bad header line, invalid base64, or an END line
/// that does not match, [`Error::Unsupported`] for a cleartext signed message, and
/// [`Error::LimitExceeded`]`(`[`Limit::ArmorHeaders`](crate::error::Limit::ArmorHeaders)`)` for oversized armor headers. After an
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
    /// The first error, reported again by every later call.
    poison: Poison,
    header_len_limit: usize,
    kind: Option<ArmorKind>,
    /// Base64 characters not yet decoded: the last incomplete quad, then newly scanned ones;
    /// at most `b64_cap` of them.
    b64: SecretVec,
    /// [`SMALL_B64_CAP`], then [`B64_CAP`] once a body turns out to be longer.
    b64_cap: usize,
    /// Decoded octets; `out[out_pos..out_len]` are not yet returned. Allocated at full length
    /// once the input is known to be armored. Both buffers are wiped on drop: the armor may
    /// hold a secret key.
    out: SecretVec,
    out_pos: usize,
    out_len: usize,
    /// The body scanner is at the start of a line.
    at_line_start: bool,
    /// The scanner's fast path may still take the rest of the current line: it is tried once
    /// per line, so that a line it refuses (one with blanks, say) costs linear time.
    fast_line: bool,
    /// Base64 padding (`=`) has been seen.
    padded: bool,
    /// Scratch space for BEGIN, header and END lines.
    line: Vec<u8>,
    /// Threads to decode the body on (1: none).
    threads: usize,
    /// The threaded path may read the source past the END line (see
    /// [`ArmorReader::read_ahead`]).
    read_ahead: bool,
    /// Text per block on the threaded path ([`BLOCK_TEXT_LEN`]; smaller in tests).
    block_len: usize,
    /// While the body is decoded on several threads: the blocks in flight.
    blocks: Option<Box<BlockDecoder>>,
    /// Text read ahead by the threaded path and not decoded there: the body scanner reads it
    /// before the source.
    ahead: Ahead,
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
}

impl<R: BufRead> ArmorReader<R> {
    /// Reads from `inner` with the default [`Limits`].
    pub fn new(inner: R) -> Self {
        Self::with_limits(inner, &Limits::default())
    }

    /// Reads from `inner`; the armor header section may be at most
    /// [`limits.max_armor_header_len()`](Limits::max_armor_header_len) octets long.
    pub fn with_limits(inner: R, limits: &Limits) -> Self {
        Self {
            inner,
            state: State::Start,
            poison: Poison::default(),
            header_len_limit: limits.max_armor_header_len(),
            kind: None,
            b64: SecretVec::default(),
            b64_cap: SMALL_B64_CAP,
            out: SecretVec::default(),
            out_pos: 0,
            out_len: 0,
            at_line_start: true,
            fast_line: true,
            padded: false,
            line: Vec::new(),
            threads: 1,
            read_ahead: false,
            block_len: BLOCK_TEXT_LEN,
            blocks: None,
            ahead: Ahead::default(),
        }
    }

    /// Decodes the base64 body on `threads` threads in all, the calling thread included (1, the
    /// default, or 0: on the calling thread only): `threads` − 1 workers decode blocks while the
    /// calling thread reads, and it decodes one itself when it would otherwise wait for them.
    /// At most the available parallelism, or 4 if that is more. See [Threads](Self#threads): the
    /// output, the kinds of error and the position the source is left at are the same. A short
    /// body starts no thread.
    /// Takes effect only if set before the body is reached.
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Lets the threaded path read the source straight into its blocks, with `Read::read`,
    /// instead of copying each block out of the source's buffer: one copy less, but the read
    /// that brings the END line may bring what follows it too, which is then lost to the
    /// source ([`into_inner`](Self::into_inner) is no longer positioned right after the END
    /// line). For callers that read one armored object per source and never look at the rest
    /// (the decryptor). Reading still stops at that read, so a source that would block after
    /// the armor does not stop the reader.
    #[must_use]
    pub(crate) fn read_ahead(mut self, yes: bool) -> Self {
        self.read_ahead = yes;
        self
    }

    /// Sets the threaded path's block length (at least 1), so that tests and the fuzzer reach
    /// block boundaries with short inputs.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn block_len(mut self, len: usize) -> Self {
        self.block_len = len.max(1);
        self
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
        self.poison.check()?;
        if matches!(self.state, State::Start) {
            let detected = self.detect_inner();
            self.poison.guard(detected)?;
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

    /// Returns the source. After the END line it is positioned right after that line, whatever
    /// the thread count.
    pub fn into_inner(self) -> R {
        self.inner
    }

    fn detect_inner(&mut self) -> Result<()> {
        let Some(kind) = scan::read_armor_start(&mut self.inner, &mut self.line, self.header_len_limit)?
        else {
            self.state = State::Binary;
            return Ok(());
        };
        self.kind = Some(kind);
        self.b64 = SecretVec::with_capacity(self.b64_cap);
        self.out = SecretVec::zeroed(decoded_len(self.b64_cap));
        self.line = Vec::new();
        self.state = State::Body;
        if self.threads > 1 {
            self.blocks = Some(Box::new(BlockDecoder::new(self.threads, self.block_len, self.read_ahead)));
        }
        Ok(())
    }

    /// The threaded path (see [Threads](Self#threads)): the next block's octets into `out`
    /// (which is empty), or, where the body stops being plain, its text for the scanner.
    fn next_block(&mut self) -> Result<()> {
        let Some(blocks) = self.blocks.as_mut() else { return Ok(()) };
        let decoded = blocks.next_block(&mut self.inner, &mut self.out)?;
        if let Some(len) = decoded.out_len {
            self.out_pos = 0;
            self.out_len = len;
        }
        if let Some(rest) = decoded.rest {
            self.ahead = rest;
            self.blocks = None;
        }
        Ok(())
    }

    /// Decodes more of the body into `out`, until some octets are available or the END line
    /// has been read. Call only in [`State::Body`] with `out` empty.
    fn decode_more(&mut self) -> Result<()> {
        // A body that filled more than half the small buffers is a long one.
        if self.b64_cap < B64_CAP && self.out_len > self.out.len() / 2 {
            self.b64_cap = B64_CAP;
        }
        self.out_pos = 0;
        self.out_len = 0;
        // (`b64` holds less than a quad here; after the threaded path, `out` is a block's
        // buffer, a new one rather than a reallocation, which would leave a copy unwiped.)
        reserve_wiped(&mut self.b64, self.b64_cap);
        if self.out.len() < decoded_len(self.b64_cap) {
            self.out = SecretVec::zeroed(decoded_len(self.b64_cap));
        }
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
        let mut source = Source { ahead: &mut self.ahead, inner: &mut self.inner };
        let buf = fill_buf(&mut source)?;
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
            // table lookup and branch per character. Tried once per line, and the line break
            // is looked for only as far as the room left: what does not fit goes the slow way.
            if self.fast_line && !self.padded {
                self.fast_line = false;
                let room = self.b64_cap.saturating_sub(self.b64.len());
                if let Some(nl) = line_end(rest, room.saturating_add(2))
                    && let Some((line, after)) = rest.split_at_checked(nl)
                {
                    let body = line.strip_suffix(b"\r").unwrap_or(line);
                    if body.len() <= room && plain_base64(body) {
                        self.b64.extend_from_slice(body);
                        rest = after.get(1..).unwrap_or_default();
                        self.at_line_start = true;
                        self.fast_line = true;
                        continue;
                    }
                }
            }
            let run_len = rest.iter().position(|b| !is_base64(*b)).unwrap_or(rest.len());
            if run_len > 0 {
                let room = self.b64_cap.saturating_sub(self.b64.len());
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
                b'\n' => {
                    self.at_line_start = true;
                    self.fast_line = true;
                }
                b' ' | b'\t' | b'\r' => {}
                _ => return Err(Error::malformed("armor: invalid base64 character")),
            }
            rest = rest.get(1..).unwrap_or_default();
        }
        let used = buf.len().saturating_sub(rest.len());
        source.consume(used);
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
        let n = decode_into(&base64_simd::STANDARD, quads, out)
            .ok_or(Error::malformed("armor: invalid base64"))?;
        self.out_len = self.out_len.saturating_add(n);
        let left = self.b64.len().saturating_sub(whole);
        self.b64.copy_within(whole.., 0);
        self.b64.truncate(left);
        Ok(())
    }

    /// Skips the CRC24 line (see [`scan::skip_checksum_line`]).
    fn read_checksum_line(&mut self) -> Result<()> {
        scan::skip_checksum_line(&mut Source { ahead: &mut self.ahead, inner: &mut self.inner })
    }

    /// Reads the END line (skipping blank lines before it) and checks its label.
    fn read_end_line(&mut self) -> Result<()> {
        if !self.b64.is_empty() {
            return Err(Error::malformed("armor: base64 length is not a multiple of 4"));
        }
        let expected = self.kind.map(ArmorKind::label).unwrap_or_default();
        let source = &mut Source { ahead: &mut self.ahead, inner: &mut self.inner };
        scan::read_end_line(source, &mut self.line, expected)?;
        self.state = State::Done;
        Ok(())
    }

    /// The decoded octets available, decoding more first if none are.
    fn fill_buf_inner(&mut self) -> Result<()> {
        loop {
            match &self.state {
                State::Start => self.detect_inner()?,
                State::Binary | State::Done => return Ok(()),
                State::Body if self.out_pos < self.out_len => return Ok(()),
                State::Body if self.blocks.is_some() => self.next_block()?,
                State::Body => self.decode_more()?,
            }
        }
    }
}

impl<R: BufRead> ArmorReader<R> {
    /// [`fill_buf_inner`](Self::fill_buf_inner) for the `io` methods, after an earlier error
    /// that error again.
    fn ready(&mut self) -> io::Result<()> {
        self.poison.check_io()?;
        let ready = self.fill_buf_inner();
        Ok(self.poison.guard(ready)?)
    }

    /// The source's error in binary pass-through, kept unless it asks for a retry.
    fn pass_error(poison: &mut Poison, err: io::Error) -> io::Error {
        if err.kind() == io::ErrorKind::Interrupted { err } else { poison.set_io(err) }
    }
}

impl<R: BufRead> BufRead for ArmorReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.ready()?;
        if matches!(self.state, State::Binary) {
            return self.inner.fill_buf().map_err(|e| Self::pass_error(&mut self.poison, e));
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
        self.ready()?;
        if matches!(self.state, State::Binary) {
            // Large reads go straight to the source.
            return self.inner.read(buf).map_err(|e| Self::pass_error(&mut self.poison, e));
        }
        let available = self.out.get(self.out_pos..self.out_len).unwrap_or_default();
        let n = available.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), available.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.consume(n);
        Ok(n)
    }

    /// Binary input: straight to the source, as `read`.
    fn read_vectored(&mut self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        self.ready()?;
        if matches!(self.state, State::Binary) {
            return self.inner.read_vectored(bufs).map_err(|e| Self::pass_error(&mut self.poison, e));
        }
        let first = bufs.iter_mut().find(|b| !b.is_empty());
        first.map_or(Ok(0), |b| self.read(b))
    }
}

impl<R: BufRead> fmt::Debug for ArmorReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Start => "start",
            State::Binary => "binary",
            State::Body => "body",
            State::Done => "done",
        };
        f.debug_struct("ArmorReader")
            .field("state", &state)
            .field("kind", &self.kind)
            .field("threads", &self.threads)
            .field("poison", &self.poison)
            .finish_non_exhaustive()
    }
}
