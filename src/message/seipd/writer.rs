//! [`SeipdWriter`]: plaintext in, SEIPDv2 fields, chunks and the final tag out.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::ops::Range;
use std::sync::Arc;

use super::{FIRST_READ_LEN, Job, SeipdCipher, bounds, chunk_pipeline, grown, octets, slot_len};
use crate::crypto::aead_backend::TAG_LEN;
use crate::crypto::secret::{SecretVec, SessionKey};
use crate::error::{Error, Poison, Result};
use crate::packet::Serialize;
use crate::packet::seipd::SeipdHeader;
use crate::pipeline::{BufferPool, Pipeline, Work};
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

/// The pipeline work of the writer: encrypt `buf[..len]` in place, tag after it.
fn encrypt_job(cipher: &SeipdCipher, job: &mut Job) -> Result<()> {
    let slot = job.buf.get_mut(..job.len.checked_add(TAG_LEN).ok_or_else(bounds)?).ok_or_else(bounds)?;
    let (data, tag_out) = slot.split_at_mut_checked(job.len).ok_or_else(bounds)?;
    let tag = cipher.seal_chunk(job.index, data)?;
    tag_out.copy_from_slice(&tag);
    Ok(())
}

/// Streams plaintext into SEIPDv2 fields and chunks (the packet *body*; wrap `inner` in a
/// `PartialBodyWriter` for the framing).
///
/// The plaintext goes straight into a chunk buffer (chunk ‖ room for the tag): `write` copies
/// it there, and a layer above can instead fill the buffer itself (read a source into it)
/// through [`spare`](Self::spare) and [`commit`](Self::commit), so that the calling thread
/// moves each octet once. A full buffer is handed to the [`Pipeline`], which encrypts it in
/// place on a worker thread while the caller fills the next one, and encrypted chunks are
/// written in order, each with its tag in one call. The first buffer starts at 4 KiB and grows
/// to a chunk only if the data does, and the first chunks (4 MiB, see `policy::seipd::SOLO_OCTETS`) are
/// encrypted on the calling thread, so a short message allocates little and starts no thread.
/// `finish` writes the last (short, non-empty) chunk and the final tag.
///
/// The last `lookback` octets written stay unencrypted, so that the layer above can
/// [`take_back`](Self::take_back) and rewrite them (a partial length octet that turned out to
/// be the final one): a full chunk waits until that many octets follow it.
///
/// Dropping without `finish` writes nothing more; the output then fails to decrypt.
/// The ciphertext depends neither on the thread count nor on how the plaintext arrived.
#[derive(Debug)]
#[must_use = "call finish() to write the final tag"]
pub(crate) struct SeipdWriter<W: Write> {
    pub(super) inner: W,
    cipher: Arc<SeipdCipher>,
    pub(super) pipeline: Pipeline<Job>,
    /// Full chunks not handed to the pipeline yet: fewer than `lookback` octets follow them.
    held: VecDeque<SecretVec>,
    /// Whether a chunk's last octets that `inner` leaves wait in its buffer (see
    /// `write_chunk`).
    hold_tails: bool,
    /// An encrypted chunk whose last octets `inner` left (less than one of its parts): they
    /// go out in front of the next chunk.
    unwritten: Option<(SecretVec, Range<usize>)>,
    /// The chunk being filled: data ‖ room for the tag.
    pub(super) cur: SecretVec,
    /// Plaintext octets in `cur`.
    pub(super) len: usize,
    /// Octets of the last `spare` that `commit` may accept.
    spare_len: usize,
    /// Octets at the end of the stream that `take_back` may return.
    lookback: usize,
    chunk_index: u64,
    /// Plaintext octets handed to the pipeline.
    total: u64,
    /// The first error, reported again by every later call.
    poison: Poison,
}

