//! The armor encoder ([RFC 9580 §6.2](https://www.rfc-editor.org/rfc/rfc9580#section-6.2)).

use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use zeroize::Zeroizing;

use super::base64::{
    BATCH_LINES, LINE_INPUT_LEN, LINE_LEN, encode_into, encode_lines, encode_lines_into, encoded_lines_len,
};
use super::{ArmorKind, DASHES, block_pipeline_shape, reserve_wiped};
use crate::crypto::secret::{SecretVec, WipedArray};
use crate::error::{Error, Poison, Result};
use crate::pipeline::{Pipeline, Work};

/// Encoded lines (with their LF) collected before one write to the sink.
const OUT_CAP: usize = 128 * (LINE_LEN + 1);
/// Input octets per block when encoding on several threads: 4096 lines (256 KiB of base64).
const BLOCK_LINES: usize = 4096;
const BLOCK_INPUT_LEN: usize = BLOCK_LINES * LINE_INPUT_LEN;
/// The armored text of one full block, newlines included.
const BLOCK_TEXT_LEN: usize = BLOCK_LINES * (LINE_LEN + 1);
/// Input octets of the first block (341 lines), so that short output allocates little.
const FIRST_BLOCK_INPUT_LEN: usize = 341 * LINE_INPUT_LEN;

/// Writes binary OpenPGP data as an ASCII-armored block
/// ([RFC 9580 §6](https://www.rfc-editor.org/rfc/rfc9580#section-6)).
///
/// The output is the BEGIN line, a blank line (no armor headers), base64 in lines of 64
/// characters, and the END line, all ending in LF. No CRC24 checksum line is written
/// ([RFC 9580 §6.1](https://www.rfc-editor.org/rfc/rfc9580#section-6.1)).
///
/// [`finish`](Self::finish) must be called to write the last line and the END line. Dropping the
/// writer without it does no I/O and leaves an incomplete block. After an error (of the sink)
/// every later call returns that error again.
///
/// With [`threads`](Self::threads) above 1, the input is collected in blocks whose
/// base64 is computed on worker threads while the calling thread goes on; the output is the
/// same. Memory is then bounded by the blocks in flight: about 2 × `threads` + 3 blocks of
/// 450 KiB.
///
/// ```
/// use std::io::Write;
/// use sixpgp::{ArmorKind, ArmorWriter};
///
/// let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Signature)?;
/// w.write_all(b"\xc2\x00")?;
/// let out = w.finish()?;
/// assert_eq!(out, b"-----BEGIN PGP SIGNATURE-----\n\nwgA=\n-----END PGP SIGNATURE-----\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "call `finish` to complete the armored block"]
pub struct ArmorWriter<W: Write> {
    inner: W,
    kind: ArmorKind,
    /// Input octets of the current, not yet complete line.
    partial: Zeroizing<[u8; LINE_INPUT_LEN]>,
    partial_len: usize,
    /// Encoded lines not yet written to `inner`; never longer than `OUT_CAP`.
    out: SecretVec,
    /// The first error, reported again by every later call.
    poison: Poison,
    /// With more than one thread: the blocks being encoded (`partial` and `out` are then unused).
    blocks: Option<Box<BlockEncoder>>,
}

/// A block of input octets and, once the work has run, its armored lines.
struct EncodeJob {
    input: SecretVec,
    /// `text[..text_len]`: the lines. Allocated zeroed at its full length once, so that the work
    /// writes the lines in place.
    text: SecretVec,
    text_len: usize,
}

/// Blocks encoded on worker threads, written in order.
struct BlockEncoder {
    pipeline: Pipeline<EncodeJob>,
    /// Input of the next block, up to `block_input_len` octets.
    next: SecretVec,
    /// [`FIRST_BLOCK_INPUT_LEN`] for the first block, [`BLOCK_INPUT_LEN`] after it.
    block_input_len: usize,
    /// Jobs already written, for their buffers.
    free: Vec<EncodeJob>,
}

