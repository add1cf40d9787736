//! Decryption of whole messages held in memory: one ([`Decryptor::decrypt_bytes`]) or a batch
//! spread over threads ([`Decryptor::decrypt_all`]).

use std::io::{self, BufRead};

use crate::crypto::secret::SecretVec;
use crate::error::{Error, Result};
use crate::message::decrypt::Decryptor;
use crate::message::decrypt_reader::{DecryptReader, DecryptSummary};
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
