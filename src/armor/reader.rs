//! The armor decoder with binary pass-through
//! ([RFC 9580 §6](https://www.rfc-editor.org/rfc/rfc9580#section-6)).

use std::fmt;
use std::io::{self, BufRead, Read};
use std::sync::Arc;

use super::{ArmorKind, DASHES, block_pipeline_shape, reserve_wiped};
use crate::crypto::secret::{SecretVec, WipedArray};
use crate::error::{Error, Limit, Poison, Result, Unsupported};
use crate::limits::Limits;
use crate::pipeline::{Pipeline, Work};

/// Base64 characters collected before decoding them in one block (a multiple of 4).
const B64_CAP: usize = 32 * 1024;
/// The same for the first blocks: most armored data (a certificate, a key, a signature) is a
/// few KiB, and the buffers are zeroed when allocated and wiped when dropped.
const SMALL_B64_CAP: usize = 4 * 1024;
/// Longest BEGIN or END line accepted, trailing whitespace included.
const MAX_MARKER_LINE_LEN: usize = 1024;
/// Text read per block when decoding on several threads (4096 lines of 64 characters).
const BLOCK_TEXT_LEN: usize = 4096 * 65;
/// Text read for the first block, so that short input allocates little.
const FIRST_BLOCK_TEXT_LEN: usize = 16 * 1024;
/// Base64 characters gathered (without line breaks) per call to the decoder on the threaded
/// path.
const STAGE_LEN: usize = 8 * 1024;
/// The decoder of the threaded path: refuses padding, so that it accepts exactly the plain
/// base64 characters (see [`decode_plain_lines`]).
const PLAIN: base64_simd::Base64 = base64_simd::STANDARD_NO_PAD;

/// Decodes `src` into the start of `dst` with `engine` (SIMD where the CPU has it:
/// `base64-simd`) and returns the length, or `None` for invalid base64 (a character outside
/// the alphabet, misplaced or, for [`PLAIN`], any padding, nonzero trailing bits, a length of
/// 4n+1) or a `dst` too short for it.
fn decode_into(engine: &base64_simd::Base64, src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let len = engine.decoded_length(src).ok()?;
    let dst = dst.get_mut(..len)?;
    engine.decode(src, base64_simd::Out::from_slice(dst)).ok().map(|out| out.len())
}

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
    blocks: Option<Box<Blocks>>,
    /// Text read ahead by the threaded path and not decoded there: the body scanner reads it
    /// before the source.
    ahead: Ahead,
}

/// Text the body scanner reads before the source.
#[derive(Default)]
struct Ahead {
    text: SecretVec,
    pos: usize,
    /// The error the source gave the threaded path, returned once `text` has been read.
    error: Option<io::Error>,
}

/// The body's source for the one-line-at-a-time path: the text read ahead, then `inner`.
struct Source<'a, R> {
    ahead: &'a mut Ahead,
    inner: &'a mut R,
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

/// A block of base64 text and what the work made of it.
struct DecodeJob {
    /// `text[..text_len]`: whole lines (but at the end of the input).
    text: SecretVec,
    text_len: usize,
    /// `out[..out_len]`: the octets of `text[..used]`, its plain lines.
    out: SecretVec,
    out_len: usize,
    used: usize,
}

impl DecodeJob {
    fn new(block_len: usize) -> Self {
        Self {
            text: SecretVec::zeroed(block_len),
            text_len: 0,
            // Whole quads of the text at most.
            out: SecretVec::zeroed(decoded_len(block_len)),
            out_len: 0,
            used: 0,
        }
    }

    /// The text the work did not decode.
    fn rest(&self) -> &[u8] {
        self.text.get(self.used..self.text_len).unwrap_or_default()
    }
}

/// The body's blocks on their way through the worker threads.
struct Blocks {
    pipeline: Pipeline<DecodeJob>,
    /// Text per block.
    block_len: usize,
    /// The start of a line read after the last block's last line break (less than a block).
    carry: SecretVec,
    /// No more is read from the source on this path: it ended or failed, or it reached a `-`,
    /// which only the END line has. The `-` and what follows it stay in the source, for the
    /// one-line-at-a-time path to read exactly as far as it would have alone: whatever the
    /// thread count, the source ends up right after the END line. (With `read_ahead`, the read
    /// that brought the `-` stays whole in the block, and that path takes it from there.)
    stop: bool,
    /// The source's error, for the scanner to return after the text read before it.
    error: Option<io::Error>,
    /// No block has been read yet: the first one is [`FIRST_BLOCK_TEXT_LEN`] long at most.
    first: bool,
    /// Read the source with `Read::read` straight into the blocks (see
    /// [`ArmorReader::read_ahead`]).
    read_ahead: bool,
    /// Jobs whose octets have been read, for their buffers.
    free: Vec<DecodeJob>,
}

