//! Verifying document signatures: detached ([`DetachedVerifier`]), cleartext (through it) and
//! inline ([`InlineVerifyReader`]), streaming over the signed data (RFC 9580 §5.2, §10.3), and
//! the [`Verifier`] methods that start them. The signed-message grammar is read by `signed`,
//! and what counts as good is `verifier`'s.

use std::fmt;
use std::io::{self, BufRead, Read, Write};

use crate::armor::{ArmorReader, only_whitespace_left};
use crate::error::{Error, Limit, Result};
use crate::message::cleartext::CleartextMessage;
use crate::message::hash_pipe::Hashing;
use crate::message::hashes::DataHashes;
use crate::message::signed::{Container, MessageReader, Pending};
use crate::message::verdict::{BadReason, Verification, issuer_of};
use crate::message::verifier::Verifier;
use crate::packet::header::Tag;
use crate::packet::read_raw_packet;
use crate::types::{Fingerprint, HashAlgorithm};

impl Verifier {
    /// A sink that verifies detached `signatures` (binary Signature packets, or one or more
    /// armored blocks of them) over what is written to it; [`DetachedVerifier::finish`] gives one [`Verification`] per
    /// signature.
    ///
    /// # Errors
    /// `Malformed`/`Truncated` if the signature packets cannot be framed (a packet that frames
    /// but does not parse is reported as unverifiable instead), or if they hold no signature or
    /// another packet type; `LimitExceeded(Signatures)` for too many.
    pub fn detached(self, signatures: &[u8]) -> Result<DetachedVerifier> {
        // Binary, or armored blocks one after the other (`cat` of signature files): the
        // packets of every block, as one sequence.
        let mut bytes = Vec::new();
        let mut input = signatures;
        loop {
            let mut block = ArmorReader::with_limits(&mut input, self.parse_limits());
            let armored = block.detect()?.is_some();
            let _ = block.read_to_end(&mut bytes).map_err(Error::from_io)?;
            if !armored || only_whitespace_left(block.into_inner())? {
                break;
            }
        }
        let mut r = &bytes[..];
        let mut items = Vec::new();
        let mut hashes = DataHashes::new(Hashing::Inline);
        while let Some(raw) = read_raw_packet(&mut r, self.parse_limits())? {
            match raw.tag {
                Tag::Signature => {}
                tag if tag.is_ignored_in_messages() => continue,
                _ => return Err(Error::malformed("detached signatures: not a signature packet")),
            }
            if items.len() >= self.parse_limits().max_signatures() {
                return Err(Error::LimitExceeded(Limit::Signatures));
            }
            items.push(Pending::from_body(&raw.body, self.parse_limits(), Some(&mut hashes))?);
        }
        if items.is_empty() {
            return Err(Error::malformed("detached signatures: no signature packet"));
        }
        let issuers: Vec<Fingerprint> = items
            .iter()
            .filter_map(|p| match p {
                Pending::Hashing(sig, _) => issuer_of(sig),
                Pending::Done(_) => None,
            })
            .collect();
        let mut verifier = self;
        verifier.look_up(&issuers)?;
        Ok(DetachedVerifier { verifier, items, hashes })
    }

    /// Verifies detached `signatures` over `data` held in memory.
    ///
    /// # Errors
    /// As [`Verifier::detached`]. Bad or unverifiable signatures are not errors: they are in the
    /// result.
    pub fn verify_bytes(self, signatures: &[u8], data: &[u8]) -> Result<Vec<Verification>> {
        self.verify_detached(signatures, data)
    }

    /// Reads a whole inline-signed message held in memory (armored or binary) and returns its
    /// data and one [`Verification`] per signature.
    ///
    /// # Errors
    /// As [`Verifier::inline_reader`] and [`InlineVerifyReader::finish`].
    pub fn verify_inline_bytes(self, message: &[u8]) -> Result<(Vec<u8>, Vec<Verification>)> {
        let mut r = self.inline_reader(message)?;
        // The signed data is shorter than the message: one allocation, no copy left behind.
        let mut data = Vec::with_capacity(message.len());
        let _ = r.read_to_end(&mut data).map_err(Error::from_io)?;
        Ok((data, r.finish()?))
    }

    /// Verifies detached `signatures` over `data`, streaming it.
    ///
    /// # Errors
    /// As [`Verifier::detached`], and read errors of `data`. Bad or unverifiable signatures are
    /// not errors: they are in the result.
    pub fn verify_detached(self, signatures: &[u8], mut data: impl Read) -> Result<Vec<Verification>> {
        let mut sink = self.detached(signatures)?;
        let _ = io::copy(&mut data, &mut sink).map_err(Error::from_io)?;
        Ok(sink.finish())
    }

    /// A reader over an inline-signed message, armored or binary (detected as by
    /// [`Decryptor::reader`](crate::Decryptor::reader)): it yields the literal data and
    /// verifies the signatures as it goes.
    ///
    /// # Errors
    /// `Malformed`/`Truncated`/`Unsupported` if the packets before the literal data are not a
    /// signed message (compressed data is not supported); I/O errors.
    pub fn inline_reader<R: BufRead>(self, source: R) -> Result<InlineVerifyReader<R>> {
        InlineVerifyReader::new(self, source)
    }

