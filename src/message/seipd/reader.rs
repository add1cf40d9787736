//! [`SeipdReader`]: SEIPDv2 chunks in, authenticated plaintext out.

use std::io::{self, BufRead, Read};
use std::sync::Arc;

use super::{FIRST_READ_LEN, Job, SeipdCipher, bounds, chunk_pipeline, grown, octets, slot_len};
use crate::crypto::aead_backend::TAG_LEN;
use crate::crypto::secret::{SecretVec, SessionKey};
use crate::error::{Error, Poison, Result};
use crate::packet::seipd::SeipdHeader;
use crate::pipeline::{BufferPool, Pipeline, Work};

/// What the reader must see after a batch of chunks before it releases them: more than a final
/// tag alone, so that the last chunk is only ever decrypted together with the final tag
/// (the reader looks ahead one chunk slot and two tags).
pub(super) const LOOKAHEAD: usize = 2 * TAG_LEN;

/// The pipeline work of the reader: check the tag after `buf[..len]` and decrypt it into the
/// job's plaintext buffer, which is wiped on failure.
fn decrypt_job(cipher: &SeipdCipher, job: &mut Job) -> Result<()> {
    let (ct, rest) = job.buf.split_at_checked(job.len).ok_or_else(bounds)?;
    let tag = *rest.first_chunk::<TAG_LEN>().ok_or_else(bounds)?;
    let out = job.out.as_mut().and_then(|out| out.get_mut(..job.len)).ok_or_else(bounds)?;
    cipher.open_chunk_to(job.index, ct, out, &tag)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// More chunks may follow.
    Reading,
    /// The final tag verified; what is left in the plaintext window is the end.
    Done,
    /// An error happened; every further read fails.
    Failed,
}

/// Streams SEIPDv2 chunks (the packet body after the fields [`SeipdHeader`] reads) into
/// authenticated plaintext.
///
/// It reads the ciphertext into buffers of one chunk slot (chunk ‖ tag) plus two tags of
/// look-ahead: a buffer that fills up holds a chunk that is not the last one (the last chunk
/// is followed by the final tag only; if the look-ahead starts with the final tag of a message
/// ending with this chunk, data follows the message and the chunk fails unreleased), and goes
/// to the [`Pipeline`], which
/// decrypts it on a worker while the next ones are read; the look-ahead moves to the
/// front of the next buffer. The buffer that meets EOF holds the rest: at most one chunk and
/// the final tag, decrypted here, and its plaintext is released only after the final tag
/// verified too. Plaintext is released only after its chunk's tag verified, in
/// order, and only up to the first chunk that failed (the error comes when that plaintext has
/// been read). `Ok(0)` means the whole packet body was authenticated; truncation anywhere is an
/// error. The first buffer is 4 KiB (or less) and grows to a slot only if the stream is longer;
/// the buffers after it are whole slots.
///
/// A chunk is decrypted out of its buffer into a plaintext buffer of its own, in the same pass
/// (`open_to`): the buffers that `inner.read` fills, which may reach the caller's source reader
/// (which may read what it is given, not only write it), never hold plaintext, and both kinds
/// are reused without being wiped in between. (The buffer that meets EOF is decrypted in place:
/// nothing is read after it.) Every buffer is wiped when the reader is dropped.
#[derive(Debug)]
pub(crate) struct SeipdReader<R: Read> {
    inner: R,
    cipher: Arc<SeipdCipher>,
    pub(super) pipeline: Pipeline<Job>,
    /// The look-ahead read after the last submitted chunk (ciphertext, not secret).
    carry: [u8; LOOKAHEAD],
    carry_len: usize,
    /// Set once a buffer met EOF: it and the octets it holds.
    pub(super) tail: Option<(SecretVec, usize)>,
    eof: bool,
    /// Chunks submitted.
    submitted: u64,
    /// Plaintext window: a verified chunk, `window_len` octets long, read up to `pos`.
    pub(super) window: Option<SecretVec>,
    /// Plaintext buffers of a chunk for the next jobs: the caller has read what they held.
    /// They are never the destination of a read of the source, so they are not wiped until
    /// they are dropped.
    plain: Vec<SecretVec>,
    window_len: usize,
    pos: usize,
    /// Chunks and plaintext octets released so far.
    chunk_index: u64,
    total: u64,
    /// The error to report once the released plaintext has been read.
    pending: Option<Error>,
    state: State,
    /// The first error, reported again by every later call.
    poison: Poison,
}

