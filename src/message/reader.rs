//! The one reader for the signed-message grammar inside a container (RFC 9580 §10.3):
//!
//! ```text
//! Signature* OnePassSignature* LiteralData Signature*      (Padding and Marker anywhere)
//! ```
//!
//! Decryption runs it over the decrypted SEIPD plaintext, inline verification over the
//! (dearmored) input: the literal hand-off, the hashing of the data as the caller consumes it,
//! the reading of the trailing signatures, the verdict timing and the poisoning are the same
//! for both. What ends the container differs, and is [`Container::finish`].

use std::io::{self, BufRead, Read};

use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::message::info::LiteralInfo;
use crate::message::literal::LiteralReader;
use crate::message::verify::{InlineSignatures, Verification, Verifier};

/// What holds a signed message: how its end is checked once the trailing signatures were read.
pub(crate) trait Container: BufRead {
    /// Checks that the container ended properly after the message (authenticated, nothing
    /// trailing).
    ///
    /// # Errors
    /// `Truncated` or `Malformed` if it did not.
    fn finish(&mut self) -> Result<()>;
}

enum Stage<S: BufRead> {
    /// Reading the literal data.
    Literal(Box<LiteralReader<S>>),
    /// Reading the signatures and the end of the container.
    Finishing,
    /// Everything was read and checked.
    Done,
    /// An error happened: the first one, reported again by every later call.
    Failed(Error),
}

/// A signed (or plain) message inside a container `S`: `Read`/`BufRead` give the literal
/// data; [`MessageReader::finish`] the verdicts.
pub(crate) struct MessageReader<S: Container> {
    stage: Stage<S>,
    /// Format, file name and date of the literal data.
    info: LiteralInfo,
    signatures: InlineSignatures,
    /// Set if the signatures are to be verified.
    verifier: Option<Verifier>,
    limits: Limits,
    /// The verdicts, once the message has ended.
    verifications: Vec<Verification>,
}

impl<S: Container> MessageReader<S> {
    /// Reads the packets before the literal data and the literal data header. `verifier` is
    /// called once the signers the message names are known (to look up their certificates);
    /// `None` checks the signatures' structure only.
    ///
    /// # Errors
    /// `Malformed`/`Truncated`/`Unsupported` if the packets before the literal data are not a
    /// signed message; `LimitExceeded(Signatures)`; I/O errors.
    pub(crate) fn new(
        mut source: S,
        limits: Limits,
        verify: bool,
        verifier: impl FnOnce(&InlineSignatures) -> Result<Option<Verifier>>,
    ) -> Result<Self> {
        let signatures = InlineSignatures::read_prefix(&mut source, &limits, verify)?;
        let verifier = if verify { verifier(&signatures)? } else { None };
        let literal = LiteralReader::new(source)?;
        Ok(Self {
            info: LiteralInfo::from_header(literal.header()),
            stage: Stage::Literal(Box::new(literal)),
            signatures,
            verifier,
            limits,
            verifications: Vec::new(),
        })
    }

    /// Format, file name and date of the literal data.
    pub(crate) fn literal(&self) -> &LiteralInfo {
        &self.info
    }

    /// Every Signature packet of the message (header included), in the order found; complete
    /// once the data has been read to its end.
    pub(crate) fn signature_packets(&self) -> &[u8] {
        self.signatures.signature_packets()
    }

    /// Reads (and discards, still hashing it) what the caller has not read, checks the end of
    /// the message and of its container, and returns one verdict per signature.
    ///
    /// # Errors
    /// The first error of the stream.
    pub(crate) fn finish(mut self) -> Result<Vec<Verification>> {
        // Only a message the caller did not read to its end needs draining: the wiped copy
        // buffer is not allocated for the usual case (read to `Ok(0)`, then `finish`).
        if matches!(self.stage, Stage::Literal(_)) {
            let _ = crate::message::io::copy_wiped(&mut self, &mut io::sink()).map_err(Error::from_io)?;
        }
        match self.stage {
            Stage::Done => Ok(self.verifications),
            Stage::Failed(first) => Err(first),
            Stage::Literal(_) | Stage::Finishing => Err(Error::poisoned()),
        }
    }

    /// After the literal data: the signatures (checked if verifying), then the container's end.
    fn finish_message(&mut self, literal: LiteralReader<S>) -> Result<()> {
        let mut source = literal.into_inner();
        self.verifications =
            self.signatures.read_suffix(&mut source, &self.limits, self.verifier.as_ref())?;
        source.finish()
    }

    /// Makes sure data is available or the stage is `Done`.
    fn advance(&mut self) -> Result<()> {
        let at_end = match &mut self.stage {
            Stage::Literal(l) => l.fill_buf().map_err(Error::from_io)?.is_empty(),
            Stage::Done => return Ok(()),
            Stage::Finishing => return Err(Error::poisoned()),
            Stage::Failed(first) => return Err(first.replay()),
        };
        if at_end {
            let Stage::Literal(l) = std::mem::replace(&mut self.stage, Stage::Finishing) else {
                return Err(Error::poisoned());
            };
            self.finish_message(*l)?;
            self.stage = Stage::Done;
        }
        Ok(())
    }
}

impl<S: Container> BufRead for MessageReader<S> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Stage::Failed(first) = &self.stage {
            return Err(first.replay().into());
        }
        if let Err(first) = self.advance() {
            let again = first.replay();
            self.stage = Stage::Failed(first);
            return Err(again.into());
        }
        match &mut self.stage {
            Stage::Literal(l) => l.fill_buf(),
            Stage::Done => Ok(&[]),
            Stage::Finishing => Err(Error::poisoned().into()),
            Stage::Failed(first) => Err(first.replay().into()),
        }
    }

    fn consume(&mut self, amt: usize) {
        let Stage::Literal(l) = &mut self.stage else {
            return;
        };
        if amt == 0 {
            return;
        }
        // What is consumed is what `fill_buf` returned, still buffered: hash it now, so that
        // each octet is hashed once however the caller reads. `fill_buf` does no I/O here
        // (there is buffered data); if it did fail, the stream is poisoned.
        match l.fill_buf() {
            Ok(buf) if buf.len() >= amt => {
                self.signatures.update(buf.get(..amt).unwrap_or_default());
                l.consume(amt);
            }
            Ok(_) => self.stage = Stage::Failed(Error::InvalidArgument("consumed more than was buffered")),
            Err(e) => self.stage = Stage::Failed(Error::from_io(e)),
        }
    }
}

impl<S: Container> Read for MessageReader<S> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        crate::message::io::read_via_fill_buf(self, out)
    }
}
