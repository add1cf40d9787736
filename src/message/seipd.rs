//! The SEIPDv2 chunk engine (RFC 9580 §5.13.2): key derivation, per-chunk AEAD, the final tag,
//! and the streaming [`SeipdWriter`] / [`SeipdReader`].
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.13.2>
//!
//! [`ChunkCipher`] is pure (no I/O, `&self` only), so several chunks can be processed in
//! parallel; the adapters only move bytes and keep the chunk index and total length.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read, Write};
use std::ops::Range;
use std::sync::Arc;

use crate::crypto::aead::AeadCipher;
use crate::crypto::chunk_aead::TAG_LEN;

/// What the reader must see after a batch of chunks before it releases them: more than a final
/// tag alone, so that the last chunk is only ever decrypted together with the final tag
/// (the reader looks ahead one chunk slot and two tags).
const LOOKAHEAD: usize = 2 * TAG_LEN;
use crate::crypto::hkdf;
use crate::crypto::secret::SecretVec;
use crate::crypto::secret::SessionKey;
use crate::error::{Error, Poison, Result, Unsupported};
use crate::packet::Serialize;
use crate::packet::seipd::SeipdHeader;
use crate::pipeline::{BufferPool, Pipeline, Shape, Work};
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

/// Largest HKDF output: a 32-octet key and an 8-octet IV (EAX).
const MAX_OKM_LEN: usize = 40;
/// Octets of the chunk index at the end of each nonce.
const INDEX_LEN: usize = 8;
/// Octets of chunks the writer and the reader process on the calling thread before they start
/// workers (at most [`MAX_SOLO_CHUNKS`]): 16 chunks of the default size. A stream shorter than
/// that starts no thread and keeps one buffer in flight, reused from chunk to chunk: for a
/// short message, starting threads (and the page faults and zeroing for the buffers in flight)
/// costs more than they save, while a long stream loses little by starting a few chunks later.
const SOLO_OCTETS: usize = 4 << 20;
/// Most chunks run on the calling thread before workers start: with small chunks the workers
/// still start early.
const MAX_SOLO_CHUNKS: usize = 16;
/// Octets of chunk buffers a pipeline keeps in flight at most (unless that is less than two
/// chunks): bounds memory whatever the thread count, for chunk sizes up to 4 MiB.
const IN_FLIGHT_BUDGET: usize = 8 << 20;
/// Where a stream's first chunk buffer (of the reader or the writer) starts, before it knows
/// the data is longer: a small message then allocates and wipes 4 KiB instead of a whole
/// 256 KiB slot. Buffers after a full chunk are whole slots from the start: growing each of
/// them from 4 KiB copied what it held at every doubling, and faulted in more new memory
/// than the slot it ended as.
const FIRST_READ_LEN: usize = 4096;

/// Derives the message key and IV prefix (RFC 9580 §5.13.2).
///
/// ```text
/// HKDF-SHA256(IKM = session key, salt = packet salt,
///             info = 0xD2 ‖ version ‖ cipher ‖ AEAD mode ‖ chunk size octet)
///   → message key (key length of the cipher) ‖ IV (nonce length − 8 octets)
/// ```
///
/// Returns the whole HKDF output and the key length.
///
/// # Errors
/// `Unsupported` for an unknown cipher or AEAD mode.
pub(crate) fn derive_keys(session_key: &[u8], header: &SeipdHeader) -> Result<(SecretVec, usize)> {
    let key_len =
        header.sym.key_len().ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(header.sym.into())))?;
    let iv_len = header
        .aead
        .nonce_len()
        .and_then(|n| n.checked_sub(INDEX_LEN))
        .ok_or(Error::Unsupported(Unsupported::AeadAlgorithm(header.aead.into())))?;
    let okm_len = key_len
        .checked_add(iv_len)
        .filter(|&n| n <= MAX_OKM_LEN)
        .ok_or(Error::InvalidArgument("HKDF length"))?;
    let mut okm = SecretVec::zeroed(okm_len);
    hkdf::sha256(&header.salt, session_key, &header.associated_data(), &mut okm)?;
    Ok((okm, key_len))
}

/// The keyed per-message state: one AEAD cipher, the IV and the associated data.
#[derive(Debug)]
pub(crate) struct ChunkCipher {
    cipher: AeadCipher,
    /// IV ‖ space for the chunk index; only the first `nonce_len` octets are used.
    iv: [u8; 16],
    nonce_len: usize,
    /// The five header octets ‖ room for the total length (final tag only).
    ad: [u8; 13],
    chunk_size: usize,
}

impl ChunkCipher {
    /// Derives the message key and IV for `header` from `session_key`.
    ///
    /// # Errors
    /// `Unsupported` for an unknown cipher or AEAD mode; `InvalidArgument` if the session key
    /// does not have the cipher's key length.
    pub(crate) fn new(session_key: &SessionKey, header: &SeipdHeader) -> Result<Self> {
        if header.sym.key_len() != Some(session_key.as_bytes().len()) && header.sym.key_len().is_some() {
            return Err(Error::InvalidArgument("session key length does not match the cipher"));
        }
        let (okm, key_len) = derive_keys(session_key.as_bytes(), header)?;
        let (message_key, iv_part) =
            okm.split_at_checked(key_len).ok_or(Error::InvalidArgument("HKDF length"))?;
        let cipher = AeadCipher::new(header.sym, header.aead, message_key)?;
        let mut iv = [0u8; 16];
        iv.get_mut(..iv_part.len()).ok_or(Error::InvalidArgument("IV length"))?.copy_from_slice(iv_part);
        let nonce_len = iv_part.len().checked_add(INDEX_LEN).ok_or(Error::InvalidArgument("IV length"))?;
        let mut ad = [0u8; 13];
        let (head, _) = ad.split_first_chunk_mut::<5>().ok_or(Error::InvalidArgument("AD length"))?;
        *head = header.associated_data();
        Ok(Self { cipher, iv, nonce_len, ad, chunk_size: header.chunk_size() })
    }

    /// The chunk size in octets.
    pub(crate) fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// The nonce for `index`: IV ‖ index as a big-endian u64 (RFC 9580 §5.13.2).
    fn nonce(&self, index: u64) -> Result<[u8; 16]> {
        let mut nonce = self.iv;
        let iv_len = self.nonce_len.checked_sub(INDEX_LEN).ok_or(Error::InvalidArgument("nonce length"))?;
        nonce
            .get_mut(iv_len..self.nonce_len)
            .ok_or(Error::InvalidArgument("nonce length"))?
            .copy_from_slice(&index.to_be_bytes());
        Ok(nonce)
    }