impl<R: Read> SeipdReader<R> {
    /// A reader over the chunks that follow `header` in `inner`, using
    /// [`default_threads`](crate::pipeline::policy::default_threads) threads.
    ///
    /// # Errors
    /// `Unsupported` for an unknown cipher or AEAD mode; `Decrypt` if the session key does not
    /// have the cipher's key length.
    pub(crate) fn new(inner: R, session_key: &SessionKey, header: &SeipdHeader) -> Result<Self> {
        let cipher = Arc::new(SeipdCipher::new(session_key, header).map_err(|e| match e {
            Error::InvalidArgument(_) => Error::Decrypt,
            other => other,
        })?);
        let buf_len =
            slot_len(&cipher)?.checked_add(LOOKAHEAD).ok_or(Error::InvalidArgument("chunk size"))?;
        let work_cipher = Arc::clone(&cipher);
        let work: Work<Job> = Arc::new(move |job: &mut Job| job.result = decrypt_job(&work_cipher, job));
        let pipeline = chunk_pipeline(work, buf_len);
        Ok(Self {
            inner,
            cipher,
            pipeline,
            carry: [0; LOOKAHEAD],
            carry_len: 0,
            tail: None,
            eof: false,
            submitted: 0,
            window: None,
            plain: Vec::new(),
            window_len: 0,
            pos: 0,
            chunk_index: 0,
            total: 0,
            pending: None,
            state: State::Reading,
            poison: Poison::default(),
        })
    }

    /// Sets the number of threads that decrypt chunks (1 = none started; 0 counts as 1).
    /// Takes effect until the workers start. `Decryptor::threads` sets it.
    pub(crate) fn set_threads(&mut self, threads: usize) {
        self.pipeline.set_threads(threads);
    }

    /// Runs the chunk workers for a calling thread that limits the speed (see
    /// [`Pipeline::set_caller_bound`]). Takes effect only if called before the workers
    /// start.
    pub(crate) fn set_caller_bound(&mut self) {
        self.pipeline.set_caller_bound();
    }

    /// Takes whole chunk buffers from `pool` and leaves them there at the end. The
    /// `Decryptor`'s pool (`Decryptor::buffer_pool`).
    pub(crate) fn set_buffer_pool(&mut self, pool: BufferPool) {
        self.pipeline.set_pool(pool);
    }