impl<W: Write> SeipdWriter<W> {
    /// Writes the SEIPDv2 fields (version, `sym`, `aead`, `chunk_size_octet`, `salt`) to `inner`
    /// and returns a writer for the plaintext, using
    /// [`default_threads`](crate::pipeline::policy::default_threads) threads.
    ///
    /// # Errors
    /// `Unsupported` for a cipher or mode this crate lacks, `Malformed`-free but
    /// `InvalidArgument` for a chunk size octet over 16 or a session key of the wrong length;
    /// I/O errors of `inner`.
    pub(crate) fn new(
        mut inner: W,
        session_key: &SessionKey,
        sym: SymmetricAlgorithm,
        aead: AeadAlgorithm,
        chunk_size_octet: u8,
        salt: [u8; 32],
    ) -> Result<Self> {
        if chunk_size_octet > crate::packet::seipd::MAX_CHUNK_SIZE_OCTET {
            return Err(Error::InvalidArgument("chunk size octet above 16"));
        }
        let header = SeipdHeader { sym, aead, chunk_size_octet, salt };
        let cipher = Arc::new(SeipdCipher::new(session_key, &header)?);
        let slot_len = slot_len(&cipher)?;
        header.write_to(&mut inner)?;
        let work_cipher = Arc::clone(&cipher);
        let work: Work<Job> = Arc::new(move |job: &mut Job| job.result = encrypt_job(&work_cipher, job));
        let pipeline = chunk_pipeline(work, slot_len);
        Ok(Self {
            inner,
            cipher,
            pipeline,
            held: VecDeque::new(),
            hold_tails: false,
            unwritten: None,
            cur: SecretVec::zeroed(slot_len.min(FIRST_READ_LEN)),
            len: 0,
            spare_len: 0,
            lookback: 0,
            chunk_index: 0,
            total: 0,
            poison: Poison::default(),
        })
    }

    /// Sets the number of threads that encrypt chunks (1 = none started; 0 counts as 1).
    /// Takes effect until the workers start; the ciphertext is the same for any value.
    /// `Encryptor::threads` sets it.
    pub(crate) fn set_threads(&mut self, threads: usize) {
        self.pipeline.set_threads(threads);
    }

    /// Runs the chunk workers for a calling thread that limits the speed (see
    /// [`Pipeline::set_caller_bound`]). Takes effect only if called before the workers
    /// start; the ciphertext is the same either way.
    pub(crate) fn set_caller_bound(&mut self) {
        self.pipeline.set_caller_bound();
    }

    /// Lets the last octets of a chunk that `inner` does not take wait in the chunk's buffer
    /// for the next chunk instead of being written at once (see `write_chunk`). Takes effect
    /// for the chunks written after it; the output is the same either way.
    pub(crate) fn set_hold_tails(&mut self, hold: bool) {
        self.hold_tails = hold;
    }

    /// Takes whole chunk buffers from `pool` and leaves them there at the end.
    /// `Encryptor::buffer_pool` sets it.
    pub(crate) fn set_buffer_pool(&mut self, pool: BufferPool) {
        self.pipeline.set_pool(pool);
    }

    /// Keeps the last `octets` written unencrypted for [`take_back`](Self::take_back).
    pub(crate) fn set_lookback(&mut self, octets: usize) {
        self.lookback = octets;
    }

    /// Writes finished chunks, oldest first, until at most `keep` are in flight.
    fn drain(&mut self, keep: usize) -> Result<()> {
        while self.pipeline.in_flight() > keep {
            let Some(job) = self.pipeline.collect() else { break };
            let job = job?;
            job.result?;
            let end = job.len.checked_add(TAG_LEN).ok_or_else(bounds)?;
            self.write_chunk(job.buf, end)?;
        }
        Ok(())
    }