impl BlockEncoder {
    fn new(threads: usize) -> Self {
        let work: Work<EncodeJob> = Arc::new(|job: &mut EncodeJob| {
            job.text_len = encode_lines_into(&job.input, &mut job.text);
        });
        let mut pipeline = Pipeline::new("sixpgp-armor", work, block_pipeline_shape(BLOCK_TEXT_LEN));
        pipeline.set_threads(threads);
        Self {
            pipeline,
            next: SecretVec::default(),
            block_input_len: FIRST_BLOCK_INPUT_LEN,
            free: Vec::new(),
        }
    }

    /// Hands the input collected so far to the pipeline (the first block runs on the calling
    /// thread: a short message starts no thread), then writes the finished blocks while more
    /// than `keep` are in flight.
    fn submit<W: Write>(&mut self, inner: &mut W, keep: usize) -> io::Result<()> {
        if !self.next.is_empty() {
            // The text buffer has room for the whole block (the free jobs are full-sized).
            let text_len = encoded_lines_len(self.next.len());
            let mut job = self.free.pop().filter(|job| job.text.len() >= text_len).unwrap_or_else(|| {
                EncodeJob { input: SecretVec::default(), text: SecretVec::zeroed(text_len), text_len: 0 }
            });
            std::mem::swap(&mut job.input, &mut self.next);
            self.next.clear();
            self.pipeline.submit(job, false);
            self.block_input_len = BLOCK_INPUT_LEN;
        }
        self.drain(inner, keep)
    }

    /// Writes finished blocks in order while more than `keep` are in flight.
    fn drain<W: Write>(&mut self, inner: &mut W, keep: usize) -> io::Result<()> {
        while self.pipeline.in_flight() > keep {
            let Some(job) = self.pipeline.collect() else { break };
            let job = job.map_err(io::Error::from)?;
            // The text buffer was sized for the whole block: nothing was left out.
            debug_assert_eq!(job.text_len, {
                let chars = job.input.len().div_ceil(3).saturating_mul(4);
                chars.saturating_add(chars.div_ceil(LINE_LEN))
            });
            inner.write_all(job.text.get(..job.text_len).unwrap_or_default())?;
            // Only full-sized buffers are kept (not the first block's).
            if self.free.len() < 2
                && job.input.capacity() >= BLOCK_INPUT_LEN
                && job.text.len() >= BLOCK_TEXT_LEN
            {
                self.free.push(job);
            }
        }
        Ok(())
    }

    /// Takes octets into the next block, submitting full ones.
    fn write<W: Write>(&mut self, inner: &mut W, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            let block_len = self.block_input_len;
            reserve_wiped(&mut self.next, block_len);
            let take = block_len.saturating_sub(self.next.len()).min(data.len());
            let (head, tail) = data.split_at(take);
            self.next.extend_from_slice(head);
            data = tail;
            if self.next.len() >= block_len {
                let keep = self.pipeline.depth().saturating_sub(1);
                self.submit(inner, keep)?;
            }
        }
        Ok(())
    }

    /// Submits the complete lines collected so far and writes every block; the incomplete last
    /// line stays in `next`.
    fn flush<W: Write>(&mut self, inner: &mut W) -> io::Result<()> {
        let whole = self.next.len().saturating_sub(self.next.len() % LINE_INPUT_LEN);
        let rest = SecretVec::new(self.next.get(whole..).unwrap_or_default().to_vec());
        self.next.truncate(whole);
        self.submit(inner, 0)?;
        self.next.extend_from_slice(&rest);
        Ok(())
    }
}

impl<W: Write> ArmorWriter<W> {
    /// Starts an armored block of `kind`, writing its BEGIN line and the blank line that ends the
    /// (empty) armor header section to `inner` at once.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if `inner` fails.
    pub fn new(mut inner: W, kind: ArmorKind) -> Result<Self> {
        let mut begin = SecretVec::with_capacity(64);
        write_marker(&mut begin, "BEGIN", kind);
        begin.push(b'\n');
        inner.write_all(&begin)?;
        Ok(Self {
            inner,
            kind,
            partial: Zeroizing::new([0; LINE_INPUT_LEN]),
            partial_len: 0,
            out: SecretVec::with_capacity(OUT_CAP),
            poison: Poison::default(),
            blocks: None,
        })
    }