    fn nonce_slice(nonce: &[u8; 16], len: usize) -> Result<&[u8]> {
        nonce.get(..len).ok_or(Error::InvalidArgument("nonce length"))
    }

    fn chunk_ad(&self) -> &[u8] {
        let (head, _) = self.ad.split_at(5);
        head
    }

    fn final_ad(&self, total: u64) -> [u8; 13] {
        let mut ad = self.ad;
        let (_, tail) = ad.split_at_mut(5);
        tail.copy_from_slice(&total.to_be_bytes());
        ad
    }

    /// Encrypts chunk number `index` in place and returns its tag.
    ///
    /// # Errors
    /// `InvalidArgument` if `buf` is longer than a chunk.
    pub(crate) fn encrypt_chunk(&self, index: u64, buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
        if buf.len() > self.chunk_size {
            return Err(Error::InvalidArgument("chunk too long"));
        }
        let nonce = self.nonce(index)?;
        self.cipher.encrypt_in_place(Self::nonce_slice(&nonce, self.nonce_len)?, self.chunk_ad(), buf)
    }

    /// Decrypts chunk number `index` in place after checking `tag`; `buf` is wiped on failure.
    ///
    /// # Errors
    /// `Decrypt` if the tag does not verify.
    pub(crate) fn decrypt_chunk(&self, index: u64, buf: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
        let nonce = self.nonce(index)?;
        self.cipher.decrypt_in_place(Self::nonce_slice(&nonce, self.nonce_len)?, self.chunk_ad(), buf, tag)
    }