    /// Writes `buf[..end]`, or with `hold_tails`: the octets `inner` left of the previous
    /// chunk and then `buf[..end]`, in vectored writes, until `inner` has taken the former.
    /// A `PartialBodyWriter` takes whole parts and leaves the rest of a chunk (a chunk and its
    /// tag are never a whole number of parts), which then waits here for the next chunk
    /// rather than being copied into the part writer's buffer. Another writer takes
    /// everything, or the rest goes out with the next chunk.
    fn write_chunk(&mut self, buf: SecretVec, end: usize) -> Result<()> {
        if !self.hold_tails {
            self.write_unwritten()?;
            self.inner.write_all(buf.get(..end).ok_or_else(bounds)?)?;
            self.pipeline.recycle(buf);
            return Ok(());
        }
        let old = self.unwritten.take();
        let (old_buf, mut range) = old.as_ref().map_or((&[][..], 0..0), |(b, r)| (&b[..], r.clone()));
        let mut pos = 0;
        loop {
            let a = old_buf.get(range.clone()).ok_or_else(bounds)?;
            let b = buf.get(pos..end).ok_or_else(bounds)?;
            let n = match self.inner.write_vectored(&[io::IoSlice::new(a), io::IoSlice::new(b)]) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero).into()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            let from_old = n.min(range.len());
            range.start = range.start.saturating_add(from_old);
            pos = pos.saturating_add(n.saturating_sub(from_old)).min(end);
            if range.is_empty() {
                break;
            }
        }
        if let Some((old_buf, _)) = old {
            self.pipeline.recycle(old_buf);
        }
        if pos < end {
            self.unwritten = Some((buf, pos..end));
        } else {
            self.pipeline.recycle(buf);
        }
        Ok(())
    }

    /// Writes all that `inner` left of the last chunk.
    fn write_unwritten(&mut self) -> Result<()> {
        if let Some((old, range)) = self.unwritten.take() {
            self.inner.write_all(old.get(range).ok_or_else(bounds)?)?;
            self.pipeline.recycle(old);
        }
        Ok(())
    }

    /// Hands `len` octets of plaintext in `buf` to the pipeline as the next chunk (on this
    /// thread if `inline`), and writes what is finished.
    fn submit(&mut self, buf: SecretVec, len: usize, inline: bool) -> Result<()> {
        let job = Job::new(self.chunk_index, buf, len);
        self.chunk_index =
            self.chunk_index.checked_add(1).ok_or(Error::InvalidArgument("too many chunks"))?;
        self.total =
            self.total.checked_add(octets(len)?).ok_or(Error::InvalidArgument("message too long"))?;
        self.pipeline.submit(job, inline);
        self.drain(self.pipeline.depth().saturating_sub(1))
    }

    /// Submits the held chunks that `lookback` octets follow.
    fn release_held(&mut self) -> Result<()> {
        let chunk_size = self.cipher.chunk_size();
        while !self.held.is_empty() {
            // Octets written after the oldest held chunk.
            let after = self.held.len().saturating_sub(1).saturating_mul(chunk_size).saturating_add(self.len);
            if after < self.lookback {
                break;
            }
            let Some(full) = self.held.pop_front() else { break };
            self.submit(full, chunk_size, false)?;
        }
        Ok(())
    }

    /// The current chunk with room for `want` more octets (fewer if the chunk ends first).
    fn room(&mut self, want: usize) -> Result<usize> {
        let chunk_size = self.cipher.chunk_size();
        if self.len >= chunk_size {
            self.held.push_back(std::mem::take(&mut self.cur));
            self.len = 0;
        }
        self.release_held()?;
        if self.cur.is_empty() {
            // The chunk after a full one: a recycled slot, or a new buffer grown below.
            self.cur = self.pipeline.recycled().unwrap_or_default();
        }
        let n = chunk_size.saturating_sub(self.len).min(want);
        // The room the buffer has now, before it grows: a source read into it (a short
        // message) then fills a small buffer rather than growing it in advance.
        let free = self.cur.len().saturating_sub(self.len).saturating_sub(TAG_LEN);
        if free > 0 || n == 0 {
            return Ok(n.min(free));
        }
        // The first chunk buffer outgrew its start: double (from 4 KiB), up to a whole slot,
        // so that a short message allocates little. After a full chunk, a whole slot.
        let slot = chunk_size.checked_add(TAG_LEN).ok_or_else(bounds)?;
        let size = if self.chunk_index > 0 || !self.held.is_empty() {
            slot
        } else {
            self.cur.len().saturating_mul(2).max(FIRST_READ_LEN).min(slot)
        };
        self.cur = grown(&self.pipeline, &self.cur, self.len, size)?;
        let free = size.saturating_sub(self.len).saturating_sub(TAG_LEN);
        Ok(n.min(free))
    }

    /// Room for up to `max` (at least 1 if `max` is) more octets of plaintext, at the end of
    /// the current chunk: fill a prefix of it and [`commit`](Self::commit) that. It may hold
    /// an earlier chunk's ciphertext, never plaintext.
    ///
    /// # Errors
    /// An earlier error, or one writing finished chunks.
    pub(crate) fn spare(&mut self, max: usize) -> Result<&mut [u8]> {
        self.poison.check()?;
        self.spare_len = 0;
        let n = self.room(max);
        let n = self.poison.guard(n)?;
        self.spare_len = n;
        let end = self.len.checked_add(n).ok_or_else(bounds)?;
        self.cur.get_mut(self.len..end).ok_or_else(bounds)
    }

    /// The first `n` octets of the last [`spare`](Self::spare) hold plaintext.
    ///
    /// # Errors
    /// `Internal` if `n` is more than that `spare` gave (which poisons the writer).
    pub(crate) fn commit(&mut self, n: usize) -> Result<()> {
        let spare = std::mem::take(&mut self.spare_len);
        let len = self
            .len
            .checked_add(n)
            .filter(|_| n <= spare)
            .ok_or(Error::Internal("SEIPD: commit past the spare space"));
        self.len = self.poison.guard(len)?;
        Ok(())
    }

    /// Takes back the last `n` octets written (at most the lookback, see
    /// [`set_lookback`](Self::set_lookback)) and returns them; the space they held is wiped.
    ///
    /// # Errors
    /// `Internal` for more octets than are kept back (which poisons the writer).
    pub(crate) fn take_back(&mut self, n: usize) -> Result<SecretVec> {
        self.poison.check()?;
        let result = self.take_back_inner(n);
        self.poison.guard(result)
    }

    fn take_back_inner(&mut self, n: usize) -> Result<SecretVec> {
        if n > self.lookback {
            return Err(Error::Internal("SEIPD: take back past the lookback"));
        }
        let mut out = SecretVec::zeroed(n);
        // Octets of `out` still to fill, from its end backwards.
        let mut left = n;
        while left > 0 {
            if self.len == 0 {
                // The current chunk is empty: the held one before it is current again.
                let prev = self.held.pop_back().ok_or_else(bounds)?;
                let empty = std::mem::replace(&mut self.cur, prev);
                self.pipeline.recycle(empty);
                self.len = self.cipher.chunk_size();
            }
            let k = left.min(self.len);
            let from = self.len.checked_sub(k).ok_or_else(bounds)?;
            let start = left.checked_sub(k).ok_or_else(bounds)?;
            let src = self.cur.get_mut(from..self.len).ok_or_else(bounds)?;
            out.get_mut(start..left).ok_or_else(bounds)?.copy_from_slice(src);
            zeroize::Zeroize::zeroize(src);
            self.len = from;
            left = start;
        }
        Ok(out)
    }

    /// Writes the last chunk (if non-empty) and the final tag, flushes, and returns `inner`.
    ///
    /// # Errors
    /// I/O errors of `inner`, or an earlier error.
    pub(crate) fn finish(mut self) -> Result<W> {
        self.poison.check()?;
        let chunk_size = self.cipher.chunk_size();
        while let Some(full) = self.held.pop_front() {
            self.submit(full, chunk_size, false)?;
        }
        if self.len > 0 {
            let last = std::mem::take(&mut self.cur);
            let len = std::mem::take(&mut self.len);
            self.submit(last, len, true)?;
        }
        self.drain(0)?;
        self.write_unwritten()?;
        let tag = self.cipher.seal_final(self.chunk_index, self.total)?;
        self.inner.write_all(&tag)?;
        self.inner.flush()?;
        let Self { inner, .. } = self;
        Ok(inner)
    }
}

impl<W: Write> Write for SeipdWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            self.poison.check_io()?;
            return Ok(0);
        }
        let dst = self.spare(data.len())?;
        let n = dst.len();
        dst.copy_from_slice(data.get(..n).ok_or_else(bounds)?);
        self.commit(n)?;
        Ok(n)
    }

    /// Waits for the chunks being encrypted, writes them, and flushes `inner`: everything up
    /// to the last full chunk that the lookback does not keep is then out. Never writes a
    /// short chunk (the current one waits for more data or `finish`).
    fn flush(&mut self) -> io::Result<()> {
        self.poison.check_io()?;
        let result = self.drain(0).and_then(|()| self.write_unwritten());
        self.poison.guard(result)?;
        self.inner.flush()
    }
}