    /// Encodes on `threads` threads in all, the calling thread included (1, the default, or 0:
    /// on the calling thread only): `threads` − 1 workers encode blocks while the calling thread
    /// collects the input and writes the output, and it encodes one itself when it would
    /// otherwise wait for them. At most the available parallelism, or 4 if that is more. Short
    /// output starts no thread. The output is identical for every value.
    /// Takes effect only while nothing is buffered: before the first write, or after a flush
    /// that left no partial line; otherwise the call changes nothing.
    pub fn threads(mut self, threads: usize) -> Self {
        let untouched = self.partial_len == 0 && self.out.is_empty();
        if untouched && self.blocks.as_ref().is_none_or(|b| b.pipeline.in_flight() == 0 && b.next.is_empty())
        {
            self.blocks = (threads > 1).then(|| Box::new(BlockEncoder::new(threads)));
        }
        self
    }

    /// Writes the last base64 line (with padding), the END line, flushes the sink and returns it.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the sink fails; the first error again if an earlier call failed.
    pub fn finish(mut self) -> Result<W> {
        self.poison.check()?;
        // No call follows `finish`: its own error needs no keeping.
        self.finish_inner().map_err(Error::from_io)?;
        Ok(self.inner)
    }

    fn finish_inner(&mut self) -> io::Result<()> {
        if let Some(blocks) = &mut self.blocks {
            // The last block ends with the last line, padded.
            blocks.submit(&mut self.inner, 0)?;
        }
        // The last line: whatever is left, padded (RFC 4648 §4 as required by RFC 9580 §6.3).
        // Room first for it and the END line: `out` is never reallocated (which would leave
        // a copy unwiped).
        if self.out.len() > OUT_CAP.saturating_sub(2 * (LINE_LEN + 1)) {
            self.inner.write_all(&self.out)?;
            self.out.clear();
        }
        let rest = self.partial.get(..self.partial_len).unwrap_or_default();
        encode_lines(rest, &mut self.out);
        self.partial_len = 0;
        write_marker(&mut self.out, "END", self.kind);
        self.inner.write_all(&self.out)?;
        self.out.clear();
        self.inner.flush()
    }

    /// Encodes one complete line of input into `out`, writing `out` to the sink first if full.
    fn push_line(&mut self, input: &[u8; LINE_INPUT_LEN]) -> io::Result<()> {
        if self.out.len() > OUT_CAP.saturating_sub(LINE_LEN + 1) {
            self.inner.write_all(&self.out)?;
            self.out.clear();
        }
        let mut line = WipedArray::<LINE_LEN>::new();
        let n = encode_into(input, &mut line);
        debug_assert_eq!(n, LINE_LEN);
        self.out.extend_from_slice(&line);
        self.out.push(b'\n');
        Ok(())
    }

    /// Encodes up to [`BATCH_LINES`] complete lines and appends them to `out`.
    fn push_lines(&mut self, lines: &[[u8; LINE_INPUT_LEN]]) -> io::Result<()> {
        let encoded_len = lines.len().saturating_mul(LINE_LEN);
        if self.out.len().saturating_add(encoded_len).saturating_add(lines.len()) > OUT_CAP {
            self.inner.write_all(&self.out)?;
            self.out.clear();
        }
        encode_lines(lines.as_flattened(), &mut self.out);
        Ok(())
    }

    fn write_inner(&mut self, mut data: &[u8]) -> io::Result<()> {
        if let Some(blocks) = &mut self.blocks {
            return blocks.write(&mut self.inner, data);
        }
        // Complete the pending partial line first.
        if self.partial_len > 0 {
            let free = self.partial.get_mut(self.partial_len..).unwrap_or_default();
            let take = free.len().min(data.len());
            let (head, tail) = data.split_at(take);
            if let Some(dst) = free.get_mut(..take) {
                dst.copy_from_slice(head);
            }
            data = tail;
            self.partial_len = self.partial_len.saturating_add(take);
            if self.partial_len < LINE_INPUT_LEN {
                return Ok(());
            }
            let line = Zeroizing::new(*self.partial);
            self.partial_len = 0;
            self.push_line(&line)?;
        }
        // Whole lines straight from the input, encoded many lines per call (the base64
        // encoder's fast loop only runs on long inputs; line by line most of the time would go to
        // its scalar tail).
        let (lines, rest) = data.as_chunks::<LINE_INPUT_LEN>();
        for group in lines.chunks(BATCH_LINES) {
            self.push_lines(group)?;
        }
        if let Some(dst) = self.partial.get_mut(..rest.len()) {
            dst.copy_from_slice(rest);
            self.partial_len = rest.len();
        }
        Ok(())
    }
}