    /// The inner reader (positioned after the packet body once `read` returned `Ok(0)`).
    pub(crate) fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// True once the final tag has been verified.
    pub(crate) fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Reads the next buffer: the carried look-ahead, then up to one slot and the look-ahead.
    /// A full buffer is a chunk that is not the last: it is submitted. A buffer that met EOF
    /// becomes the tail.
    fn read_next(&mut self) -> Result<()> {
        let full_len = self.pipeline.buffer_len();
        // A recycled buffer; after a full chunk, one the pool kept or a new whole one; the
        // stream's first, a small one that grows to a whole one only if the data does.
        let mut buf = match self.pipeline.recycled() {
            Some(buf) => buf,
            None if self.submitted > 0 => {
                self.pipeline.pooled().unwrap_or_else(|| SecretVec::zeroed(full_len))
            }
            None => SecretVec::zeroed(full_len.min(FIRST_READ_LEN)),
        };
        let mut filled = self.carry_len;
        buf.get_mut(..filled)
            .ok_or_else(bounds)?
            .copy_from_slice(self.carry.get(..filled).ok_or_else(bounds)?);
        loop {
            if filled == buf.len() {
                if buf.len() >= full_len {
                    break;
                }
                buf = grown(&self.pipeline, &buf, filled, full_len)?;
            }
            let dst = buf.get_mut(filled..).ok_or_else(bounds)?;
            match self.inner.read(dst) {
                Ok(0) => {
                    self.tail = Some((buf, filled));
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => filled = filled.checked_add(n).filter(|&f| f <= buf.len()).ok_or_else(bounds)?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::from_io(e)),
            }
        }
        let chunk_size = self.cipher.chunk_size();
        let look_ahead = buf.get(full_len.checked_sub(LOOKAHEAD).ok_or_else(bounds)?..).ok_or_else(bounds)?;
        self.carry.copy_from_slice(look_ahead);
        self.carry_len = LOOKAHEAD;
        let count = self.submitted.checked_add(1).ok_or(Error::malformed("SEIPD: too many chunks"))?;
        // A full buffer is not the last chunk, unless data follows the final tag (the packet's
        // length is not authenticated): if the look-ahead starts with the final tag of a
        // message that ends with this chunk, the chunk is not released and the trailing data
        // is the error. (Data inserted before the final tag cannot be told from a bad chunk;
        // it fails at the chunk after this one.)
        let ends_here = self.carry.first_chunk::<TAG_LEN>().is_some_and(|tag| {
            octets(chunk_size)
                .ok()
                .and_then(|size| size.checked_mul(count))
                .is_some_and(|total| self.cipher.open_final(count, total, tag).is_ok())
        });
        let result =
            if ends_here { Err(Error::malformed("SEIPD: data after the final tag")) } else { Ok(()) };
        let mut job = Job::new(self.submitted, buf, chunk_size);
        job.result = result;
        self.submitted = count;
        if ends_here {
            // Reported in order, after the chunks before it; nothing more is read.
            self.pipeline.submit_failed(job);
            self.eof = true;
        } else {
            job.out = Some(self.plain_buffer());
            self.pipeline.submit(job, false);
        }
        Ok(())
    }

    /// A buffer for a chunk's plaintext: one the caller has read, one an earlier stream left in
    /// the pool (wiped), or a new one; of the pipeline's buffer length, so that it can go back
    /// to the pool.
    fn plain_buffer(&mut self) -> SecretVec {
        self.plain
            .pop()
            .or_else(|| self.pipeline.pooled())
            .unwrap_or_else(|| SecretVec::zeroed(self.pipeline.buffer_len()))
    }

    /// Makes `buf[..len]` (verified plaintext of chunk `index`) the window and counts it.
    ///
    /// The chunk's tag was checked under the nonce for `index`, so the chunk is released only
    /// if `index` is the next position in the stream: a pipeline that returned jobs out of
    /// order would otherwise release authentic plaintext in the wrong order.
    pub(super) fn release(&mut self, index: u64, buf: SecretVec, len: usize) -> Result<()> {
        if index != self.chunk_index {
            return Err(Error::Internal("SEIPD: chunk released out of order"));
        }
        self.chunk_index =
            self.chunk_index.checked_add(1).ok_or(Error::malformed("SEIPD: too many chunks"))?;
        self.total = self.total.checked_add(octets(len)?).ok_or(Error::malformed("SEIPD: too long"))?;
        self.window = Some(buf);
        self.window_len = len;
        self.pos = 0;
        Ok(())
    }

