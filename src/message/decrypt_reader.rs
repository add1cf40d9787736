//! The decryption stream ([`DecryptReader`]) and what it reports at its end
//! ([`DecryptSummary`]): the signed message inside the SEIPD packet, read by `signed`.

use std::fmt;
use std::io::{self, BufRead, Read};

use crate::armor::ArmorReader;
use crate::crypto::secret::SessionKey;
use crate::error::{Error, Result};
use crate::key::Cert;
use crate::message::literal_info::LiteralInfo;
use crate::message::seipd::SeipdReader;
use crate::message::session_key::DecryptedWith;
use crate::message::signed::{Container, MessageReader};
use crate::message::verdict::Verification;
use crate::packet::header::peek_tag;
use crate::packet::partial::PartialBodyReader;
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

pub(super) type Body<R> = SeipdReader<PartialBodyReader<ArmorReader<R>>>;

impl<R: BufRead> Container for Body<R> {
    /// The final tag verified, and nothing follows the encrypted message.
    fn finish(&mut self) -> Result<()> {
        if !self.is_done() {
            return Err(Error::Truncated("SEIPD"));
        }
        if peek_tag(self.get_mut().get_mut())?.is_some() {
            return Err(Error::malformed("trailing data after the encrypted message"));
        }
        Ok(())
    }
}

/// Decrypted plaintext of a message; made by [`Decryptor::reader`](crate::Decryptor::reader).
///
/// `Read` and `BufRead` give the literal data. Plaintext is released only after the chunk
/// holding it has been authenticated (the last chunk only after the final tag, too). `Ok(0)`
/// comes only once the final tag verified, the literal data ended exactly, only padding and
/// signatures followed it inside the encryption, and nothing follows the message. Any other
/// ending is an error, never a clean end of stream; after an error every read fails.
///
/// # Signatures: what is final when
///
/// With [`Decryptor::verify_with`](crate::Decryptor::verify_with), the literal data is hashed
/// as the caller consumes it and the signatures are checked when the trailing Signature
/// packets have been decrypted, at the end of the message. So:
/// - every plaintext octet `read` returns is **authentic** (it comes from the holder of the
///   session key: its AEAD chunk verified), but **not yet known to be signed**;
/// - the signature verdicts exist only in the [`DecryptSummary`] returned by
///   [`finish`](DecryptReader::finish) (or after `Ok(0)`, which `finish` then confirms).
///
/// A caller that needs a good signature must hold back (or be able to undo) what it does
/// with the plaintext until `finish` returns and it has checked
/// [`DecryptSummary::verifications`]. A bad or unverifiable signature is never an error: the
/// message still decrypts, and the verdict says why the signature is not good. Memory stays
/// bounded: the signatures are hashed in a stream, not buffered.
pub struct DecryptReader<R: BufRead> {
    /// The signed-message grammar inside the decrypted SEIPD plaintext.
    message: MessageReader<Body<R>>,
    info: LiteralInfo,
    sym: SymmetricAlgorithm,
    aead: AeadAlgorithm,
    session_key: SessionKey,
    decrypted_with: DecryptedWith,
}

impl<R: BufRead> fmt::Debug for DecryptReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecryptReader")
            .field("literal", &self.info)
            .field("sym", &self.sym)
            .field("aead", &self.aead)
            .field("decrypted_with", &self.decrypted_with)
            .finish_non_exhaustive()
    }
}

/// What [`DecryptReader::finish`] reports about a completely authenticated message.
#[derive(Debug)]
#[non_exhaustive]
pub struct DecryptSummary {
    /// Format, file name and date of the literal data.
    pub literal: LiteralInfo,
    /// The cipher of the SEIPDv2 packet.
    pub sym: SymmetricAlgorithm,
    /// The AEAD mode of the SEIPDv2 packet.
    pub aead: AeadAlgorithm,
    /// The session key.
    pub session_key: SessionKey,
    /// What opened the message.
    pub decrypted_with: DecryptedWith,
    /// One verdict per signature in the message (unchecked, as
    /// [`UnverifiableReason::NotRequested`](crate::UnverifiableReason), unless
    /// [`Decryptor::verify_with`](crate::Decryptor::verify_with) was used): first the
    /// signatures placed before the literal data, then those announced by One-Pass Signatures,
    /// outermost first. Only
    /// [`Verification::is_good`] ones vouch for the plaintext; an empty list means the message
    /// is not signed.
    pub verifications: Vec<Verification>,
}

impl DecryptSummary {
    /// Is the message signed by `cert`: does one of its signatures verify as good with a key
    /// of `cert` ([`Verification::is_signed_by`])? Always `false` without
    /// [`Decryptor::verify_with`](crate::Decryptor::verify_with) or a key store, since
    /// signatures are then not checked.
    #[must_use]
    pub fn is_signed_by(&self, cert: &Cert) -> bool {
        self.verifications.iter().any(|v| v.is_signed_by(cert))
    }
}

impl<R: BufRead> DecryptReader<R> {
    /// The reader over `message`, decrypted with `session_key` (found as `decrypted_with`) by
    /// `sym` and `aead`.
    pub(super) fn new(
        message: MessageReader<Body<R>>,
        sym: SymmetricAlgorithm,
        aead: AeadAlgorithm,
        session_key: SessionKey,
        decrypted_with: DecryptedWith,
    ) -> Self {
        let info = message.literal().clone();
        Self { message, info, sym, aead, session_key, decrypted_with }
    }

    /// Format, file name and date of the literal data.
    #[must_use]
    pub fn literal(&self) -> &LiteralInfo {
        &self.info
    }

    /// The cipher and session key (for SOP's `--session-key-out`).
    #[must_use]
    pub fn session_key(&self) -> (SymmetricAlgorithm, &SessionKey) {
        (self.sym, &self.session_key)
    }

    /// The AEAD mode of the SEIPDv2 packet.
    #[must_use]
    pub fn aead(&self) -> AeadAlgorithm {
        self.aead
    }

    /// What opened the message.
    #[must_use]
    pub fn decrypted_with(&self) -> &DecryptedWith {
        &self.decrypted_with
    }

    /// Reads (and discards, still hashing it) whatever plaintext the caller has not read,
    /// checks that the whole message is authentic and complete, and returns the summary with
    /// the signature verdicts.
    ///
    /// # Errors
    /// As for reading: `Decrypt`, `Truncated`, `Malformed`, ... if any part of the message is
    /// not authentic or complete (the first error the stream met).
    pub fn finish(self) -> Result<DecryptSummary> {
        let verifications = self.message.finish()?;
        Ok(DecryptSummary {
            literal: self.info,
            sym: self.sym,
            aead: self.aead,
            session_key: self.session_key,
            decrypted_with: self.decrypted_with,
            verifications,
        })
    }
}

impl<R: BufRead> BufRead for DecryptReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.message.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.message.consume(amt);
    }
}

impl<R: BufRead> Read for DecryptReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.message.read(out)
    }
}
