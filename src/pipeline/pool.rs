//! [`BufferPool`]: whole job buffers that finished streams leave for the next ones.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::crypto::secret::SecretVec;

/// Octets a [`BufferPool`] keeps at most by default: a few chunk buffers of the default chunk
/// size (256 KiB).
const DEFAULT_OCTETS: usize = 2 << 20;

/// Whole chunk buffers that finished encryption or decryption streams left behind, wiped, for
/// the next streams made with the same pool.
///
/// A stream allocates a whole chunk buffer (256 KiB with the default chunk size) once its
/// data outgrows a small first one; freeing it at the end of every message lets the allocator
/// hand the memory back to the kernel and fault it in again, zeroed, for the next, which is a
/// large part of the cost of a message of a few hundred KiB. A [`Decryptor`](crate::Decryptor)
/// has a pool of its own by default, shared by every stream it makes (and by
/// [`decrypt_all`](crate::Decryptor::decrypt_all)), so a decryptor built once and used for many
/// messages reuses its buffers. An [`Encryptor`](crate::Encryptor) serves one message, so it
/// has none by default: give the encryptors of a loop the same pool
/// ([`Encryptor::buffer_pool`](crate::Encryptor::buffer_pool)).
///
/// Cloning gives another handle to the same pool; it is `Send` and `Sync`, and streams on any
/// number of threads may share it. The buffers it keeps are wiped before they are kept, and
/// again when the pool is dropped. Whatever the pool, the output of every operation is the
/// same.
///
/// ```
/// # fn main() -> sixpgp::Result<()> {
/// use sixpgp::{BufferPool, Encryptor, KeyBuilder, Profile};
///
/// let key = KeyBuilder::new(Profile::Rfc9580).user_id("Backup <backup@example.org>").generate()?;
/// let cert = key.to_cert();
/// let pool = BufferPool::default();
/// for part in [&[1u8; 300_000][..], &[2u8; 300_000][..]] {
///     // The second message reuses the chunk buffer the first one left.
///     let _message = Encryptor::new([&cert]).buffer_pool(pool.clone()).encrypt_bytes(part)?;
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct BufferPool {
    shared: Arc<Shared>,
}

struct Shared {
    /// Octets of buffers kept at most.
    limit: usize,
    /// The buffers, oldest first, all wiped.
    buffers: Mutex<Vec<SecretVec>>,
}

impl BufferPool {
    /// A pool that keeps at most `octets` octets of buffers; `0` keeps none (every buffer is
    /// freed, wiped, when its stream ends).
    #[must_use]
    pub fn new(octets: usize) -> Self {
        Self { shared: Arc::new(Shared { limit: octets, buffers: Mutex::new(Vec::new()) }) }
    }

    /// The most octets of buffers the pool keeps.
    #[must_use]
    pub fn limit(&self) -> usize {
        self.shared.limit
    }

    fn buffers(&self) -> MutexGuard<'_, Vec<SecretVec>> {
        self.shared.buffers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A kept buffer of exactly `len` octets, if there is one.
    pub(super) fn take(&self, len: usize) -> Option<SecretVec> {
        let mut buffers = self.buffers();
        let i = buffers.iter().position(|b| b.len() == len)?;
        Some(buffers.swap_remove(i))
    }

    /// Keeps `buf`, wiped in bulk (its length stays); the oldest buffers make room if needed. A
    /// buffer with spare capacity, or longer than the limit, is not kept (it is dropped, and
    /// so wiped).
    pub(super) fn give(&self, mut buf: SecretVec) {
        let limit = self.shared.limit;
        if buf.capacity() != buf.len() || buf.len() > limit {
            return;
        }
        zeroize::Zeroize::zeroize(buf.as_mut_slice());
        let mut buffers = self.buffers();
        let mut held = buffers.iter().map(|b| b.len()).fold(0usize, usize::saturating_add);
        while !buffers.is_empty() && held.saturating_add(buf.len()) > limit {
            held = held.saturating_sub(buffers.remove(0).len());
        }
        buffers.push(buf);
    }

    /// Octets the pool holds now.
    fn held(&self) -> usize {
        self.buffers().iter().map(|b| b.len()).fold(0usize, usize::saturating_add)
    }
}

impl Default for BufferPool {
    /// A pool of 2 MiB: a few chunk buffers of the default chunk size.
    fn default() -> Self {
        Self::new(DEFAULT_OCTETS)
    }
}

impl fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufferPool").field("limit", &self.limit()).field("held", &self.held()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_keeps_whole_buffers_within_its_limit() {
        let off = BufferPool::new(0);
        off.give(SecretVec::zeroed(1 << 12));
        assert_eq!(off.held(), 0);
        assert!(off.take(1 << 12).is_none());

        let pool = BufferPool::new(3 << 12);
        let shared = pool.clone();
        let mut buf = SecretVec::zeroed(1 << 12);
        buf.fill(7);
        pool.give(buf);
        assert_eq!(shared.held(), 1 << 12, "clones share the pool");
        assert!(pool.take(1 << 11).is_none(), "only the exact length");
        let again = shared.take(1 << 12).unwrap();
        assert!(again.iter().all(|&b| b == 0), "kept wiped");
        // The oldest make room; a buffer longer than the limit is not kept.
        for i in 1..=4u8 {
            let mut buf = SecretVec::zeroed(1 << 12);
            buf.fill(i);
            pool.give(buf);
        }
        assert_eq!(pool.held(), 3 << 12);
        pool.give(SecretVec::zeroed(4 << 12));
        assert_eq!(pool.held(), 3 << 12);
        assert_eq!(BufferPool::default().limit(), 2 << 20);
    }
}