/// Appends `-----BEGIN <label>-----\n` (plus the blank line for BEGIN) or `-----END <label>-----\n`.
fn write_marker(out: &mut SecretVec, which: &str, kind: ArmorKind) {
    out.extend_from_slice(DASHES);
    out.extend_from_slice(which.as_bytes());
    out.push(b' ');
    out.extend_from_slice(kind.label().as_bytes());
    out.extend_from_slice(DASHES);
    out.push(b'\n');
}

impl<W: Write> Write for ArmorWriter<W> {
    /// Accepts all of `buf`; complete lines are written to the sink in blocks.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.poison.check_io()?;
        match self.write_inner(buf) {
            Ok(()) => Ok(buf.len()),
            Err(e) => Err(self.poison.set_io(e)),
        }
    }

    /// Writes every complete line to the sink and flushes it. The last, incomplete line stays
    /// buffered until [`finish`](ArmorWriter::finish).
    fn flush(&mut self) -> io::Result<()> {
        self.poison.check_io()?;
        let blocks = match &mut self.blocks {
            Some(blocks) => blocks.flush(&mut self.inner),
            None => Ok(()),
        };
        let result = blocks.and_then(|()| self.inner.write_all(&self.out)).and_then(|()| self.inner.flush());
        match result {
            Ok(()) => {
                self.out.clear();
                Ok(())
            }
            Err(e) => Err(self.poison.set_io(e)),
        }
    }
}

