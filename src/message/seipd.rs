//! The SEIPDv2 chunk engine (RFC 9580 §5.13.2): key derivation, per-chunk AEAD, the final tag,
//! and the streaming [`SeipdWriter`] / [`SeipdReader`].
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.13.2>
//!
//! [`SeipdCipher`] is pure (no I/O, `&self` only), so several chunks can be processed in
//! parallel; the adapters only move bytes and keep the chunk index and total length.

mod cipher;
mod reader;
mod seek;
#[cfg(test)]
mod tests;
mod writer;

use crate::crypto::aead_backend::TAG_LEN;
use crate::crypto::secret::SecretVec;
use crate::error::{Error, Result};
use crate::pipeline::{Pipeline, Shape, Work, policy};

pub(crate) use cipher::SeipdCipher;
#[cfg(test)]
use cipher::derive_keys;
pub(crate) use reader::SeipdReader;
pub(crate) use seek::RandomChunks;
pub(crate) use writer::SeipdWriter;

/// Where a stream's first chunk buffer (of the reader or the writer) starts, before it knows
/// the data is longer: a small message then allocates and wipes 4 KiB instead of a whole
/// 256 KiB slot. Buffers after a full chunk are whole slots from the start: the stream is
/// known to be long by then, and growing them would copy their data at each step.
const FIRST_READ_LEN: usize = 4096;

fn bounds() -> Error {
    Error::Internal("SEIPD: buffer bounds")
}

/// One chunk slot: chunk ‖ tag.
fn slot_len(cipher: &SeipdCipher) -> Result<usize> {
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

/// The chunk pipeline of the writer or the reader: buffers of `buf_len` octets, as many in
/// flight and on the calling thread as [`policy::seipd`] allows.
fn chunk_pipeline(work: Work<Job>, buf_len: usize) -> Pipeline<Job> {
    let shape = Shape {
        buf_len,
        max_depth: policy::depth_within(policy::seipd::IN_FLIGHT_BUDGET, buf_len),
        solo_jobs: policy::seipd::solo_chunks(buf_len),
    };
    Pipeline::new("sixpgp-seipd", work, shape)
}

/// Octets counted as a u64.
fn octets(n: usize) -> Result<u64> {
    u64::try_from(n).map_err(|_| bounds())
}
