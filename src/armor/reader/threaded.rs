//! The threaded path of [`ArmorReader`](super::ArmorReader) (see
//! [Threads](super::ArmorReader#threads)): the body read in
//! blocks whose plain lines workers decode while the calling thread reads the next ones.

use std::io::{self, BufRead};
use std::sync::Arc;

use super::scan::Ahead;
use crate::armor::base64::{decode_plain_lines, decoded_len};
use crate::armor::block_pipeline_shape;
use crate::crypto::secret::SecretVec;
use crate::error::Result;
use crate::pipeline::{Pipeline, Work};

/// Text read per block when decoding on several threads (4096 lines of 64 characters).
pub(super) const BLOCK_TEXT_LEN: usize = 4096 * 65;
/// Text read for the first block, so that short input allocates little.
const FIRST_BLOCK_TEXT_LEN: usize = 16 * 1024;

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
pub(super) struct BlockDecoder {
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
    /// [`ArmorReader::read_ahead`](super::ArmorReader::read_ahead)).
    read_ahead: bool,
    /// Jobs whose octets have been read, for their buffers.
    free: Vec<DecodeJob>,
}

impl BlockDecoder {
    /// `threads` as the reader's setting, the calling thread included (the first block is
    /// decoded on the calling thread).
    pub(super) fn new(threads: usize, block_len: usize, read_ahead: bool) -> Self {
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

    /// Workers started.
    #[cfg(test)]
    pub(super) fn worker_count(&self) -> usize {
        self.pipeline.worker_count()
    }

    /// Reads the next block of text: the carried-over start of a line, then the source until the
    /// block is full or reading stops (see [`BlockDecoder::stop`]), cut after the last line break (the
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

/// What [`BlockDecoder::next_block`] did.
pub(super) struct Decoded {
    /// The decoded octets now at the start of `out`, if a block came.
    pub(super) out_len: Option<usize>,
    /// The text from the first line that is not plain on, when the threaded path ends there.
    pub(super) rest: Option<Ahead>,
}

impl BlockDecoder {
    /// Keeps up to the pipeline's depth of blocks in flight and swaps the oldest one's octets
    /// into `out` (which is empty). At the first line that is not plain, the text from there
    /// on (the rest of that block, the blocks after it and the carried-over line) becomes the
    /// scanner's, and the threaded path ends. Entered at the start of a line with no base64
    /// pending, which is where every block starts.
    pub(super) fn next_block<R: BufRead>(&mut self, inner: &mut R, out: &mut SecretVec) -> Result<Decoded> {
        while !self.stop && self.pipeline.in_flight() < self.pipeline.depth() {
            match self.read_block(inner) {
                Some(job) => self.pipeline.submit(job, false),
                None => break,
            }
        }
        let mut out_len = None;
        let mut later = Vec::new();
        match self.pipeline.collect() {
            // Every block has been decoded; what is left is a line without a line break.
            None => {}
            Some(job) => {
                let mut job = job?;
                std::mem::swap(out, &mut job.out);
                out_len = Some(job.out_len);
                if job.used == job.text_len {
                    self.recycle(job);
                    return Ok(Decoded { out_len, rest: None });
                }
                later.push(job);
                // Only their text is wanted: queued blocks are not decoded.
                while let Some(job) = self.pipeline.collect_unrun() {
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
            .chain([self.carry.as_slice()])
            .collect();
        let text = SecretVec::new(pieces.concat());
        Ok(Decoded { out_len, rest: Some(Ahead { text, pos: 0, error: self.error.take() }) })
    }
}