impl Blocks {
    /// `threads` as the reader's setting, the calling thread included (the first block is
    /// decoded on the calling thread).
    fn new(threads: usize, block_len: usize, read_ahead: bool) -> Self {
        let work: Work<DecodeJob> = Arc::new(|job: &mut DecodeJob| {
            let text = job.text.get(..job.text_len).unwrap_or_default();
            (job.used, job.out_len) = decode_plain_lines(text, &mut job.out);
        });
        let mut pipeline = Pipeline::new("sixpgp-armor", work, block_pipeline_shape(block_len));
        pipeline.set_threads(threads);
        Self {
            pipeline,
            block_len,
            carry: SecretVec::default(),
            stop: false,
            error: None,
            first: true,
            read_ahead,
            free: Vec::new(),
        }
    }

    /// Reads the next block of text: the carried-over start of a line, then the source until the
    /// block is full or reading stops (see [`Blocks::stop`]), cut after the last line break (the
    /// rest is carried over). `None` if there is nothing more.
    fn read_block<R: BufRead>(&mut self, inner: &mut R) -> Option<DecodeJob> {
        let block_len = if self.first { self.block_len.min(FIRST_BLOCK_TEXT_LEN) } else { self.block_len };
        self.first = false;
        let mut job = self.free.pop().unwrap_or_else(|| DecodeJob::new(block_len));
        // The carried-over text is shorter than the block it came from, and no block is
        // shorter than the first one.
        let carried = self.carry.len();
        if let Some(dst) = job.text.get_mut(..carried) {
            dst.copy_from_slice(&self.carry);
        }
        self.carry.clear();
        let mut len = carried;
        while self.read_ahead && len < job.text.len() && !self.stop {
            let room = job.text.get_mut(len..).unwrap_or_default();
            match inner.read(room) {
                Ok(0) => self.stop = true,
                Ok(n) => {
                    let end = len.saturating_add(n).min(job.text.len());
                    // The whole read stays in the block: the one-line-at-a-time path takes what
                    // the workers do not (the END line and anything after it).
                    self.stop = memchr::memchr(b'-', job.text.get(len..end).unwrap_or_default()).is_some();
                    len = end;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e);
                    self.stop = true;
                }
            }
        }
        while len < job.text.len() && !self.stop {
            match inner.fill_buf() {
                Ok([]) => self.stop = true,
                Ok(available) => {
                    let room = job.text.len().saturating_sub(len);
                    let mut n = available.len().min(room);
                    let new = available.get(..n).unwrap_or_default();
                    if let Some(dash) = memchr::memchr(b'-', new) {
                        // Up to the line that holds the `-`: that line and the rest stay.
                        n = new
                            .get(..dash)
                            .and_then(|t| memchr::memrchr(b'\n', t))
                            .map_or(0, |i| i.saturating_add(1));
                        self.stop = true;
                    }
                    let end = len.saturating_add(n).min(job.text.len());
                    if let (Some(dst), Some(src)) = (job.text.get_mut(len..end), available.get(..n)) {
                        dst.copy_from_slice(src);
                    }
                    inner.consume(n);
                    len = end;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // Kept for after the text read so far, as the sequential reader would meet it.
                Err(e) => {
                    self.error = Some(e);
                    self.stop = true;
                }
            }
        }
        if len == 0 {
            self.free.push(job);
            return None;
        }
        let text = job.text.get(..len).unwrap_or_default();
        // A block without a line break (a line longer than a block) is not plain: it goes whole,
        // and the one-line-at-a-time path takes over there.
        let cut = if self.stop {
            len
        } else {
            text.iter().rposition(|&b| b == b'\n').map_or(len, |i| i.saturating_add(1))
        };
        let carry = text.get(cut..).unwrap_or_default();
        if self.carry.capacity() < self.block_len && !carry.is_empty() {
            // Once, while empty: room for any carry, so that it is never reallocated (which
            // would leave a copy unwiped).
            self.carry.reserve_exact(self.block_len);
        }
        self.carry.extend_from_slice(carry);
        job.text_len = cut;
        Some(job)
    }