    /// Moves the plaintext window to the next verified chunk, or verifies the final tag.
    fn refill(&mut self) -> Result<()> {
        if let Some(buf) = self.window.take() {
            // Plaintext the caller has read: kept for the next jobs' plaintext (never read
            // into), or wiped as it is dropped.
            if buf.len() == self.pipeline.buffer_len() && self.plain.len() < self.pipeline.depth() {
                self.plain.push(buf);
            }
        }
        while !self.eof && self.pipeline.in_flight() < self.pipeline.depth() {
            self.read_next()?;
        }
        if let Some(job) = self.pipeline.collect() {
            let job = job?;
            // The ciphertext buffer never held plaintext: the next reads may go into it.
            self.pipeline.recycle(job.buf);
            return match job.result {
                Ok(()) => self.release(job.index, job.out.ok_or_else(bounds)?, job.len),
                Err(e) => {
                    self.pending = Some(e);
                    Ok(())
                }
            };
        }
        let (mut buf, n) = self.tail.take().ok_or_else(bounds)?;
        self.finish_tail(&mut buf, n)?;
        self.state = State::Done;
        Ok(())
    }

    /// At EOF with `n` octets in `buf`: at most one chunk ‖ its tag, then the final
    /// tag. On success the chunk is the window.
    fn finish_tail(&mut self, buf: &mut SecretVec, n: usize) -> Result<()> {
        if n < TAG_LEN {
            return Err(Error::Truncated("SEIPD: final tag"));
        }
        let body = n.checked_sub(TAG_LEN).ok_or_else(bounds)?;
        let final_tag = *buf.get(body..).and_then(|t| t.first_chunk::<TAG_LEN>()).ok_or_else(bounds)?;
        if body == 0 {
            return self.cipher.open_final(self.chunk_index, self.total, &final_tag);
        }
        // A chunk of 1..=chunk size octets ‖ its tag; anything else is not a chunk.
        let len = body
            .checked_sub(TAG_LEN)
            .filter(|&len| len > 0 && len <= self.cipher.chunk_size())
            .ok_or(Error::malformed("SEIPD: empty chunk"))?;
        // In place: nothing more is read from the source, into this buffer or any other.
        let mut tail = std::mem::take(buf);
        let (ct, rest) = tail.split_at_mut_checked(len).ok_or_else(bounds)?;
        let tag = *rest.first_chunk::<TAG_LEN>().ok_or_else(bounds)?;
        // Wipes `ct` if the tag does not verify; the rest of `tail` is the tag.
        self.cipher.open_chunk(self.chunk_index, ct, &tag)?;
        let count = self.chunk_index.checked_add(1).ok_or(Error::malformed("SEIPD: too many chunks"))?;
        let total = self.total.checked_add(octets(len)?).ok_or(Error::malformed("SEIPD: too long"))?;
        // The authenticated last chunk is released only with the final tag.
        self.cipher.open_final(count, total, &final_tag)?;
        self.release(self.chunk_index, tail, len)
    }

    /// The unread plaintext of the window.
    fn window(&self) -> Option<&[u8]> {
        let buf = self.window.as_ref()?;
        buf.get(self.pos..self.window_len).filter(|w| !w.is_empty())
    }
}

impl<R: Read> Drop for SeipdReader<R> {
    /// Leaves the plaintext buffers in the pool, if there is one (which wipes them), for the
    /// next streams; otherwise they are wiped as they are dropped.
    fn drop(&mut self) {
        for buf in self.plain.drain(..).chain(self.window.take()) {
            self.pipeline.leave(buf);
        }
    }
}

impl<R: Read> BufRead for SeipdReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        loop {
            self.poison.check_io()?;
            if self.window().is_some() {
                break;
            }
            if let Some(e) = self.pending.take() {
                self.state = State::Failed;
                return Err(self.poison.set(e).into());
            }
            if self.state == State::Done {
                return Ok(&[]);
            }
            if let Err(e) = self.refill() {
                self.state = State::Failed;
                return Err(self.poison.set(e).into());
            }
        }
        Ok(self.window().unwrap_or_default())
    }

    fn consume(&mut self, amt: usize) {
        if let Some(w) = self.window() {
            self.pos = self.pos.saturating_add(amt.min(w.len()));
        }
    }
}

impl<R: Read> Read for SeipdReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        crate::message::io::read_via_fill_buf(self, out)
    }
}