impl<W: Write> fmt::Debug for ArmorWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArmorWriter")
            .field("kind", &self.kind)
            .field("buffered", &self.out.len().saturating_add(self.partial_len))
            .field("threaded", &self.blocks.is_some())
            .field("poison", &self.poison)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    fn armor(data: &[u8], kind: ArmorKind) -> String {
        let mut w = ArmorWriter::new(Vec::new(), kind).unwrap();
        w.write_all(data).unwrap();
        String::from_utf8(w.finish().unwrap()).unwrap()
    }

    #[test]
    fn empty_input_gives_a_block() {
        assert_eq!(
            armor(b"", ArmorKind::Message),
            "-----BEGIN PGP MESSAGE-----\n\n-----END PGP MESSAGE-----\n"
        );
    }

    #[test]
    fn lines_are_64_characters() {
        let data: Vec<u8> = (0..=255).cycle().take(1000).collect();
        let text = armor(&data, ArmorKind::PublicKey);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "-----BEGIN PGP PUBLIC KEY BLOCK-----");
        assert_eq!(lines[1], "");
        let body = &lines[2..lines.len() - 1];
        for line in &body[..body.len() - 1] {
            assert_eq!(line.len(), 64);
        }
        assert_eq!(body.concat(), STANDARD.encode(&data));
        assert_eq!(lines[lines.len() - 1], "-----END PGP PUBLIC KEY BLOCK-----");
    }

    #[test]
    fn write_splits_do_not_matter() {
        let data: Vec<u8> = (0..5000_u32).map(|i| (i * 7 % 251) as u8).collect();
        let whole = armor(&data, ArmorKind::Message);
        for split in [1, 2, 3, 47, 48, 49, 100, 4095] {
            let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap();
            for chunk in data.chunks(split) {
                w.write_all(chunk).unwrap();
            }
            assert_eq!(String::from_utf8(w.finish().unwrap()).unwrap(), whole);
        }
    }

    /// The threaded encoder writes the same text as the one-thread encoder, for sizes around
    /// the block length, any write sizes and flushes in between (which cut a block short).
    #[test]
    fn threads_do_not_change_the_output() {
        let data: Vec<u8> = (0..3 * BLOCK_INPUT_LEN + 100)
            .map(|i| u8::try_from((i.wrapping_mul(31) >> 3) % 251).unwrap())
            .collect();
        for len in [0, 1, 47, 48, BLOCK_INPUT_LEN - 1, BLOCK_INPUT_LEN, BLOCK_INPUT_LEN + 1, data.len()] {
            let data = &data[..len];
            let whole = armor(data, ArmorKind::Message);
            for (threads, split, flush_every) in
                [(2, 100_000, 0), (3, 4095, 7), (2, 1 << 20, 1), (4, 48, 5000)]
            {
                let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap().threads(threads);
                for (i, piece) in data.chunks(split).enumerate() {
                    w.write_all(piece).unwrap();
                    if flush_every > 0 && i % flush_every == 0 {
                        w.flush().unwrap();
                    }
                }
                let out = w.finish().unwrap();
                assert!(out == whole.as_bytes(), "len {len}, {threads} threads, writes of {split}");
            }
        }
    }

    /// `threads(n)` counts the calling thread: at most n − 1 workers ever run, and with n ≥ 2 a
    /// long input starts at least one.
    #[test]
    fn threads_count_the_calling_thread() {
        let data: Vec<u8> = (0..8 * BLOCK_INPUT_LEN).map(|i| u8::try_from(i % 251).unwrap()).collect();
        for threads in 1..=3 {
            let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap().threads(threads);
            let mut most = 0;
            for piece in data.chunks(BLOCK_INPUT_LEN / 3) {
                w.write_all(piece).unwrap();
                most = most.max(w.blocks.as_ref().map_or(0, |b| b.pipeline.worker_count()));
            }
            assert_eq!(String::from_utf8(w.finish().unwrap()).unwrap(), armor(&data, ArmorKind::Message));
            assert!(most < threads, "{threads} threads ran {most} workers");
            assert!(threads == 1 || most >= 1, "{threads} threads ran no worker");
        }
    }

    /// A sink failing while blocks are in flight poisons the threaded writer too: every later
    /// call returns the sink's error again.
    #[test]
    fn threaded_errors_poison() {
        let mut w = ArmorWriter::new(After(2), ArmorKind::Message).unwrap().threads(2);
        let block = vec![7u8; BLOCK_INPUT_LEN];
        let first =
            (0..20).find_map(|_| w.write_all(&block).err()).expect("the sink's error reaches the caller");
        assert_same(&first, BROKEN);
        assert_same(&w.write(&[0]).unwrap_err(), BROKEN);
        assert_same(&w.flush().unwrap_err(), BROKEN);
        assert_same(&w.finish().unwrap_err().into(), BROKEN);
    }

    const BROKEN: (io::ErrorKind, &str) = (io::ErrorKind::BrokenPipe, "no");

    /// `err` has the kind and the message of `(kind, text)`.
    fn assert_same(err: &io::Error, (kind, text): (io::ErrorKind, &str)) {
        assert_eq!((err.kind(), err.to_string().as_str()), (kind, text));
    }

    /// A sink that accepts this many writes, then fails.
    #[derive(Debug)]
    struct After(usize);
    impl Write for After {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::new(io::ErrorKind::BrokenPipe, "no"));
            }
            self.0 = self.0.saturating_sub(1);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    struct Failing;
    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "no"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn errors_poison() {
        assert!(ArmorWriter::new(Failing, ArmorKind::Message).is_err());
        // Fails after the BEGIN line: the first error, then the same on every later call.
        let mut w = ArmorWriter::new(After(1), ArmorKind::Message).unwrap();
        w.write_all(&[0; 100]).unwrap();
        assert_same(&w.flush().unwrap_err(), BROKEN);
        assert_same(&w.write(&[0]).unwrap_err(), BROKEN);
        assert_same(&w.write(&[]).unwrap_err(), BROKEN);
        assert_same(&w.flush().unwrap_err(), BROKEN);
        assert_same(&w.finish().unwrap_err().into(), BROKEN);
        // An error met by `finish` itself.
        let mut w = ArmorWriter::new(After(1), ArmorKind::Message).unwrap();
        w.write_all(&[0; 100]).unwrap();
        assert_same(&w.finish().unwrap_err().into(), BROKEN);
    }
}
