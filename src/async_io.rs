//! `futures-io` adapters over the blocking streams (feature `async`): encryption, inline
//! signing, decryption and inline verification from async code, with the same fallible
//! `finish`, the same verdicts, the same errors and bounded memory. From tokio, wrap tokio's
//! I/O types with `tokio_util::compat` (`.compat()`, `.compat_write()`).
//!
//! Design, and what it costs:
//!
//! - Writers ([`AsyncEncryptWriter`], [`AsyncInlineSignWriter`]): their constructors are
//!   `async` and run the blocking writer's set-up (an Argon2 run per password, the key
//!   agreement with every recipient) on a thread of their own, so the executor is never
//!   blocked for it, as with any async `open`. Then the blocking writer writes into an internal
//!   spool, and `poll_write`, `poll_flush` and `poll_close` drain the spool into the async sink
//!   before the blocking writer is given more (at most [`PIECE`] octets per `poll_write`). That
//!   runs on the calling task (a chunk's AEAD is short); the cost is one more copy of
//!   the output, and the spool holds at most what one step of the blocking writer releases (a
//!   few chunks when its worker threads deliver several at once; all of them at `finish`).
//! - Readers ([`AsyncDecryptReader`], [`AsyncInlineVerifyReader`]): the blocking reader runs on
//!   a thread of its own, fed through two bounded channels ([`DEPTH`](read::DEPTH) pieces of at most
//!   [`PIECE`] octets each way); the thread wakes the task when it has taken input or produced
//!   output. The cost is one thread per stream and two more copies (input to the thread,
//!   plaintext back), and at most about `2 * DEPTH * PIECE` octets in the channels besides the
//!   blocking reader's own bound. Parsing, S2K runs and decryption may block that thread,
//!   never the async executor.
//!
//! Every buffer that carries data between the two sides is wiped when it is emptied or
//! dropped. Dropping an async reader before its end (a cancelled task) tells its thread, which
//! stops before its next piece, or before its next S2K run while it looks for the session key
//! (the run under way finishes), drops the blocking reader (which wipes its own buffers) and
//! ends.
//!
//! For input from the network, the decryptor or verifier should have
//! [`Limits::untrusted_input`](crate::Limits::untrusted_input): a message then costs at most
//! two Argon2 runs of at most 64 MiB on its thread. Each reader also holds a thread until its
//! stream ends or is dropped, so a server bounds how many it runs at once.

#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod read;
#[cfg(test)]
mod tests;
mod write;

use std::sync::{Mutex, MutexGuard, PoisonError};

pub use self::read::{AsyncDecryptReader, AsyncInlineVerifyReader};
pub use self::write::{AsyncEncryptWriter, AsyncInlineSignWriter};

/// The largest piece handed across at once: plaintext per `poll_write`, and each channel
/// message of the readers.
const PIECE: usize = 64 * 1024;

/// Locks, ignoring poisoning: the data under the lock is plain octets, valid at every point.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