    /// Verifies the signatures of a cleartext-signed message over its text.
    ///
    /// # Errors
    /// As [`Verifier::detached`] for the signature block.
    pub fn verify_cleartext(self, message: &CleartextMessage) -> Result<Vec<Verification>> {
        let mut sink = self.detached(message.signatures())?;
        if !message.hashes.is_empty() {
            sink.require_hashes(&message.hashes);
        }
        message.write_canonical(&mut sink)?;
        Ok(sink.finish())
    }
}

/// A sink that verifies detached signatures over what is written to it (see
/// [`Verifier::detached`]).
#[derive(Debug)]
#[must_use = "call finish() to get the verifications"]
pub struct DetachedVerifier {
    verifier: Verifier,
    items: Vec<Pending>,
    /// The running hashes `items` need: one per distinct hash, so that copies of a signature
    /// cost one.
    hashes: DataHashes,
}

impl DetachedVerifier {
    /// Marks every signature whose hash algorithm is not in `named` as bad: a cleartext
    /// message's `Hash` header must not name other algorithms than its signatures use
    /// (RFC 9580 §7.1), since a reader may show the header to the user.
    pub(super) fn require_hashes(&mut self, named: &[HashAlgorithm]) {
        for item in &mut self.items {
            if let Pending::Hashing(sig, _) = item
                && !named.contains(&sig.hash_algorithm)
            {
                *item = Pending::Done(Verification::bad(BadReason::HashNotInHeader));
            }
        }
    }

    /// One [`Verification`] per signature, in order.
    pub fn finish(mut self) -> Vec<Verification> {
        // A lost hashing thread (it cannot be lost, short of a panic) leaves no hash: those
        // signatures are unverifiable, never good.
        let _ = self.hashes.finish();
        let (verifier, hashes) = (self.verifier, self.hashes);
        self.items.into_iter().map(|p| p.finish(&verifier, &hashes)).collect()
    }
}

impl Write for DetachedVerifier {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.hashes.update(data)?;
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<R: BufRead> Container for ArmorReader<R> {
    /// An inline-signed message ends where its input does: the trailing signatures were read
    /// to the end.
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Reads an inline-signed message (RFC 9580 §10.3): signatures or One-Pass Signatures, a Literal
/// Data packet, the signatures that the One-Pass Signatures announce.
///
/// `read` releases the literal data **before** the signatures have been checked: the verdict
/// is final only when [`finish`](Self::finish) returns. Callers must not act on the data (or
/// must be able to take it back) until then. `read` returns `Ok(0)` only after the trailing
/// signature packets have been read and the message has ended; structural errors (a missing
/// signature, trailing garbage, truncation) are reported by `read`, never as EOF.
#[must_use = "call finish() to get the verifications"]
pub struct InlineVerifyReader<R: BufRead> {
    /// The signed-message grammar over the (dearmored) input.
    message: MessageReader<ArmorReader<R>>,
}

impl<R: BufRead> fmt::Debug for InlineVerifyReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InlineVerifyReader").field("literal", self.message.literal()).finish_non_exhaustive()
    }
}

impl<R: BufRead> InlineVerifyReader<R> {
    fn new(mut verifier: Verifier, source: R) -> Result<Self> {
        let limits = *verifier.parse_limits();
        let mut source = ArmorReader::with_limits(source, &limits);
        let _ = source.detect()?;
        let message = MessageReader::new(source, limits, true, |signatures| {
            verifier.look_up(&signatures.issuers())?;
            Ok(Some(verifier))
        })?;
        Ok(Self { message })
    }

    /// Every Signature packet of the message (header included, binary), in the order found.
    /// Complete once the data has been read to EOF.
    #[must_use]
    pub fn signature_packets(&self) -> &[u8] {
        self.message.signature_packets()
    }

    /// Reads the rest of the data if needed, and returns one [`Verification`] per signature:
    /// first the signatures placed before the data, then those announced by One-Pass
    /// Signatures, outermost first.
    ///
    /// # Errors
    /// As `read`: a message that is truncated or does not have a signature for every One-Pass
    /// Signature.
    pub fn finish(self) -> Result<Vec<Verification>> {
        self.message.finish()
    }
}

impl<R: BufRead> BufRead for InlineVerifyReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.message.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.message.consume(amt);
    }
}

impl<R: BufRead> Read for InlineVerifyReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.message.read(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{KeyBuilder, Profile};
    use crate::message::hashes::MAX_HASHES;
    use crate::message::sign::Signer;

    /// The work a flood of detached signatures causes is the number of hashes that run over
    /// the data: one for any number of copies of one signature, [`MAX_HASHES`] at most.
    #[test]
    fn a_signature_flood_runs_a_bounded_number_of_hashes() {
        let tsk = KeyBuilder::new(Profile::Rfc9580).user_id("F").generate().unwrap();
        let sign = || Signer::new().key(tsk.clone()).armor(false).sign_bytes(b"data").unwrap();
        let certs = [tsk.to_cert()];

        let copies = sign().repeat(1024);
        let sink = Verifier::new(&certs).detached(&copies).unwrap();
        assert_eq!(sink.hashes.len(), 1);
        assert_eq!(sink.items.len(), 1024);

        let distinct: Vec<u8> = (0..100).flat_map(|_| sign()).collect();
        let sink = Verifier::new(&certs).detached(&distinct).unwrap();
        assert_eq!(sink.hashes.len(), MAX_HASHES);
        assert_eq!(sink.items.len(), 100);
    }
}
