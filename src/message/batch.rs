//! Decryption of whole messages held in memory: one ([`Decryptor::decrypt_bytes`]) or a batch
//! spread over threads ([`Decryptor::decrypt_all`]); and encryption of a batch of plaintexts
//! held in memory to the same recipients, spread over threads ([`Encryptor::encrypt_all`]).

use std::io::{self, BufRead};
use std::sync::{Mutex, PoisonError};

use crate::crypto::secret::SecretVec;
use crate::error::{Error, Result};
use crate::message::decrypt::Decryptor;
use crate::message::decrypt_reader::{DecryptReader, DecryptSummary};
use crate::message::encrypt::Encryptor;
use crate::pipeline::{self, policy};

/// A decrypted message: its literal data and summary ([`Decryptor::decrypt_bytes`]).
type Decrypted = (Vec<u8>, DecryptSummary);

impl Decryptor {
    /// Decrypts (and verifies, with [`verify_with`](Decryptor::verify_with)) one whole message
    /// held in memory, and returns its literal data and summary.
    ///
    /// Takes `&self`, so one `Decryptor` serves any number of messages, from any number of
    /// threads (it is `Sync`): the secret keys are looked up once and the ML-KEM decapsulation
    /// keys are expanded at the first post-quantum message and kept. The chunk size does not
    /// matter: a short message allocates a buffer of its own size, not a whole chunk.
    ///
    /// # Errors
    /// As for [`reader`](Decryptor::reader) and [`DecryptReader::finish`]: nothing is returned
    /// unless the whole message is authentic and complete.
    pub fn decrypt_bytes(&self, message: &[u8]) -> Result<(Vec<u8>, DecryptSummary)> {
        collect(self.open(message)?, message.len())
    }

    /// Decrypts a batch of whole messages held in memory, spread over
    /// [`threads`](Decryptor::threads) threads (default: the available cores; the calling
    /// thread is one of them), and returns each message's [`decrypt_bytes`](Decryptor::decrypt_bytes)
    /// result in the order of `messages`. Threads take messages a few at a time from a shared
    /// counter, so uneven message sizes balance out; within a message no further thread is
    /// started. One failing message does not affect the others.
    ///
    /// ```
    /// # fn main() -> sixpgp::Result<()> {
    /// use std::io::Write;
    /// use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};
    ///
    /// let key = KeyBuilder::new(Profile::Rfc9580).user_id("Bulk <bulk@example.org>").generate()?;
    /// let cert = key.to_cert();
    /// let messages = (0..20u8)
    ///     .map(|i| {
    ///         let mut w = Encryptor::new([&cert]).writer(Vec::new())?;
    ///         w.write_all(&[i; 100])?;
    ///         w.finish()
    ///     })
    ///     .collect::<sixpgp::Result<Vec<_>>>()?;
    /// let results = Decryptor::new([&key]).decrypt_all(&messages);
    /// for (i, result) in results.into_iter().enumerate() {
    ///     let (plaintext, _summary) = result?;
    ///     assert_eq!(plaintext, [i as u8; 100]);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn decrypt_all<M: AsRef<[u8]> + Sync>(
        &self,
        messages: &[M],
    ) -> Vec<Result<(Vec<u8>, DecryptSummary)>> {
        let threads = policy::batch::threads(self.thread_count());
        pipeline::map_in_order(threads, policy::batch::TAKE, messages, |m| self.decrypt_one(m.as_ref()))
    }

    /// [`decrypt_bytes`](Decryptor::decrypt_bytes) with no thread started inside the message.
    fn decrypt_one(&self, message: &[u8]) -> Result<Decrypted> {
        collect(self.open_with(message, Some(1), None)?, message.len())
    }
}

impl Encryptor {
    /// Encrypts each plaintext of a batch held in memory as a message of its own, spread over
    /// [`threads`](Encryptor::threads) threads (default: the available cores; the calling
    /// thread is one of them), and returns the messages in the order of `plaintexts`: what
    /// [`encrypt_bytes`](Encryptor::encrypt_bytes) on a copy of this builder would return for
    /// each. Threads take plaintexts a few at a time from a shared counter, as in
    /// [`Decryptor::decrypt_all`]; within a message no further thread is started.
    ///
    /// The recipient certificates are evaluated once for the batch, as
    /// [`Recipients`](crate::Recipients) would (prepared ones as they are), at the
    /// [`at`](Encryptor::at) time or, by default, the time of the call, which every message of
    /// the batch then carries. What each message still pays for is its own session key and,
    /// per recipient key, a fresh ephemeral key and a key agreement (X25519, and ML-KEM
    /// encapsulation for the post-quantum keys); with passwords, an Argon2 run per message and
    /// password. Each message draws from the operating system's RNG.
    ///
    /// ```
    /// # fn main() -> sixpgp::Result<()> {
    /// use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};
    ///
    /// let key = KeyBuilder::new(Profile::Rfc9580).user_id("Bulk <bulk@example.org>").generate()?;
    /// let values: Vec<[u8; 100]> = (0..20u8).map(|i| [i; 100]).collect();
    /// let messages = Encryptor::new([key.to_cert()]).encrypt_all(&values)?;
    /// let decrypted = Decryptor::new([&key]).decrypt_all(&messages);
    /// for (value, result) in values.iter().zip(decrypted) {
    ///     assert_eq!(result?.0, value);
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Encryptor::writer`] (checked once, before any message is made); `InvalidArgument`
    /// if an RNG was injected with [`rng`](Encryptor::rng), which cannot serve several threads;
    /// `Io` if the RNG fails for any message (no message is returned then: encryption fails
    /// only for reasons that hold for the whole batch).
    pub fn encrypt_all<M: AsRef<[u8]> + Sync>(&self, plaintexts: &[M]) -> Result<Vec<Vec<u8>>> {
        // Behind a lock only because a builder is not `Sync` (an injected RNG need not be): each
        // message holds it just to copy the builder.
        let template = Mutex::new(self.batch_template()?);
        let copy = || template.lock().unwrap_or_else(PoisonError::into_inner).batch_copy();
        let threads = policy::batch::threads(self.thread_count());
        pipeline::map_in_order(threads, policy::batch::TAKE, plaintexts, |p| copy().encrypt_bytes(p.as_ref()))
            .into_iter()
            .collect()
    }
}

/// Reads all of `r`'s plaintext into a buffer that is wiped unless it is handed over: on
/// success it becomes the caller's; on any failure the plaintext already read is wiped, not
/// left in freed memory. The plaintext is shorter than the message (`message_len`), so one
/// allocation is the rule; a growth would move the data and wipe the old buffer.
fn collect<R: BufRead>(mut r: DecryptReader<R>, message_len: usize) -> Result<Decrypted> {
    let mut plaintext = SecretVec::with_capacity(message_len);
    loop {
        let chunk = match r.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::from_io(e)),
        };
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        plaintext.extend_from_slice(chunk);
        r.consume(n);
    }
    let summary = r.finish()?;
    Ok((plaintext.into_vec(), summary))
}