    /// Takes back a job whose octets have been read.
    fn recycle(&mut self, job: DecodeJob) {
        if self.free.len() < 2
            && job.out.len() == decoded_len(self.block_len)
            && job.text.len() == self.block_len
        {
            self.free.push(job);
        }
    }
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
        self.b64 = SecretVec::with_capacity(self.b64_cap);
        self.out = SecretVec::zeroed(decoded_len(self.b64_cap));
        self.line = Vec::new();
        self.state = State::Body;
        if self.threads > 1 {
            self.blocks = Some(Box::new(Blocks::new(self.threads, self.block_len, self.read_ahead)));
        }
        Ok(())
    }

    /// The threaded path (see [Threads](Self#threads)): keeps up to the pipeline's depth of
    /// blocks in flight and takes the oldest one's octets into `out` (which is empty). At the
    /// first line that is not plain, the text from there on (the rest of that block, the
    /// blocks after it and the carried-over line) becomes the scanner's, and the threaded
    /// path ends. Entered at the start of a line with no base64 pending, which is where every
    /// block starts.
    fn next_block(&mut self) -> Result<()> {
        let Some(blocks) = self.blocks.as_mut() else { return Ok(()) };
        while !blocks.stop && blocks.pipeline.in_flight() < blocks.pipeline.depth() {
            match blocks.read_block(&mut self.inner) {
                Some(job) => blocks.pipeline.submit(job, false),
                None => break,
            }
        }
        let mut later = Vec::new();
        match blocks.pipeline.collect() {
            // Every block has been decoded; what is left is a line without a line break.
            None => {}
            Some(job) => {
                let mut job = job?;
                std::mem::swap(&mut self.out, &mut job.out);
                self.out_pos = 0;
                self.out_len = job.out_len;
                if job.used == job.text_len {
                    blocks.recycle(job);
                    return Ok(());
                }
                later.push(job);
                // Only their text is wanted: queued blocks are not decoded.
                while let Some(job) = blocks.pipeline.collect_unrun() {
                    later.push(job?);
                }
            }
        }
        // The first job's rest, then the later jobs' whole text (their output is not used), then
        // the carried-over line; `concat` measures them first and allocates once.
        let pieces: Vec<&[u8]> = later
            .iter()
            .enumerate()
            .map(
                |(i, job)| if i == 0 { job.rest() } else { job.text.get(..job.text_len).unwrap_or_default() },
            )
            .chain([blocks.carry.as_slice()])
            .collect();
        let text = SecretVec::new(pieces.concat());
        self.ahead = Ahead { text, pos: 0, error: blocks.error.take() };
        self.blocks = None;
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

    /// Skips the CRC24 line whatever it holds: RFC 9580 §6.1 says an OpenPGP object MUST NOT be
    /// rejected when the CRC24 footer is present, missing, malformed, or wrong. The line is
    /// consumed without being stored, so its length costs no memory.
    fn read_checksum_line(&mut self) -> Result<()> {
        let mut source = Source { ahead: &mut self.ahead, inner: &mut self.inner };
        loop {
            let buf = fill_buf(&mut source)?;
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

    /// Reads the END line (skipping blank lines before it) and checks its label.
    fn read_end_line(&mut self) -> Result<()> {
        if !self.b64.is_empty() {
            return Err(Error::malformed("armor: base64 length is not a multiple of 4"));
        }
        let expected = self.kind.map(ArmorKind::label).unwrap_or_default();
        loop {
            let end = read_line(
                &mut Source { ahead: &mut self.ahead, inner: &mut self.inner },
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
fn push_run(b64: &mut SecretVec, padded: &mut bool, run: &[u8]) -> Result<()> {
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

/// Decodes the plain lines at the start of `text` into `out` (at least 3/4 as long as `text`):
/// lines of base64 characters without padding, a multiple of 4 long, each ending in LF or
/// CRLF. Returns the octets of `text` decoded (whole lines) and the octets written.
///
/// The lines are gathered a stage at a time, without their line breaks, and decoded with
/// [`PLAIN`], which checks the characters and refuses padding: a stage it refuses, and
/// everything after it, is left to the scanner, which decodes it (the last lines of the body
/// have the padding) or reports what is wrong. What this decodes is therefore exactly what the
/// scanner would have made of the same lines.
fn decode_plain_lines(text: &[u8], out: &mut [u8]) -> (usize, usize) {
    let mut stage = WipedArray::<STAGE_LEN>::new();
    let (mut staged, mut used, mut written) = (0usize, 0usize, 0usize);
    // Where the staged characters start in `text`.
    let mut staged_from = 0usize;
    let mut decode = |chars: &[u8], written: &mut usize| -> bool {
        let dst = out.get_mut(*written..).unwrap_or_default();
        decode_into(&PLAIN, chars, dst).map(|n| *written = written.saturating_add(n)).is_some()
    };
    let mut rest = text;
    loop {
        // Runs of 64-character lines ending in LF, the usual armor, while the stage has room:
        // one check and one fixed-size copy per line (the decoder checks the characters).
        while let Some((line, after)) = rest.split_first_chunk::<65>()
            && let Some((&b'\n', chars)) = line.split_last()
            && let Some(dst) = stage.get_mut(staged..staged.saturating_add(64))
        {
            copy_line(dst, chars);
            staged = staged.saturating_add(64);
            used = used.saturating_add(65);
            rest = after;
        }
        let Some((line, after)) = line_end(rest, rest.len()).and_then(|nl| rest.split_at_checked(nl)) else {
            break;
        };
        let nl = line.len();
        let body = line.strip_suffix(b"\r").unwrap_or(line);
        if body.is_empty() || body.len() % 4 != 0 {
            break;
        }
        if body.len() > STAGE_LEN.saturating_sub(staged) {
            if !decode(stage.get(..staged).unwrap_or_default(), &mut written) {
                return (staged_from, written);
            }
            staged = 0;
            staged_from = used;
        }
        if body.len() > STAGE_LEN {
            // A line longer than the stage (which is empty now): decoded on its own.
            if !decode(body, &mut written) {
                return (used, written);
            }
            staged_from = used.saturating_add(nl).saturating_add(1);
        } else if let Some(dst) = stage.get_mut(staged..staged.saturating_add(body.len())) {
            copy_line(dst, body);
            staged = staged.saturating_add(body.len());
        }
        used = used.saturating_add(nl).saturating_add(1);
        rest = after.get(1..).unwrap_or_default();
    }
    if !decode(stage.get(..staged).unwrap_or_default(), &mut written) {
        return (staged_from, written);
    }
    (used, written)
}

/// `dst.copy_from_slice(src)`, with the usual line lengths copied as fixed-size arrays: a few
/// vector moves instead of a call to `memcpy` per line. The caller passes equal lengths.
fn copy_line(dst: &mut [u8], src: &[u8]) {
    debug_assert_eq!(dst.len(), src.len());
    fn fixed<const N: usize>(dst: &mut [u8], src: &[u8]) -> bool {
        match (<&mut [u8; N]>::try_from(dst), <&[u8; N]>::try_from(src)) {
            (Ok(d), Ok(s)) => {
                *d = *s;
                true
            }
            _ => false,
        }
    }
    if !(fixed::<64>(dst, src) || fixed::<76>(dst, src)) && dst.len() == src.len() {
        dst.copy_from_slice(src);
    }
}

/// The end of the first line of `text`, looked for in its first `limit` octets only: the index
/// of an LF with no LF before it, or, when `text` has an LF at 64 or 76 (the usual line
/// lengths), that index, without looking for an earlier LF. The callers check every character
/// of the line they get (an LF is not base64), so a line that holds an earlier LF is refused
/// and goes the one-character-at-a-time way: correct for any input, and linear, but a body
/// of very short lines whose LFs fall at 64 or 76 (4- or 12-character lines, say) is then
/// decoded on the calling thread only.
fn line_end(text: &[u8], limit: usize) -> Option<usize> {
    let window = text.get(..limit).unwrap_or(text);
    [64, 76]
        .into_iter()
        .find(|&n| window.get(n) == Some(&b'\n'))
        .or_else(|| window.iter().position(|&b| b == b'\n'))
}

/// The most octets `text_len` characters of base64 decode to: 3 per whole quad.
const fn decoded_len(text_len: usize) -> usize {
    (text_len / 4).saturating_mul(3)
}

/// Whitespace allowed before the armor or binary data.
const fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    /// `decode_into` accepts and rejects what the `base64` crate's decoders did in its place:
    /// whole quads with padding (`decode_quads`), and any length without (`PLAIN`).
    #[test]
    fn decoding_matches_the_base64_crate() {
        let plain_engine = base64::engine::GeneralPurpose::new(
            &base64::alphabet::STANDARD,
            base64::engine::GeneralPurposeConfig::new()
                .with_decode_padding_mode(base64::engine::DecodePaddingMode::RequireNone),
        );
        let cases: [&[u8]; 16] = [
            b"",
            b"QQ==",
            b"QR==",
            b"QUE=",
            b"QUF=",
            b"QUFB",
            b"Q===",
            b"====",
            b"QQ==QUFB",
            b"QUF\n",
            b"QUFBQQ",
            b"QUFBQR",
            b"QUFBQ",
            b"QUFB QUFB",
            b"-_AA",
            b"+/+/",
        ];
        for case in cases {
            let mut out = [0u8; 16];
            if case.len() % 4 == 0 {
                let ours = decode_into(&base64_simd::STANDARD, case, &mut out).map(|n| out[..n].to_vec());
                assert_eq!(ours, STANDARD.decode(case).ok(), "{case:?}");
            }
            let ours = decode_into(&PLAIN, case, &mut out).map(|n| out[..n].to_vec());
            assert_eq!(ours, plain_engine.decode(case).ok(), "{case:?} without padding");
        }
        // A destination too short is an error, not a panic.
        assert_eq!(decode_into(&PLAIN, b"QUFBQUFB", &mut [0u8; 5]), None);
    }

    /// Binary input passes vectored reads straight to the source, filling every slice;
    /// armored input fills the first non-empty one.
    #[test]
    fn vectored_reads_of_binary_and_armored_input() {
        let binary: Vec<u8> = (0..200u8).map(|i| i | 0x80).collect();
        let mut r = ArmorReader::new(&binary[..]);
        assert!(r.detect().unwrap().is_none());
        let (mut a, mut b) = ([0u8; 50], [0u8; 100]);
        let n = r.read_vectored(&mut [io::IoSliceMut::new(&mut a), io::IoSliceMut::new(&mut b)]).unwrap();
        assert_eq!(n, 150);
        assert_eq!((&a[..], &b[..]), (&binary[..50], &binary[50..150]));

        let mut w = crate::armor::ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap();
        io::Write::write_all(&mut w, &binary).unwrap();
        let text = w.finish().unwrap();
        let mut r = ArmorReader::new(&text[..]);
        let mut out = Vec::new();
        loop {
            let (mut a, mut b) = ([0u8; 0], [0u8; 7]);
            let n = r.read_vectored(&mut [io::IoSliceMut::new(&mut a), io::IoSliceMut::new(&mut b)]).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&b[..n]);
        }
        assert_eq!(out, binary);
    }

    fn push_all(runs: &[&[u8]]) -> Result<Vec<u8>> {
        let mut b64 = SecretVec::default();
        let mut padded = false;
        for run in runs {
            push_run(&mut b64, &mut padded, run)?;
        }
        Ok(b64.to_vec())
    }

    /// Reads `input` to its end or first error, `read_size` octets at a time, with `threads`
    /// and blocks of `block_len`; returns what was read and the kind of error, if any.
    fn read_threaded(
        input: &[u8],
        threads: usize,
        block_len: usize,
        read_size: usize,
    ) -> (Vec<u8>, Option<std::mem::Discriminant<Error>>) {
        let mut r = ArmorReader::new(input).threads(threads).block_len(block_len);
        let mut out = Vec::new();
        let mut buf = vec![0; read_size];
        loop {
            match r.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => return (out, Some(std::mem::discriminant(&Error::from_io(e)))),
            }
        }
    }

    /// `threads(n)` counts the calling thread: at most n − 1 workers ever run, and with n ≥ 2 a
    /// long body starts at least one.
    #[test]
    fn threads_count_the_calling_thread() {
        let data: Vec<u8> = (0..200_000_u32).map(|i| (i * 7 % 251) as u8).collect();
        let text = armored(&data, 64, false, false);
        for threads in 1..=3 {
            let mut r = ArmorReader::new(&text[..]).threads(threads).block_len(4096);
            let (mut out, mut buf, mut most) = (Vec::new(), vec![0; 1000], 0);
            loop {
                let n = r.read(&mut buf).unwrap();
                most = most.max(r.blocks.as_ref().map_or(0, |b| b.pipeline.worker_count()));
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            assert_eq!(out, data);
            assert!(most < threads, "{threads} threads ran {most} workers");
            assert!(threads == 1 || most >= 1, "{threads} threads ran no worker");
        }
    }

    /// An armored block of `data` with lines of `line_len` characters (the last one shorter),
    /// LF or CRLF, and a checksum line if asked.
    fn armored(data: &[u8], line_len: usize, crlf: bool, checksum: bool) -> Vec<u8> {
        let eol = if crlf { "\r\n" } else { "\n" };
        let b64 = STANDARD.encode(data);
        let mut text = format!("-----BEGIN PGP MESSAGE-----{eol}Comment: test{eol}{eol}");
        for line in b64.as_bytes().chunks(line_len) {
            text.push_str(std::str::from_utf8(line).unwrap());
            text.push_str(eol);
        }
        if checksum {
            text.push_str("=AAAA");
            text.push_str(eol);
        }
        text.push_str("-----END PGP MESSAGE-----");
        text.push_str(eol);
        text.into_bytes()
    }

    /// Lines with an LF before the 64th or 76th octet and another LF there (LF or CRLF line
    /// ends, from the first lines or after many plain ones): the fast paths take the 64 or 76
    /// octets as a line, refuse it (an LF is not base64) and leave it to the
    /// one-character-at-a-time scanner, which reads the two lines they are. A CRLF line of 64
    /// characters followed by one of 9 puts an LF at 76 too.
    #[test]
    fn an_early_line_break_before_a_usual_line_length() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 253) as u8).collect();
        let b64 = STANDARD.encode(&data);
        let cases = [
            (64usize, 8usize, "\n", 0usize),
            (76, 12, "\n", 0),
            (64, 1, "\n", 300),
            (64, 63, "\n", 300),
            (64, 8, "\r\n", 0),
            (76, 40, "\r\n", 300),
        ];
        for (line, cut, eol, start) in cases {
            let mut text = b"-----BEGIN PGP MESSAGE-----\n\n".to_vec();
            let (mut rest, mut i) = (b64.as_bytes(), 0);
            while !rest.is_empty() {
                // From line `start` on, every third line: an LF after `cut` characters and
                // as many characters fewer, so that the line's own LF is at `line` again.
                let early = i >= start && i % 3 == 1 && rest.len() > line;
                let take = if early { line - eol.len() } else { line.min(rest.len()) };
                let (chars, after) = rest.split_at(take);
                let begin = text.len();
                text.extend_from_slice(chars);
                if early {
                    text.insert(begin + cut, b'\n');
                }
                text.extend_from_slice(eol.as_bytes());
                if early {
                    assert_eq!(text.len() - begin, line + 1);
                }
                (rest, i) = (after, i + 1);
            }
            text.extend_from_slice(b"-----END PGP MESSAGE-----\n");
            for (threads, block_len) in [(1, BLOCK_TEXT_LEN), (2, 4096), (3, 1000), (2, BLOCK_TEXT_LEN)] {
                let (out, err) = read_threaded(&text, threads, block_len, 4096);
                assert_eq!(err, None, "{line} {cut} {eol:?} {start} {threads} {block_len}");
                assert!(out == data, "{line} {cut} {eol:?} {start} {threads} {block_len}");
            }
        }
        // Lines of 64 and 9 characters in turn, with CRLF: the 9-character line's LF is at 76
        // from the start of the 64-character one.
        let mut text = b"-----BEGIN PGP MESSAGE-----\n\n".to_vec();
        let (mut rest, mut long) = (b64.as_bytes(), true);
        while !rest.is_empty() {
            let (chars, after) = rest.split_at((if long { 64 } else { 9 }).min(rest.len()));
            text.extend_from_slice(chars);
            text.extend_from_slice(b"\r\n");
            (rest, long) = (after, !long);
        }
        text.extend_from_slice(b"-----END PGP MESSAGE-----\n");
        for (threads, block_len) in [(1, BLOCK_TEXT_LEN), (2, 4096), (3, 1000), (2, BLOCK_TEXT_LEN)] {
            let (out, err) = read_threaded(&text, threads, block_len, 4096);
            assert_eq!(err, None, "64/9 CRLF {threads} {block_len}");
            assert!(out == data, "64/9 CRLF {threads} {block_len}");
        }
    }

    #[test]
    fn threaded_reading_of_long_bodies() {
        let data: Vec<u8> = (0..3 * 1024 * 1024 + 7_u32)
            .map(|i| ((i.wrapping_mul(2_654_435_761) >> 13) % 251) as u8)
            .collect();
        for (line_len, crlf, checksum) in
            [(64, false, false), (76, true, true), (60, false, true), (65, false, false)]
        {
            let input = armored(&data, line_len, crlf, checksum);
            for threads in [2, 3] {
                let mut r = ArmorReader::new(&input[..]).threads(threads);
                let mut out = Vec::new();
                let mut buf = vec![0; 100_000];
                loop {
                    let n = r.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    out.extend_from_slice(&buf[..n]);
                    assert!(r.out.len() <= BLOCK_TEXT_LEN);
                    // Read ahead: at most the blocks in flight and the carried-over line.
                    assert!(r.ahead.text.len() <= 10 * BLOCK_TEXT_LEN);
                }
                assert!(out == data, "line length {line_len}, {threads} threads");
                assert!(matches!(r.state, State::Done));
                assert!(r.blocks.is_none());
            }
        }
    }

    #[test]
    fn threaded_errors_are_the_sequential_ones() {
        let data: Vec<u8> = (0..600_000_u32).map(|i| (i % 253) as u8).collect();
        let good = armored(&data, 64, false, false);
        let body_start = good.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
        let mut cases = Vec::new();
        // A character that is not base64, a stray padding, blanks, an empty line and a short
        // line, deep inside the third block.
        for (at, what) in
            [(&b"*"[..], "star"), (b"=", "pad"), (b" ", "blank"), (b"\n", "newline"), (b"\nAB", "short")]
                .into_iter()
                .map(|(w, n)| (body_start + 2 * BLOCK_TEXT_LEN + 1000, (w, n)))
        {
            let mut input = good.clone();
            drop(input.splice(at..at, what.0.iter().copied()));
            cases.push((what.1, input));
        }
        cases.push(("truncated", good[..good.len() - 40].to_vec()));
        cases.push(("cut in the body", good[..body_start + BLOCK_TEXT_LEN + 3].to_vec()));
        let mut wrong_end = good.clone();
        let end = wrong_end.len() - 12;
        wrong_end[end] = b'X';
        cases.push(("wrong END", wrong_end));
        for (name, input) in cases {
            let (seq_out, seq_err) = read_threaded(&input, 1, BLOCK_TEXT_LEN, 1 << 20);
            for threads in [2, 3] {
                let (out, err) = read_threaded(&input, threads, BLOCK_TEXT_LEN, 1 << 20);
                assert_eq!(err, seq_err, "{name}");
                assert!(seq_out.starts_with(&out) || out.starts_with(&seq_out), "{name}");
                if err.is_none() {
                    assert!(out == seq_out, "{name}");
                }
            }
            if name == "newline" || name == "blank" {
                // Whitespace is allowed: a line the threads leave to the scanner.
                assert_eq!(seq_err, None);
                assert!(seq_out == data);
            } else {
                assert!(seq_err.is_some(), "{name}");
            }
        }
    }

    /// A source that gives `data`, then fails every read.
    fn then_failing(data: &[u8]) -> impl BufRead + '_ {
        struct Fail;
        impl Read for Fail {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::ErrorKind::ConnectionReset.into())
            }
        }
        io::BufReader::with_capacity(8192, data.chain(Fail))
    }

    /// The threaded path reads no further than the block holding the END line (the sequential
    /// reader stops right after it): a source that fails (or would block) after the armor
    /// gives the same result. Its failure before the END line comes after the text read before
    /// it, as it does for the sequential reader, so a malformed body is reported as such.
    #[test]
    fn threaded_reading_stops_at_the_end_line_and_keeps_source_errors_in_place() {
        let data: Vec<u8> = (0..1_000_000_u32).map(|i| (i % 249) as u8).collect();
        let input = armored(&data, 64, false, false);
        for threads in [1, 2, 3] {
            let mut out = Vec::new();
            let r = ArmorReader::new(then_failing(&input)).threads(threads).read_to_end(&mut out);
            assert!(r.is_ok() && out == data, "{threads} threads");

            // Cut in the body: the source's error, after the octets before it.
            let cut = &input[..input.len() / 2];
            let mut out = Vec::new();
            let err = ArmorReader::new(then_failing(cut)).threads(threads).read_to_end(&mut out).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::ConnectionReset, "{threads} threads");
            assert!(data.starts_with(&out) && out.len() > data.len() / 3, "{threads} threads");

            // A bad character in the first line, then a source that fails 300 KiB later.
            let mut bad = input[..300_000].to_vec();
            let first_line = bad.windows(2).position(|w| w == b"\n\n").unwrap() + 3;
            bad[first_line] = b'*';
            let err = ArmorReader::new(then_failing(&bad))
                .threads(threads)
                .read_to_end(&mut Vec::new())
                .unwrap_err();
            assert!(matches!(Error::from_io(err), Error::Malformed(_)), "{threads} threads");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Whatever the input (well formed lines of any length, then edits), the threaded path
        /// reads the same octets and fails with the same error as the one-line-at-a-time path,
        /// for any block length and thread count.
        #[test]
        fn threaded_and_sequential_paths_agree(
            data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2000),
            line_len in proptest::sample::select(vec![4_usize, 8, 12, 60, 64, 76, 5, 63, 65, 1000]),
            crlf in proptest::prelude::any::<bool>(),
            checksum in proptest::prelude::any::<bool>(),
            edits in proptest::collection::vec(
                (proptest::prelude::any::<proptest::sample::Index>(),
                 proptest::sample::select(b"=-* \t\r\nA".to_vec()), 0_u8..3),
                0..3),
            block_len in proptest::sample::select(vec![1_usize, 3, 66, 100, 131, 700, 5000]),
            threads in 2_usize..4,
            read_size in proptest::sample::select(vec![1_usize, 7, 4096]),
        ) {
            let mut input = armored(&data, line_len, crlf, checksum);
            for (at, byte, op) in edits {
                let at = at.index(input.len());
                match op {
                    0 => input[at] = byte,
                    1 => input.insert(at, byte),
                    _ => { let _ = input.remove(at); }
                }
            }
            let (seq_out, seq_err) = read_threaded(&input, 1, block_len, read_size);
            let (out, err) = read_threaded(&input, threads, block_len, read_size);
            proptest::prop_assert_eq!(&err, &seq_err, "input {:?}", String::from_utf8_lossy(&input));
            proptest::prop_assert!(seq_out.starts_with(&out) || out.starts_with(&seq_out));
            if err.is_none() {
                proptest::prop_assert_eq!(out, seq_out);
            }
        }
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
            assert!(r.out.len() <= decoded_len(B64_CAP));
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

    /// `err` has the kind and the message of `(kind, text)`.
    fn assert_same(err: &io::Error, (kind, text): (io::ErrorKind, &str)) {
        assert_eq!((err.kind(), err.to_string().as_str()), (kind, text));
    }

    /// After the first error, every later call (`read`, `fill_buf`, `detect`) returns it again:
    /// for an error of the source before detection, in binary pass-through (where a retry is
    /// still a retry), in the body, and for bad input.
    #[test]
    fn errors_poison() {
        struct Broken<'a>(&'a [u8], io::ErrorKind);
        impl Read for Broken<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() {
                    return Err(io::Error::new(self.1, "broken"));
                }
                self.0.read(buf)
            }
        }
        let broken = (io::ErrorKind::BrokenPipe, "broken");
        let armored = b"-----BEGIN PGP MESSAGE-----\n\nwgABAgME";
        for (input, first) in [(&b""[..], broken), (b"\xc2\x00\x01", broken), (&armored[..], broken)] {
            for threads in [1, 2] {
                let mut r = ArmorReader::new(io::BufReader::new(Broken(input, io::ErrorKind::BrokenPipe)))
                    .threads(threads);
                let err = io::copy(&mut r, &mut io::sink()).unwrap_err();
                assert_same(&err, first);
                assert_same(&r.read(&mut [0; 4]).unwrap_err(), first);
                assert_same(&r.fill_buf().unwrap_err(), first);
                assert_same(&r.detect().unwrap_err().into(), first);
            }
        }
        // Interrupted in pass-through is returned as it is, and not kept.
        let mut r = ArmorReader::new(io::BufReader::new(Broken(b"\xc2\x00", io::ErrorKind::Interrupted)));
        assert_eq!(r.read(&mut [0; 8]).unwrap(), 2);
        assert_eq!(r.read(&mut [0; 8]).unwrap_err().kind(), io::ErrorKind::Interrupted);
        assert_eq!(r.read(&mut [0; 8]).unwrap_err().kind(), io::ErrorKind::Interrupted);
        // Bad input: the kind and the message of the first error, whatever is called next.
        let mut r =
            ArmorReader::new(&b"-----BEGIN PGP MESSAGE-----\n\nwg!A\n-----END PGP MESSAGE-----\n"[..]);
        let err = r.read(&mut [0; 4]).unwrap_err();
        let first = (err.kind(), err.to_string());
        assert!(matches!(Error::from_io(err), Error::Malformed(_)));
        let first = (first.0, first.1.as_str());
        assert_same(&r.read(&mut [0; 4]).unwrap_err(), first);
        assert_same(&r.fill_buf().unwrap_err(), first);
        let again = r.detect().unwrap_err();
        assert!(matches!(again, Error::Malformed(_)));
        assert_same(&again.into(), first);
    }
}