    /// Decrypts chunk number `index` from `ct` into `out` (as long) after checking `tag`;
    /// `out` is wiped on failure.
    ///
    /// # Errors
    /// `Decrypt` if the tag does not verify.
    pub(crate) fn decrypt_chunk_to(
        &self,
        index: u64,
        ct: &[u8],
        out: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<()> {
        let nonce = self.nonce(index)?;
        self.cipher.decrypt_to(Self::nonce_slice(&nonce, self.nonce_len)?, self.chunk_ad(), ct, out, tag)
    }

    /// The final tag: the AEAD of the empty string with the nonce for `chunk_count` and
    /// AD = the five header octets ‖ `total` (plaintext octets) as a big-endian u64.
    ///
    /// # Errors
    /// None in practice (the inputs are fixed-size).
    pub(crate) fn final_tag(&self, chunk_count: u64, total: u64) -> Result<[u8; TAG_LEN]> {
        let nonce = self.nonce(chunk_count)?;
        self.cipher.encrypt_in_place(
            Self::nonce_slice(&nonce, self.nonce_len)?,
            &self.final_ad(total),
            &mut [],
        )
    }

    /// Checks the final tag.
    ///
    /// # Errors
    /// `Decrypt` if it does not verify.
    pub(crate) fn verify_final_tag(&self, chunk_count: u64, total: u64, tag: &[u8; TAG_LEN]) -> Result<()> {
        let nonce = self.nonce(chunk_count)?;
        self.cipher.decrypt_in_place(
            Self::nonce_slice(&nonce, self.nonce_len)?,
            &self.final_ad(total),
            &mut [],
            tag,
        )
    }
}

fn bounds() -> Error {
    Error::Internal("SEIPD: buffer bounds")
}

/// One chunk slot: chunk ‖ tag.
fn slot_len(cipher: &ChunkCipher) -> Result<usize> {
    cipher.chunk_size().checked_add(TAG_LEN).ok_or(Error::InvalidArgument("chunk size"))
}

/// A buffer of `len` octets holding a copy of `old[..keep]`: a whole slot from the stream's
/// [`BufferPool`] of wiped buffers if `len` is one and the pool has one (see
/// `Pipeline::pooled`), else a new one; `old` is wiped when the caller drops it, so no stale plaintext copy stays behind.
fn grown(pipeline: &Pipeline<Job>, old: &[u8], keep: usize, len: usize) -> Result<SecretVec> {
    let reused = if len == pipeline.buffer_len() { pipeline.pooled() } else { None };
    let mut new = reused.unwrap_or_else(|| SecretVec::zeroed(len));
    new.get_mut(..keep).ok_or_else(bounds)?.copy_from_slice(old.get(..keep).ok_or_else(bounds)?);
    Ok(new)
}

/// One chunk on its way through the pipeline.
#[derive(Debug)]
struct Job {
    /// The chunk index (the nonce).
    index: u64,
    /// Data ‖ tag (and, for the reader, anything after them, which the work ignores).
    buf: SecretVec,
    /// Octets of data at the front of `buf`.
    len: usize,
    /// What the work made of it.
    result: Result<()>,
    /// The reader's plaintext buffer: the chunk is decrypted from `buf` into it, so that
    /// `buf`, which later reads of the source go into, never holds plaintext.
    out: Option<SecretVec>,
}

impl Job {
    /// A job for `len` octets of data at the front of `buf`.
    fn new(index: u64, buf: SecretVec, len: usize) -> Self {
        Self { index, buf, len, result: Ok(()), out: None }
    }
}

/// The chunk pipeline of the writer or the reader: buffers of `buf_len` octets,
/// [`IN_FLIGHT_BUDGET`] of them in flight at most, the first [`SOLO_OCTETS`] on the calling
/// thread.
fn chunk_pipeline(work: Work<Job>, buf_len: usize) -> Pipeline<Job> {
    let shape = Shape {
        buf_len,
        max_depth: IN_FLIGHT_BUDGET.checked_div(buf_len).unwrap_or(1),
        solo_jobs: solo_chunks(buf_len),
    };
    Pipeline::new("sixpgp-seipd", work, shape)
}

/// The chunks in [`SOLO_OCTETS`] of buffers of `buf_len` octets, rounded up (4 MiB of 256 KiB
/// chunks is 16, although each buffer also holds a tag), from 1 to [`MAX_SOLO_CHUNKS`].
fn solo_chunks(buf_len: usize) -> u64 {
    let chunks = SOLO_OCTETS.div_ceil(buf_len.max(1)).clamp(1, MAX_SOLO_CHUNKS);
    u64::try_from(chunks).unwrap_or(1)
}

/// Octets counted as a u64.
fn octets(n: usize) -> Result<u64> {
    u64::try_from(n).map_err(|_| bounds())
}

/// The pipeline work of the writer: encrypt `buf[..len]` in place, tag after it.
fn encrypt_job(cipher: &ChunkCipher, job: &mut Job) -> Result<()> {
    let slot = job.buf.get_mut(..job.len.checked_add(TAG_LEN).ok_or_else(bounds)?).ok_or_else(bounds)?;
    let (data, tag_out) = slot.split_at_mut_checked(job.len).ok_or_else(bounds)?;
    let tag = cipher.encrypt_chunk(job.index, data)?;
    tag_out.copy_from_slice(&tag);
    Ok(())
}

/// The pipeline work of the reader: check the tag after `buf[..len]` and decrypt it into the
/// job's plaintext buffer, which is wiped on failure.
fn decrypt_job(cipher: &ChunkCipher, job: &mut Job) -> Result<()> {
    let (ct, rest) = job.buf.split_at_checked(job.len).ok_or_else(bounds)?;
    let tag = *rest.first_chunk::<TAG_LEN>().ok_or_else(bounds)?;
    let out = job.out.as_mut().and_then(|out| out.get_mut(..job.len)).ok_or_else(bounds)?;
    cipher.decrypt_chunk_to(job.index, ct, out, &tag)
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
/// to a chunk only if the data does, and the first chunks (4 MiB, see `SOLO_OCTETS`) are
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
    inner: W,
    cipher: Arc<ChunkCipher>,
    pipeline: Pipeline<Job>,
    /// Full chunks not handed to the pipeline yet: fewer than `lookback` octets follow them.
    held: VecDeque<SecretVec>,
    /// Whether a chunk's last octets that `inner` leaves wait in its buffer (see
    /// `write_chunk`).
    hold_tails: bool,
    /// An encrypted chunk whose last octets `inner` left (less than one of its parts): they
    /// go out in front of the next chunk.
    unwritten: Option<(SecretVec, Range<usize>)>,
    /// The chunk being filled: data ‖ room for the tag.
    cur: SecretVec,
    /// Plaintext octets in `cur`.
    len: usize,
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
    /// [`default_threads`](crate::pipeline::default_threads) threads.
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
        let cipher = Arc::new(ChunkCipher::new(session_key, &header)?);
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
        let tag = self.cipher.final_tag(self.chunk_index, self.total)?;
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
    cipher: Arc<ChunkCipher>,
    pipeline: Pipeline<Job>,
    /// The look-ahead read after the last submitted chunk (ciphertext, not secret).
    carry: [u8; LOOKAHEAD],
    carry_len: usize,
    /// Set once a buffer met EOF: it and the octets it holds.
    tail: Option<(SecretVec, usize)>,
    eof: bool,
    /// Chunks submitted.
    submitted: u64,
    /// Plaintext window: a verified chunk, `window_len` octets long, read up to `pos`.
    window: Option<SecretVec>,
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
    /// [`default_threads`](crate::pipeline::default_threads) threads.
    ///
    /// # Errors
    /// `Unsupported` for an unknown cipher or AEAD mode; `Decrypt` if the session key does not
    /// have the cipher's key length.
    pub(crate) fn new(inner: R, session_key: &SessionKey, header: &SeipdHeader) -> Result<Self> {
        let cipher = Arc::new(ChunkCipher::new(session_key, header).map_err(|e| match e {
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
                .is_some_and(|total| self.cipher.verify_final_tag(count, total, tag).is_ok())
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
    fn release(&mut self, index: u64, buf: SecretVec, len: usize) -> Result<()> {
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
            return self.cipher.verify_final_tag(self.chunk_index, self.total, &final_tag);
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
        self.cipher.decrypt_chunk(self.chunk_index, ct, &tag)?;
        let count = self.chunk_index.checked_add(1).ok_or(Error::malformed("SEIPD: too many chunks"))?;
        let total = self.total.checked_add(octets(len)?).ok_or(Error::malformed("SEIPD: too long"))?;
        // The authenticated last chunk is released only with the final tag.
        self.cipher.verify_final_tag(count, total, &final_tag)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::header::{Header, Tag};
    use crate::packet::partial::{PartialBodyReader, PartialBodyWriter, part_exps};
    use crate::pipeline;
    use base64::Engine as _;
    use proptest::prelude::*;

    const SALT: [u8; 32] = [0x5a; 32];

    fn key(sym: SymmetricAlgorithm) -> SessionKey {
        SessionKey::from_bytes(&vec![0x42; sym.key_len().unwrap()])
    }

    /// Encrypts into a SEIPD body (fields + chunks + final tag), writing in pieces of `split`.
    fn encrypt(sym: SymmetricAlgorithm, aead: AeadAlgorithm, c: u8, data: &[u8], split: usize) -> Vec<u8> {
        encrypt_t(sym, aead, c, data, split, pipeline::default_threads())
    }

    fn encrypt_t(
        sym: SymmetricAlgorithm,
        aead: AeadAlgorithm,
        c: u8,
        data: &[u8],
        split: usize,
        threads: usize,
    ) -> Vec<u8> {
        let mut w = SeipdWriter::new(Vec::new(), &key(sym), sym, aead, c, SALT).unwrap();
        w.set_threads(threads);
        // Workers from the second chunk, so that short test messages exercise them.
        w.pipeline.set_solo_jobs(1);
        for piece in data.chunks(split.max(1)) {
            w.write_all(piece).unwrap();
        }
        w.finish().unwrap()
    }

    fn decrypt_with(body: &[u8], session_key: &SessionKey, byte_reads: bool) -> Result<Vec<u8>> {
        decrypt_t(body, session_key, byte_reads, pipeline::default_threads())
    }

    /// A reader over the SEIPD body `body` with `threads` threads, its workers from the second
    /// chunk (so that short test messages exercise them).
    fn reader_t<'b>(
        body: &'b [u8],
        session_key: &SessionKey,
        threads: usize,
    ) -> Result<SeipdReader<&'b [u8]>> {
        let mut src = body;
        let header = SeipdHeader::read_from(&mut src)?;
        let mut r = SeipdReader::new(src, session_key, &header)?;
        r.set_threads(threads);
        r.pipeline.set_solo_jobs(1);
        Ok(r)
    }

    fn decrypt_t(body: &[u8], session_key: &SessionKey, byte_reads: bool, threads: usize) -> Result<Vec<u8>> {
        let mut r = reader_t(body, session_key, threads)?;
        let mut out = Vec::new();
        if byte_reads {
            let mut b = [0u8; 1];
            loop {
                match r.read(&mut b).map_err(Error::from_io)? {
                    0 => break,
                    _ => out.push(b[0]),
                }
            }
        } else {
            let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
        }
        assert!(r.is_done());
        Ok(out)
    }

    fn decrypt(sym: SymmetricAlgorithm, body: &[u8]) -> Result<Vec<u8>> {
        decrypt_with(body, &key(sym), false)
    }

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i.wrapping_mul(31) >> 3).to_le_bytes()[0]).collect()
    }

    const MODES: [(SymmetricAlgorithm, AeadAlgorithm); 4] = [
        (SymmetricAlgorithm::Aes128, AeadAlgorithm::Ocb),
        (SymmetricAlgorithm::Aes256, AeadAlgorithm::Ocb),
        (SymmetricAlgorithm::Aes128, AeadAlgorithm::Gcm),
        (SymmetricAlgorithm::Aes256, AeadAlgorithm::Eax),
    ];

    #[test]
    fn round_trips_all_sizes_and_chunk_octets() {
        for (sym, aead) in MODES {
            for c in 0..=4u8 {
                let chunk = 1usize << (c + 6);
                for len in [0, 1, 15, 16, 17, chunk - 1, chunk, chunk + 1, 2 * chunk, 3 * chunk + 5] {
                    let plain = data(len);
                    let body = encrypt(sym, aead, c, &plain, 7);
                    // fields + chunks + one tag per chunk + the final tag
                    let chunks = len.div_ceil(chunk);
                    assert_eq!(body.len(), 36 + len + 16 * chunks + 16, "{aead:?} c={c} len={len}");
                    assert_eq!(decrypt(sym, &body).unwrap(), plain, "{aead:?} c={c} len={len}");
                }
            }
        }
    }

    #[test]
    fn write_splits_give_identical_ciphertext_and_byte_reads_match() {
        for (sym, aead) in MODES {
            let plain = data(64 * 3 + 20);
            let reference = encrypt(sym, aead, 0, &plain, plain.len());
            for split in [1, 2, 63, 64, 65, 100, 1000] {
                assert_eq!(encrypt(sym, aead, 0, &plain, split), reference);
            }
            assert_eq!(decrypt_with(&reference, &key(sym), true).unwrap(), plain);
        }
    }

    /// Any thread count (0 counts as 1) gives the same ciphertext, decrypts anything, and keeps
    /// truncation, bit flips and the released plaintext exact across batch boundaries.
    #[test]
    fn thread_counts_agree() {
        let sym = SymmetricAlgorithm::Aes128;
        for aead in [AeadAlgorithm::Ocb, AeadAlgorithm::Gcm] {
            for len in [0, 1, 64, 65, 64 * 4, 64 * 5 + 3, 64 * 9, 64 * 11 + 63] {
                let plain = data(len);
                let reference = encrypt_t(sym, aead, 0, &plain, 1000, 1);
                for threads in 0..=5 {
                    assert_eq!(
                        encrypt_t(sym, aead, 0, &plain, 37, threads),
                        reference,
                        "len {len} t {threads}"
                    );
                    for byte_reads in [false, true] {
                        let out = decrypt_t(&reference, &key(sym), byte_reads, threads).unwrap();
                        assert_eq!(out, plain, "len {len} t {threads}");
                    }
                }
            }
            let body = encrypt_t(sym, aead, 0, &data(64 * 7 + 5), 64, 3);
            for threads in [1, 2, 3, 4] {
                for cut in 0..body.len() {
                    assert!(
                        decrypt_t(&body[..cut], &key(sym), false, threads).is_err(),
                        "cut {cut} t {threads}"
                    );
                }
                for i in (0..body.len()).step_by(7) {
                    let mut bad = body.clone();
                    bad[i] ^= 0x10;
                    assert!(decrypt_t(&bad, &key(sym), false, threads).is_err(), "flip {i} t {threads}");
                }
            }
        }
    }

    /// With a bad chunk in the middle of a batch, exactly the chunks before it are released,
    /// then the error comes, whatever the thread count.
    #[test]
    fn plaintext_before_a_bad_chunk_is_released_in_order() {
        let sym = SymmetricAlgorithm::Aes256;
        let plain = data(64 * 6 + 9);
        let mut body = encrypt_t(sym, AeadAlgorithm::Ocb, 0, &plain, 64, 2);
        body[36 + 3 * 80 + 5] ^= 1; // chunk 3
        for threads in [1, 2, 3, 4, 8] {
            let mut src = &body[..];
            let header = SeipdHeader::read_from(&mut src).unwrap();
            let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
            r.set_threads(threads);
            let mut out = Vec::new();
            let err = r.read_to_end(&mut out).unwrap_err();
            assert!(matches!(Error::from_io(err), Error::Decrypt));
            assert_eq!(out, plain[..64 * 3], "t {threads}");
            assert!(r.read(&mut [0u8; 4]).is_err());
        }
    }

    /// Data after the final tag (the packet length is not authenticated): the message fails,
    /// and the last chunk is not released, whatever the thread count, the AEAD mode, whether the
    /// plaintext fills its last chunk, and how much data follows. Before the check on full
    /// buffers, a message whose length is a multiple of the chunk size released its whole
    /// plaintext and failed only after it.
    #[test]
    fn data_after_the_final_tag_fails_before_the_last_chunk() {
        for (sym, aead) in MODES {
            for len in [64 * 3, 64 * 3 - 5, 64] {
                let plain = data(len);
                let last_chunk_start = (len - 1) / 64 * 64;
                for junk in [1, 15, 16, 17, 32, 33, 100, 5000] {
                    let mut body = encrypt(sym, aead, 0, &plain, 64);
                    body.extend(std::iter::repeat_n(0u8, junk));
                    for threads in [1, 2, 4] {
                        let mut src = &body[..];
                        let header = SeipdHeader::read_from(&mut src).unwrap();
                        let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
                        r.set_threads(threads);
                        let mut out = Vec::new();
                        let what = format!("{aead:?} len {len} junk {junk} t {threads}");
                        let err = Error::from_io(r.read_to_end(&mut out).expect_err(&what));
                        assert_eq!(out, plain[..last_chunk_start], "{what}");
                        if len % 64 == 0 && junk >= TAG_LEN {
                            assert!(
                                matches!(&err, Error::Malformed(m) if m.context() == "SEIPD: data after the final tag"),
                                "{what}: {err:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// How [`mutations_never_release_forged_plaintext`] changes a good body.
    #[derive(Debug, Clone)]
    enum Mutation {
        Flip { at: usize, bit: u8 },
        Cut { at: usize },
        Insert { at: usize, junk: Vec<u8> },
        Delete { at: usize, len: usize },
        Append { junk: Vec<u8> },
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        let junk = || prop::collection::vec(any::<u8>(), 1..80);
        prop_oneof![
            (any::<usize>(), 0..8u8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
            any::<usize>().prop_map(|at| Mutation::Cut { at }),
            (any::<usize>(), junk()).prop_map(|(at, junk)| Mutation::Insert { at, junk }),
            (any::<usize>(), 1..100usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
            junk().prop_map(|junk| Mutation::Append { junk }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// Whatever is done to the chunks of a good body, with any thread count and source read
        /// sizes: no panic, only a prefix of the plaintext is released, success only for the
        /// unchanged body, and data appended after the final tag never releases the last chunk.
        #[test]
        #[allow(clippy::arithmetic_side_effects, reason = "offsets within a test message of a few hundred octets")]
        fn mutations_never_release_forged_plaintext(
            aead in prop_oneof![Just(AeadAlgorithm::Ocb), Just(AeadAlgorithm::Gcm), Just(AeadAlgorithm::Eax)],
            // Often whole chunks: the case where only the final tag tells the last chunk.
            len in prop_oneof![0..64 * 5 + 1usize, (0..6usize).prop_map(|k| k * 64)],
            threads in 1..5usize,
            m in mutation(),
        ) {
            let sym = SymmetricAlgorithm::Aes128;
            let plain = data(len);
            let good = encrypt(sym, aead, 0, &plain, 64);
            // The chunks start after the 36 octets of fields (version, algorithms, salt).
            let fields = 36;
            let chunks = good.len() - fields;
            let mut body = good.clone();
            let appended = matches!(m, Mutation::Append { .. });
            match m {
                Mutation::Flip { at, bit } => body[fields + at % chunks] ^= 1 << bit,
                Mutation::Cut { at } => body.truncate(fields + at % chunks),
                Mutation::Insert { at, junk } => {
                    let at = fields + at % (chunks + 1);
                    let _ = body.splice(at..at, junk);
                }
                Mutation::Delete { at, len } => {
                    let at = fields + at % chunks;
                    let _ = body.drain(at..(at + len).min(body.len()));
                }
                Mutation::Append { junk } => body.extend(junk),
            }
            let mut src = &body[..];
            let header = SeipdHeader::read_from(&mut src).unwrap();
            let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
            r.set_threads(threads);
            let mut out = Vec::new();
            let result = r.read_to_end(&mut out);
            prop_assert!(plain.starts_with(&out), "released octets that are not the plaintext");
            prop_assert_eq!(result.is_ok(), body == good);
            if appended && !plain.is_empty() {
                prop_assert!(out.len() < plain.len(), "the last chunk was released");
            }
        }
    }

    #[test]
    fn every_truncation_fails() {
        for (sym, aead) in MODES {
            for len in [64 * 3, 64 * 3 - 10, 0] {
                let body = encrypt(sym, aead, 0, &data(len), 64);
                for cut in 0..body.len() {
                    let r = decrypt(sym, &body[..cut]);
                    assert!(r.is_err(), "{aead:?} len {len} cut at {cut} decrypted");
                }
            }
        }
    }

    #[test]
    fn every_bit_flip_fails() {
        for (sym, aead) in MODES {
            let body = encrypt(sym, aead, 0, &data(64 * 2 + 10), 64);
            for i in 0..body.len() {
                for bit in 0..8 {
                    let mut bad = body.clone();
                    bad[i] ^= 1 << bit;
                    assert!(decrypt(sym, &bad).is_err(), "{aead:?} flip {i}.{bit}");
                }
            }
        }
    }

    #[test]
    fn short_tails_never_panic_and_are_classified() {
        for (sym, aead) in MODES {
            let header = SeipdHeader { sym, aead, chunk_size_octet: 0, salt: SALT };
            let mut fields = Vec::new();
            header.write_to(&mut fields).unwrap();
            for n in 0..=2 * TAG_LEN + 1 {
                let mut body = fields.clone();
                body.extend(std::iter::repeat_n(0xa5u8, n));
                let r = decrypt(sym, &body);
                match n {
                    0..TAG_LEN => assert!(matches!(r, Err(Error::Truncated(_))), "n={n}: {r:?}"),
                    TAG_LEN => assert!(matches!(r, Err(Error::Decrypt)), "n={n}: {r:?}"),
                    17..=32 => assert!(matches!(r, Err(Error::Malformed(_))), "n={n}: {r:?}"),
                    _ => assert!(matches!(r, Err(Error::Decrypt)), "n={n}: {r:?}"),
                }
            }
        }
    }

    /// `flush` pushes out every full chunk written so far, whatever the thread count, so a
    /// reader on the other end can decrypt up to there; the stream still finishes normally.
    #[test]
    fn flush_writes_every_full_chunk() {
        let sym = SymmetricAlgorithm::Aes128;
        let plain = data(64 * 9 + 5);
        for threads in [1, 2, 3] {
            let mut w = SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 0, SALT).unwrap();
            w.set_threads(threads);
            w.write_all(&plain[..64 * 7 + 3]).unwrap();
            w.flush().unwrap();
            // Fields, then seven chunks with their tags (the eighth, short one stays buffered).
            assert_eq!(w.inner.len(), 36 + 7 * (64 + 16), "{threads} threads");
            w.write_all(&plain[64 * 7 + 3..]).unwrap();
            let body = w.finish().unwrap();
            assert_eq!(decrypt(sym, &body).unwrap(), plain);
        }
    }

    /// With the production setting, the first chunks (16 of 64 octets here) run on the calling
    /// thread: messages of 17 or 18 chunks start no thread, a longer one does, and the
    /// ciphertext and plaintext are the same as with one thread.
    /// With the default chunk size, `SOLO_OCTETS` is 16 chunks (each buffer also holds a tag,
    /// and the reader's a look-ahead: rounded up, not down); the pipeline's depth stays within
    /// `IN_FLIGHT_BUDGET` for the largest chunks.
    #[test]
    fn four_mib_of_default_chunks_is_sixteen_solo_chunks() {
        for buf_len in [(256 << 10) + TAG_LEN, (256 << 10) + TAG_LEN + LOOKAHEAD] {
            assert_eq!(solo_chunks(buf_len), 16);
        }
        assert_eq!(solo_chunks(1 << 10), 16);
        assert_eq!(solo_chunks((4 << 20) + TAG_LEN), 1);
        let work: Work<Job> = Arc::new(|_: &mut Job| {});
        let mut p = chunk_pipeline(work, (4 << 20) + TAG_LEN);
        p.set_threads(4);
        p.submit(Job::new(0, SecretVec::zeroed(4), 4), false);
        assert_eq!(p.depth(), 2);
    }

    #[test]
    fn solo_chunks_start_no_thread_and_agree() {
        let sym = SymmetricAlgorithm::Aes128;
        // 17 chunks: the last one inline; 18: one queued chunk after the solo ones, done by the
        // calling thread; 60: workers.
        for (len, threads_started) in [(64 * 16 + 5, false), (64 * 17 + 5, false), (64 * 60 + 5, true)] {
            let plain = data(len);
            let one = encrypt_t(sym, AeadAlgorithm::Ocb, 0, &plain, 1000, 1);
            let mut w = SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 0, SALT).unwrap();
            w.set_threads(2);
            w.write_all(&plain).unwrap();
            let before_finish = w.pipeline.worker_count();
            let two = w.finish().unwrap();
            assert_eq!(two, one, "len {len}");
            assert_eq!(before_finish > 0, threads_started, "len {len}");

            let mut src = &one[..];
            let header = SeipdHeader::read_from(&mut src).unwrap();
            let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
            r.set_threads(2);
            let mut out = Vec::new();
            let _ = r.read_to_end(&mut out).unwrap();
            assert_eq!(out, plain);
            assert_eq!(r.pipeline.worker_count() > 0, threads_started, "reader, len {len}");
        }
    }

    /// Holding each chunk's last octets for the next chunk writes the same packet as copying
    /// them into the part writer: through a `PartialBodyWriter`, whose 64 KiB parts never end
    /// where a chunk and its tag do, for lengths around chunk boundaries, with one and two
    /// threads, in one write or many, with and without a flush in the middle. With the larger
    /// parts of data written through (as `Encryptor` frames it), the parts differ but the
    /// body is the same.
    #[test]
    fn held_tails_give_the_same_packet() {
        let sym = SymmetricAlgorithm::Aes128;
        let chunk = 64 << 10;
        let run = |plain: &[u8], hold: bool, threads: usize, split: usize, flush_after: Option<usize>| {
            let framed = PartialBodyWriter::new(Vec::new(), Tag::Seipd);
            let mut w = SeipdWriter::new(framed, &key(sym), sym, AeadAlgorithm::Ocb, 10, SALT).unwrap();
            w.set_threads(threads);
            w.pipeline.set_solo_jobs(1);
            w.set_hold_tails(hold);
            for (i, piece) in plain.chunks(split.max(1)).enumerate() {
                w.write_all(piece).unwrap();
                if flush_after == Some(i) {
                    w.flush().unwrap();
                }
            }
            w.finish().unwrap().finish().unwrap()
        };
        for len in [0, 1, chunk - 1, chunk, chunk + 1, 5 * chunk + 100, 12 * chunk] {
            let plain = data(len);
            let reference = run(&plain, false, 1, len, None);
            for threads in [1, 2] {
                for (split, flush_after) in [(len, None), (10_000, None), (10_000, Some(20))] {
                    let held = run(&plain, true, threads, split, flush_after);
                    assert!(
                        held == reference,
                        "len {len}, {threads} threads, split {split}, flush {flush_after:?}"
                    );
                }
            }
        }
        // Parts up to 2^18, as `Encryptor` frames it: as long as a chunk and its tag allow.
        let run_large = |plain: &[u8], octet: u8, hold: bool, split: usize, max_exp: u8| {
            let framed = PartialBodyWriter::new(Vec::new(), Tag::Seipd).with_max_part_exp(max_exp);
            let mut w = SeipdWriter::new(framed, &key(sym), sym, AeadAlgorithm::Ocb, octet, SALT).unwrap();
            w.set_threads(2);
            w.pipeline.set_solo_jobs(1);
            w.set_hold_tails(hold);
            for piece in plain.chunks(split.max(1)) {
                w.write_all(piece).unwrap();
            }
            w.finish().unwrap().finish().unwrap()
        };
        for (octet, len) in [(10, 12 * chunk + 5), (12, 20 * chunk + 100)] {
            let plain = data(len);
            // The body framed in 64 KiB parts only.
            let reference = packets(&run_large(&plain, octet, false, len, 16));
            for (hold, split) in [(true, len), (true, 10_000), (false, 10_000)] {
                let framed =
                    run_large(&plain, octet, hold, split, crate::packet::partial::SEIPD_MAX_PART_EXP);
                assert_eq!(packets(&framed), reference, "octet {octet}, hold {hold}, split {split}");
                let exps = part_exps(&framed);
                assert!(exps.iter().all(|e| (16..=18).contains(e)), "octet {octet}: {exps:?}");
                // 64 KiB chunks give 64 KiB parts, 256 KiB chunks parts of 256 KiB.
                let most = if octet == 12 && hold { 18 } else { 16 };
                assert!(exps.iter().filter(|&&e| e == most).count() * 2 > exps.len(), "{exps:?}");
            }
        }
    }

    #[test]
    fn only_the_first_chunk_buffer_starts_small() {
        // 64 KiB chunks (octet 10). A short message gets a 4 KiB buffer, on the writer and the
        // reader; a short chunk after a full one gets a whole slot (with one thread the
        // writer reuses the first chunk's buffer, done and written by then).
        let sym = SymmetricAlgorithm::Aes128;
        let chunk = 64 << 10;
        let slot = chunk + 16;
        for (len, writer_buf, reader_buf) in
            [(6, FIRST_READ_LEN, FIRST_READ_LEN), (chunk + 6, slot, slot + 32)]
        {
            let plain = data(len);
            for threads in [1, 2] {
                let mut w =
                    SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 10, SALT).unwrap();
                w.set_threads(threads);
                w.pipeline.set_solo_jobs(1);
                w.write_all(&plain).unwrap();
                assert_eq!(w.cur.len(), writer_buf, "{len} octets, {threads} threads");
                let body = w.finish().unwrap();

                let mut r = reader_t(&body, &key(sym), threads).unwrap();
                let mut first = [0u8; 1];
                r.read_exact(&mut first).unwrap();
                if len < chunk {
                    // The one buffer was decrypted in place and is the window.
                    assert_eq!(r.window.as_ref().map(|w| w.len()), Some(reader_buf), "{threads} threads");
                } else if threads > 1 {
                    // It reads ahead; with one thread it reads the tail into the first
                    // chunk's buffer once that has been read.
                    let (tail, n) = r.tail.as_ref().expect("the reader met EOF in its second buffer");
                    assert_eq!((tail.len(), *n), (reader_buf, 6 + 16 + 16));
                }
                let mut rest = Vec::new();
                let _ = r.read_to_end(&mut rest).unwrap();
                assert_eq!([&first[..], &rest].concat(), plain);
            }
        }
    }

    #[test]
    fn errors_poison_and_wrong_keys_fail() {
        let sym = SymmetricAlgorithm::Aes128;
        let body = encrypt(sym, AeadAlgorithm::Ocb, 0, &data(300), 300);
        let mut bad = body.clone();
        bad[40] ^= 1; // first chunk
        let mut src = &bad[..];
        let header = SeipdHeader::read_from(&mut src).unwrap();
        let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
        let mut buf = [0u8; 10];
        assert!(r.read(&mut buf).is_err());
        assert!(r.read(&mut buf).is_err());
        assert_eq!(buf, [0; 10], "no unauthenticated plaintext released");
        let wrong = SessionKey::from_bytes(&[0x43; 16]);
        assert!(matches!(decrypt_with(&body, &wrong, false), Err(Error::Decrypt)));
        let short = SessionKey::from_bytes(&[0x42; 15]);
        assert!(matches!(decrypt_with(&body, &short, false), Err(Error::Decrypt)));
        assert!(SeipdWriter::new(Vec::new(), &short, sym, AeadAlgorithm::Ocb, 0, SALT).is_err());
        assert!(SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 17, SALT).is_err());
        assert!(matches!(
            SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Unknown(7), 0, SALT),
            Err(Error::Unsupported(_))
        ));
    }

    /// Reads at most `steps[i % steps.len()]` octets per call, with an `Interrupted` error
    /// before every third read.
    struct Uneven<'a> {
        data: &'a [u8],
        steps: &'a [usize],
        i: usize,
    }

    impl Read for Uneven<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.i = self.i.wrapping_add(1);
            if self.i.is_multiple_of(3) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let step =
                self.steps.get(self.i.checked_rem(self.steps.len()).unwrap_or(0)).copied().unwrap_or(1);
            let n = buf.len().min(step).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// Dropping a reader or writer with chunks in flight joins the workers (no hang, no
    /// panic), and a sink error with chunks in flight poisons the writer.
    #[test]
    fn dropping_mid_stream_with_jobs_in_flight() {
        let sym = SymmetricAlgorithm::Aes128;
        let body = encrypt_t(sym, AeadAlgorithm::Ocb, 0, &data(64 * 40 + 3), 64, 1);
        for threads in [2, 3, 4, 8] {
            for reads in [1, 2, 5] {
                let mut r = reader_t(&body, &key(sym), threads).unwrap();
                let mut buf = [0u8; 64];
                for _ in 0..reads {
                    r.read_exact(&mut buf).unwrap();
                }
                assert!(r.pipeline.in_flight() > 0);
                drop(r);
            }
            let mut w = SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 0, SALT).unwrap();
            w.set_threads(threads);
            w.pipeline.set_solo_jobs(1);
            w.write_all(&data(64 * 5 + 1)).unwrap();
            drop(w);

            struct Failing(usize);
            impl Write for Failing {
                fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                    if self.0 == 0 {
                        return Err(io::Error::other("full"));
                    }
                    self.0 -= 1;
                    Ok(b.len())
                }
                fn flush(&mut self) -> io::Result<()> {
                    Ok(())
                }
            }
            let mut w = SeipdWriter::new(Failing(3), &key(sym), sym, AeadAlgorithm::Ocb, 0, SALT).unwrap();
            w.set_threads(threads);
            let mut failed = false;
            for _ in 0..100 {
                if w.write_all(&data(64)).is_err() {
                    failed = true;
                    break;
                }
            }
            assert!(failed);
            assert!(w.write_all(b"x").is_err());
            assert!(w.finish().is_err());
        }
    }

    /// Short and interrupted reads from the source, any thread count: the same plaintext, and
    /// every truncation (including right after a full buffer) fails.
    #[test]
    fn uneven_source_reads_and_truncation_at_buffer_edges() {
        let sym = SymmetricAlgorithm::Aes128;
        for len in [0, 1, 63, 64, 65, 128, 64 * 6, 64 * 6 + 1] {
            let plain = data(len);
            let body = encrypt_t(sym, AeadAlgorithm::Ocb, 0, &plain, 1000, 1);
            let (fields, chunks) = body.split_at(36);
            for threads in [1, 2, 3] {
                for steps in [&[1usize][..], &[16, 17, 1], &[112, 5], &[usize::MAX]] {
                    for cut in (0..=chunks.len()).rev() {
                        let mut src = fields;
                        let header = SeipdHeader::read_from(&mut src).unwrap();
                        let inner = Uneven { data: &chunks[..cut], steps, i: 0 };
                        let mut r = SeipdReader::new(inner, &key(sym), &header).unwrap();
                        r.set_threads(threads);
                        let mut out = Vec::new();
                        let result = r.read_to_end(&mut out);
                        if cut == chunks.len() {
                            let _ = result.unwrap();
                            assert_eq!(out, plain);
                        } else {
                            assert!(result.is_err(), "len {len} cut {cut} t {threads} {steps:?}");
                            assert!(plain.starts_with(&out));
                            // Only whole chunks before the cut, never the last chunk.
                            let n = len.div_ceil(64);
                            let whole = (0..n)
                                .filter(|k| (k * 80 + 80).min(k * 80 + 16 + len - 64 * k) <= cut)
                                .count();
                            assert!(out.len() <= 64 * whole.min(n.saturating_sub(1)), "len {len} cut {cut}");
                        }
                    }
                }
            }
        }
    }

    // ---- RFC 9580 vectors ----

    fn json(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    fn hexf(json: &serde_json::Value, name: &str) -> Vec<u8> {
        hex::decode(json[name].as_str().unwrap()).unwrap()
    }

    /// Dearmors a message (no CRC line in these files).
    fn dearmor(text: &str) -> Vec<u8> {
        let b64: String = text
            .lines()
            .skip_while(|l| !l.starts_with("-----BEGIN"))
            .skip(1)
            .skip_while(|l| !l.is_empty())
            .skip(1)
            .take_while(|l| !l.starts_with("-----END") && !l.starts_with('='))
            .collect();
        base64::engine::general_purpose::STANDARD.decode(b64).unwrap()
    }

    /// Reads packets from a whole message; returns (tag, body) pairs.
    fn packets(mut bytes: &[u8]) -> Vec<(Tag, Vec<u8>)> {
        let mut out = Vec::new();
        while let Some(h) = Header::read_from(&mut bytes).unwrap() {
            let mut r = PartialBodyReader::new(&mut bytes, h.length);
            let mut body = Vec::new();
            let _ = r.read_to_end(&mut body).unwrap();
            out.push((h.tag, body));
        }
        out
    }

    /// Checks every SEIPD intermediate of an A.8–A.11 JSON and decrypts its SEIPD packet.
    fn check_seipd_vector(v: &serde_json::Value) {
        let session_key = SessionKey::from_bytes(&hexf(v, "session_key"));
        let seipd_packet = hexf(v, "seipd_packet");
        let pk = packets(&seipd_packet);
        assert_eq!(pk.len(), 1);
        assert_eq!(pk[0].0, Tag::Seipd);
        let body = &pk[0].1;
        let header = SeipdHeader::read_from(&mut &body[..]).unwrap();
        assert_eq!(header.associated_data().to_vec(), hexf(v, "hkdf_info"));
        assert_eq!(header.associated_data().to_vec(), hexf(v, "chunk0_aad"));

        // HKDF output = message key ‖ IV.
        let (okm, key_len) = derive_keys(session_key.as_bytes(), &header).unwrap();
        assert_eq!(*okm, hexf(v, "hkdf_output"));
        assert_eq!(okm[..key_len], hexf(v, "message_key"));
        assert_eq!(okm[key_len..], hexf(v, "iv"));

        // Nonces and the final AD.
        let cipher = ChunkCipher::new(&session_key, &header).unwrap();
        let nonce_len = header.aead.nonce_len().unwrap();
        assert_eq!(cipher.nonce(0).unwrap()[..nonce_len], hexf(v, "chunk0_nonce"));
        assert_eq!(cipher.nonce(1).unwrap()[..nonce_len], hexf(v, "final_nonce"));
        let plaintext = [hexf(v, "literal_data_packet"), hexf(v, "padding_packet")].concat();
        let total = u64::try_from(plaintext.len()).unwrap();
        assert_eq!(cipher.final_ad(total).to_vec(), hexf(v, "final_aad"));

        // The chunk (A.8 prints it) and the final tag, by the pure functions.
        let mut chunk = plaintext.clone();
        let tag = cipher.encrypt_chunk(0, &mut chunk).unwrap();
        chunk.extend_from_slice(&tag);
        if v.get("chunk0_encrypted").is_some() {
            assert_eq!(chunk, hexf(v, "chunk0_encrypted"));
        }
        let (after_fields, final_tag) = body[36..].split_at(chunk.len());
        assert_eq!(after_fields, chunk);
        assert_eq!(final_tag, cipher.final_tag(1, total).unwrap());

        // The streaming reader decrypts to literal ‖ padding, at any read size.
        assert_eq!(decrypt_with(body, &session_key, false).unwrap(), plaintext);
        assert_eq!(decrypt_with(body, &session_key, true).unwrap(), plaintext);

        // The streaming writer, framed, reproduces the packet byte for byte.
        let w = PartialBodyWriter::new(Vec::new(), Tag::Seipd);
        let mut w =
            SeipdWriter::new(w, &session_key, header.sym, header.aead, header.chunk_size_octet, header.salt)
                .unwrap();
        w.write_all(&plaintext).unwrap();
        assert_eq!(w.finish().unwrap().finish().unwrap(), seipd_packet);
    }

    #[test]
    fn rfc9580_a8_x25519_ocb() {
        let v =
            json(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a08-x25519-aead-ocb.json")));
        check_seipd_vector(&v);
        let msg = dearmor(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/a08-x25519-aead-ocb-message.asc"
        )));
        let pk = packets(&msg);
        assert_eq!(pk.iter().map(|p| p.0).collect::<Vec<_>>(), [Tag::Pkesk, Tag::Seipd]);
        let session_key = SessionKey::from_bytes(&hexf(&v, "session_key"));
        let plain = decrypt_with(&pk[1].1, &session_key, false).unwrap();
        assert_eq!(plain, [hexf(&v, "literal_data_packet"), hexf(&v, "padding_packet")].concat());
    }

    /// A.9 (EAX), A.10 (OCB), A.11 (GCM): SKESK → session key → SEIPD → literal packet.
    #[test]
    fn rfc9580_a9_a10_a11_skesk_messages() {
        let cases = [
            (
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a09-aead-eax.json")),
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a09-aead-eax-message.asc")),
            ),
            (
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a10-aead-ocb.json")),
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a10-aead-ocb-message.asc")),
            ),
            (
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a11-aead-gcm.json")),
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a11-aead-gcm-message.asc")),
            ),
        ];
        for (json_text, armored) in cases {
            let v = json(json_text);
            check_seipd_vector(&v);
            let pk = packets(&dearmor(armored));
            assert_eq!(pk.iter().map(|p| p.0).collect::<Vec<_>>(), [Tag::Skesk, Tag::Seipd]);
            let skesk = <crate::packet::skesk::Skesk as crate::packet::PacketBody>::parse(&pk[0].1).unwrap();
            let session_key =
                crate::message::skesk::decrypt_session_key(&skesk, &hexf(&v, "s2k_derived_key")).unwrap();
            assert_eq!(session_key.as_bytes(), hexf(&v, "session_key"));
            let plain = decrypt_with(&pk[1].1, &session_key, false).unwrap();
            let mut lit = crate::message::literal::LiteralReader::new(&plain[..]).unwrap();
            let mut text = Vec::new();
            let _ = lit.read_to_end(&mut text).unwrap();
            assert_eq!(text, b"Hello, world!");
            assert_eq!(lit.into_inner(), hexf(&v, "padding_packet"));
        }
    }

    /// Defence in depth: a chunk whose index is not the next position is never released,
    /// whatever returned it.
    #[test]
    fn release_refuses_a_chunk_out_of_order() {
        let sym = SymmetricAlgorithm::Aes128;
        let body = encrypt(sym, AeadAlgorithm::Gcm, 0, &data(300), 300);
        let mut r = reader_t(&body, &key(sym), 1).unwrap();
        for wrong in [1, 2, u64::MAX] {
            let e = r.release(wrong, SecretVec::zeroed(64), 64).unwrap_err();
            assert!(matches!(e, Error::Internal(_)), "{e:?}");
            assert!(r.window.is_none());
        }
        r.release(0, SecretVec::zeroed(64), 64).unwrap();
        assert!(r.release(0, SecretVec::zeroed(64), 64).is_err(), "chunk 0 twice");
        r.release(1, SecretVec::zeroed(64), 64).unwrap();
    }
}
