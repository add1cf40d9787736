//! The signed message (RFC 9580 §10.3), the one reader of its grammar inside a container:
//!
//! ```text
//! Signature* OnePassSignature* LiteralData Signature*      (Padding and Marker anywhere)
//! ```
//!
//! Decryption runs it over the decrypted SEIPD plaintext, inline verification over the
//! (dearmored) input: the literal hand-off, the hashing of the data as the caller consumes it,
//! the reading of the trailing signatures, the verdict timing and the poisoning are the same
//! for both. What ends the container differs, and is [`Container::finish`].

use std::fmt;
use std::io::{self, BufRead, Read};

use crate::error::{Error, Limit, Poison, Result, Unsupported};
use crate::limits::Limits;
use crate::message::hash_pipe::Hashing;
use crate::message::hashes::{DataHashes, HashSlot};
use crate::message::io::{copy_wiped, read_via_fill_buf};
use crate::message::literal::LiteralReader;
use crate::message::literal_info::LiteralInfo;
use crate::message::verdict::{BadReason, UnverifiableReason, Verification, issuer_of, other_version};
use crate::message::verifier::Verifier;
use crate::packet::header::{Header, Tag, peek_tag};
use crate::packet::one_pass::{OnePass, OnePassSignature, OnePassSignatureV3};
use crate::packet::signature::{SignaturePacket, SignatureV4};
use crate::packet::{PacketBody, RawPacket, read_raw_packet};
use crate::signature::SignatureMode;
use crate::types::Fingerprint;

/// What holds a signed message: how its end is checked once the trailing signatures were read.
pub(super) trait Container: BufRead {
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
}

/// A signed (or plain) message inside a container `S`: `Read`/`BufRead` give the literal
/// data; [`MessageReader::finish`] the verdicts.
pub(super) struct MessageReader<S: Container> {
    stage: Stage<S>,
    /// The first error, reported again by every later call.
    poison: Poison,
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
    pub(super) fn new(
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
            poison: Poison::default(),
            signatures,
            verifier,
            limits,
            verifications: Vec::new(),
        })
    }

    /// Format, file name and date of the literal data.
    pub(super) fn literal(&self) -> &LiteralInfo {
        &self.info
    }

    /// Every Signature packet of the message (header included), in the order found; complete
    /// once the data has been read to its end.
    pub(super) fn signature_packets(&self) -> &[u8] {
        self.signatures.signature_packets()
    }

    /// Reads (and discards, still hashing it) what the caller has not read, checks the end of
    /// the message and of its container, and returns one verdict per signature.
    ///
    /// # Errors
    /// The first error of the stream.
    pub(super) fn finish(mut self) -> Result<Vec<Verification>> {
        self.poison.check()?;
        // Only a message the caller did not read to its end needs draining: the wiped copy
        // buffer is not allocated for the usual case (read to `Ok(0)`, then `finish`).
        if matches!(self.stage, Stage::Literal(_)) {
            let _ = copy_wiped(&mut self, &mut io::sink()).map_err(Error::from_io)?;
        }
        match self.stage {
            Stage::Done => Ok(self.verifications),
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
        self.poison.check_io()?;
        if let Err(first) = self.advance() {
            return Err(self.poison.set(first).into());
        }
        match &mut self.stage {
            Stage::Literal(l) => l.fill_buf(),
            Stage::Done => Ok(&[]),
            Stage::Finishing => Err(Error::poisoned().into()),
        }
    }

    fn consume(&mut self, amt: usize) {
        if amt == 0 || self.poison.check().is_err() {
            return;
        }
        let Stage::Literal(l) = &mut self.stage else {
            return;
        };
        // What is consumed is what `fill_buf` returned, still buffered: hash it now, so that
        // each octet is hashed once however the caller reads. `fill_buf` does no I/O here
        // (there is buffered data); if it did fail, the stream is poisoned.
        match l.fill_buf() {
            Ok(buf) if buf.len() >= amt => {
                self.signatures.update(buf.get(..amt).unwrap_or_default());
                l.consume(amt);
            }
            Ok(_) => {
                let _ = self.poison.set(Error::InvalidArgument("consumed more than was buffered"));
            }
            Err(e) => {
                let _ = self.poison.set(Error::from_io(e));
            }
        }
    }
}

impl<S: Container> Read for MessageReader<S> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        read_via_fill_buf(self, out)
    }
}

/// The signature packets around one Literal Data packet (RFC 9580 §10.3) and the running
/// hashes of the literal data: shared by inline verification and the decryption stream, which
/// frame the literal data differently but check its signatures the same way.
pub(super) struct InlineSignatures {
    /// Whether the data is hashed (false: the structure is checked, nothing is verified).
    hashing: bool,
    /// Signatures placed before the data.
    prefixed: Vec<Pending>,
    /// One-Pass Signatures, in order, with the hash each one started (or why it could not).
    one_pass: Vec<(OnePass, OpsHash)>,
    /// Every Signature packet, header included, in the order found.
    signature_packets: Vec<u8>,
    /// The running hashes of the literal data that `prefixed` and `one_pass` need.
    hashes: DataHashes,
}

impl fmt::Debug for InlineSignatures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InlineSignatures")
            .field("hashing", &self.hashing)
            .field("one_pass", &self.one_pass.len())
            .field("prefixed", &self.prefixed.len())
            .finish_non_exhaustive()
    }
}

/// Appends a signature packet to the kept signature packets, whose total size is bounded by
/// the packet length limit (a message's signatures are small; a flood of large ones is not).
fn serialize(raw: &RawPacket, out: &mut Vec<u8>, limits: &Limits) -> Result<()> {
    let total = out.len().saturating_add(raw.body.len());
    if total > limits.max_packet_len() {
        return Err(Error::LimitExceeded(Limit::Signatures));
    }
    Header::fixed(raw.tag, raw.body.len())?.write_to(out)?;
    out.extend_from_slice(&raw.body);
    Ok(())
}

impl InlineSignatures {
    /// The signing keys the signatures before the literal data name (One-Pass Signatures and
    /// prefixed signatures that parse), in order.
    pub(super) fn issuers(&self) -> Vec<Fingerprint> {
        let prefixed = self.prefixed.iter().filter_map(|p| match p {
            Pending::Hashing(sig, _) => issuer_of(sig),
            Pending::Done(v) => v.signing_key(),
        });
        let announced = self.one_pass.iter().filter_map(|(ops, _)| match ops {
            OnePass::V6(ops) => Some(Fingerprint::from_bytes(ops.fingerprint)),
            OnePass::V3(_) => None,
        });
        prefixed.chain(announced).collect()
    }

    /// Reads the packets before the literal data (signatures, then One-Pass Signatures;
    /// padding and marker packets are skipped) and starts their hashes if `hashing`. `source`
    /// is left at the Literal Data packet.
    ///
    /// # Errors
    /// `Truncated` if the input ends before the literal data; `Unsupported(CompressedData)`;
    /// `Malformed` for another packet, or a signature between One-Pass Signatures;
    /// `LimitExceeded(Signatures)`; framing and I/O errors.
    fn read_prefix(source: &mut impl BufRead, limits: &Limits, hashing: bool) -> Result<Self> {
        let mut this = Self {
            hashing,
            prefixed: Vec::new(),
            one_pass: Vec::new(),
            signature_packets: Vec::new(),
            hashes: DataHashes::new(Hashing::Beside),
        };
        loop {
            match peek_tag(source)? {
                None => return Err(Error::Truncated("signed message: no literal data")),
                Some(Tag::LiteralData) => return Ok(this),
                Some(Tag::CompressedData) => return Err(Error::Unsupported(Unsupported::CompressedData)),
                Some(_) => {}
            }
            let raw = read_raw_packet(source, limits)?
                .ok_or(Error::Truncated("signed message: no literal data"))?;
            if this.prefixed.len().saturating_add(this.one_pass.len()) >= limits.max_signatures() {
                return Err(Error::LimitExceeded(Limit::Signatures));
            }
            match raw.tag {
                Tag::Signature => {
                    if !this.one_pass.is_empty() {
                        return Err(Error::malformed(
                            "signed message: signature between one-pass signatures",
                        ));
                    }
                    serialize(&raw, &mut this.signature_packets, limits)?;
                    let hashes = if hashing { Some(&mut this.hashes) } else { None };
                    this.prefixed.push(Pending::from_body(&raw.body, limits, hashes)?);
                }
                Tag::OnePassSignature => {
                    let ops = OnePass::parse(&raw.body)?;
                    let hasher = match &ops {
                        OnePass::V6(v6) if hashing => start_for(v6, &mut this.hashes),
                        OnePass::V6(_) => Err(Verification::unverifiable(UnverifiableReason::NotRequested)),
                        // A v4 signature is never verified: nothing to hash for it.
                        OnePass::V3(_) => {
                            Err(Verification::unverifiable(UnverifiableReason::UnsupportedVersion))
                        }
                    };
                    this.one_pass.push((ops, hasher));
                }
                tag if tag.is_ignored_in_messages() => {}
                _ => {
                    return Err(Error::malformed(
                        "signed message: unexpected packet before the literal data",
                    ));
                }
            }
        }
    }

    /// Hashes more literal data.
    fn update(&mut self, data: &[u8]) {
        if self.hashing {
            // A lost hashing thread is reported by `read_suffix`.
            let _ = self.hashes.update(data);
        }
    }

    /// Every Signature packet read so far (header included, binary), in the order found.
    fn signature_packets(&self) -> &[u8] {
        &self.signature_packets
    }

    /// After the literal data: reads the trailing signatures up to the end of `source` (only
    /// padding and marker packets may come between them) and returns one [`Verification`] per
    /// signature — first those placed before the data, then those announced by One-Pass
    /// Signatures, outermost first — or none if `verifier` is `None`.
    ///
    /// # Errors
    /// `Malformed` for another packet or more signatures than One-Pass Signatures; `Truncated`
    /// for fewer; framing and I/O errors.
    fn read_suffix(
        &mut self,
        source: &mut impl BufRead,
        limits: &Limits,
        verifier: Option<&Verifier>,
    ) -> Result<Vec<Verification>> {
        self.hashes.finish()?;
        let mut trailing = Vec::new();
        while let Some(raw) = read_raw_packet(source, limits)? {
            match raw.tag {
                Tag::Signature => {
                    if trailing.len() >= self.one_pass.len() {
                        return Err(Error::malformed(
                            "signed message: more signatures than one-pass signatures",
                        ));
                    }
                    serialize(&raw, &mut self.signature_packets, limits)?;
                    // Parsed here, where the limits apply; one that does not parse is a verdict.
                    let sig = SignaturePacket::parse_with_limits(&raw.body, limits);
                    if let Err(e @ Error::LimitExceeded(_)) = sig {
                        return Err(e);
                    }
                    trailing.push((raw.body, sig));
                }
                tag if tag.is_ignored_in_messages() => {}
                _ => {
                    return Err(Error::malformed("signed message: unexpected packet after the literal data"));
                }
            }
        }
        if trailing.len() != self.one_pass.len() {
            return Err(Error::Truncated("signed message: a one-pass signature has no signature"));
        }
        let prefixed = std::mem::take(&mut self.prefixed);
        let one_pass = std::mem::take(&mut self.one_pass);
        let Some(verifier) = verifier else {
            // Not verified, but listed: the caller learns that the message is signed, and by
            // whom it says.
            let prefixed = prefixed.into_iter().map(|p| match p {
                Pending::Hashing(sig, _) => Verification::not_requested(&sig),
                Pending::Done(v) => v,
            });
            let announced = trailing.iter().rev().map(|(body, sig)| match sig {
                Ok(sig) => Verification::not_requested(sig),
                Err(Error::Unsupported(Unsupported::PacketVersion { .. })) => other_version(body, limits),
                Err(_) => Verification::unverifiable(UnverifiableReason::Malformed),
            });
            return Ok(prefixed.chain(announced).collect());
        };
        let hashes = &self.hashes;
        let mut results: Vec<Verification> =
            prefixed.into_iter().map(|p| p.finish(verifier, hashes)).collect();
        // The first trailing signature belongs to the last One-Pass Signature (§10.3).
        let pairs = one_pass.into_iter().rev().zip(trailing);
        let mut announced: Vec<Verification> = pairs
            .map(|((ops, hasher), (body, sig))| match ops {
                OnePass::V6(ops) => match (sig, hasher) {
                    (Ok(sig), Ok(slot)) if matches_ops(&ops, &sig) => {
                        confirmed_by(&ops, check(verifier, &sig, hashes, slot))
                    }
                    (Ok(_), Ok(_)) => one_pass_mismatch(),
                    (Ok(_), Err(v)) => v,
                    // A v6 One-Pass Signature announces a v6 signature.
                    (Err(Error::Unsupported(Unsupported::PacketVersion { .. })), _) => one_pass_mismatch(),
                    (Err(_), _) => Verification::unverifiable(UnverifiableReason::Malformed),
                },
                OnePass::V3(ops) => announced_by_v3(&ops, &body, limits),
            })
            .collect();
        announced.reverse();
        results.extend(announced);
        Ok(results)
    }
}

/// The signing keys that the packets of a signed message before its literal data name (its
/// One-Pass Signatures and the issuers of its signatures), in order, for
/// [`MessageInfo`](super::MessageInfo): unlike [`InlineSignatures::read_prefix`], it checks
/// neither their order nor the signatures, and skips packets of other types. `source` is left
/// at the literal (or compressed) data.
///
/// # Errors
/// `Truncated` if the input ends first; `LimitExceeded(SessionKeyPackets)` past the packet
/// count; a One-Pass Signature that does not parse; framing and I/O errors.
pub(super) fn named_signers(source: &mut impl BufRead, limits: &Limits) -> Result<Vec<Fingerprint>> {
    let mut signers = Vec::new();
    let mut packets = 0usize;
    loop {
        match peek_tag(&mut *source)? {
            None => return Err(Error::Truncated("message: no encrypted or literal data")),
            Some(Tag::LiteralData | Tag::CompressedData) => return Ok(signers),
            Some(_) => {}
        }
        packets = packets.saturating_add(1);
        if packets > limits.max_session_key_packets().saturating_add(limits.max_signatures()) {
            return Err(Error::LimitExceeded(Limit::SessionKeyPackets));
        }
        let Some(raw) = read_raw_packet(&mut *source, limits)? else {
            return Err(Error::Truncated("message"));
        };
        match raw.tag {
            Tag::OnePassSignature => {
                // A v3 One-Pass Signature names a v4 key, which is not a signer this crate
                // can name.
                if let OnePass::V6(ops) = OnePass::parse(&raw.body)? {
                    signers.push(Fingerprint::from_bytes(ops.fingerprint));
                }
            }
            Tag::Signature => {
                let sig = SignaturePacket::parse_with_limits(&raw.body, limits);
                signers.extend(sig.ok().as_ref().and_then(issuer_of));
            }
            _ => {}
        }
    }
}

/// One signature awaiting the end of the data.
#[derive(Debug)]
pub(super) enum Pending {
    /// Its hash runs in the message's [`DataHashes`].
    Hashing(Box<SignaturePacket>, HashSlot),
    Done(Verification),
}

impl Pending {
    /// Parses a Signature packet body and starts its hash among `hashes` (`None`: the
    /// signature is not to be verified). A signature that does not parse is a verdict, not an
    /// error; one over the limits is an error, as for any other packet.
    ///
    /// # Errors
    /// `LimitExceeded` (too many subpackets).
    pub(super) fn from_body(body: &[u8], limits: &Limits, hashes: Option<&mut DataHashes>) -> Result<Self> {
        Ok(match SignaturePacket::parse_with_limits(body, limits) {
            Ok(sig) => match hashes {
                Some(hashes) => Self::start(sig, hashes),
                None => Self::Done(Verification::not_requested(&sig)),
            },
            Err(e @ Error::LimitExceeded(_)) => return Err(e),
            Err(Error::Unsupported(Unsupported::PacketVersion { .. })) => {
                Self::Done(other_version(body, limits))
            }
            Err(_) => Self::Done(Verification::unverifiable(UnverifiableReason::Malformed)),
        })
    }

    fn start(sig: SignaturePacket, hashes: &mut DataHashes) -> Self {
        let Some(mode) = SignatureMode::from_signature_type(sig.sig_type) else {
            return Self::Done(Verification::unverifiable(UnverifiableReason::NotDocumentSignature));
        };
        match hashes.slot(sig.hash_algorithm, &sig.salt, mode) {
            Ok(slot) => Self::Hashing(Box::new(sig), slot),
            Err(verdict) => Self::Done(verdict),
        }
    }

    /// The verdict, once `hashes` has hashed all of the data.
    pub(super) fn finish(self, verifier: &Verifier, hashes: &DataHashes) -> Verification {
        match self {
            Self::Hashing(sig, slot) => check(verifier, &sig, hashes, slot),
            Self::Done(v) => v,
        }
    }
}

/// Checks `sig` over its hash of the data; a hash that was lost (with the hashing thread)
/// leaves the signature unverifiable, never good.
fn check(verifier: &Verifier, sig: &SignaturePacket, hashes: &DataHashes, slot: HashSlot) -> Verification {
    match hashes.hasher(slot) {
        Some(hasher) => verifier.check(sig, hasher),
        None => Verification::unverifiable(UnverifiableReason::UnsupportedHash),
    }
}

/// The hash a One-Pass Signature started, or the verdict if it cannot be started.
type OpsHash = std::result::Result<HashSlot, Verification>;

/// Starts the hash a One-Pass Signature announces.
fn start_for(ops: &OnePassSignature, hashes: &mut DataHashes) -> OpsHash {
    let mode = SignatureMode::from_signature_type(ops.sig_type)
        .ok_or_else(|| Verification::unverifiable(UnverifiableReason::NotDocumentSignature))?;
    hashes.slot(ops.hash_algorithm, &ops.salt, mode)
}

/// The verdict on a signature that differs from what its One-Pass Signature announced.
fn one_pass_mismatch() -> Verification {
    Verification::bad(BadReason::OnePassMismatch)
}

/// The verdict on the signature a v3 One-Pass Signature announced: a v4 signature that
/// repeats what was announced is unverifiable (for its version); any other signature does
/// not match, and a v6 one cannot have been hashed (its salt was not announced).
fn announced_by_v3(ops: &OnePassSignatureV3, body: &[u8], limits: &Limits) -> Verification {
    match SignatureV4::parse(body, limits.max_subpackets()) {
        Ok(sig)
            if ops.sig_type == sig.sig_type
                && ops.hash_algorithm == sig.hash_algorithm
                && ops.pk_algorithm == sig.pk_algorithm
                && sig.issuer_key_id.is_none_or(|id| id == ops.key_id) =>
        {
            Verification::v4(&sig)
        }
        Ok(_) | Err(Error::Unsupported(Unsupported::PacketVersion { .. })) => one_pass_mismatch(),
        Err(_) => Verification::unverifiable(UnverifiableReason::Malformed),
    }
}

/// A v6 signature must repeat what its One-Pass Signature announced (RFC 9580 §5.4),
/// the signing key included: the One-Pass Signature's fingerprint is what the message names as
/// its signer (for key look-ups and `MessageInfo::signers`), so the signature must confirm it.
fn matches_ops(ops: &OnePassSignature, sig: &SignaturePacket) -> bool {
    ops.sig_type == sig.sig_type
        && ops.hash_algorithm == sig.hash_algorithm
        && ops.pk_algorithm == sig.pk_algorithm
        && ops.salt == sig.salt
        && issuer_of(sig).is_none_or(|issuer| *issuer.as_bytes() == ops.fingerprint)
}

/// `verdict`, unless the key that made a signature without an issuer fingerprint is not the
/// one its One-Pass Signature named.
fn confirmed_by(ops: &OnePassSignature, verdict: Verification) -> Verification {
    match verdict.signing_key() {
        Some(key) if *key.as_bytes() != ops.fingerprint => one_pass_mismatch(),
        _ => verdict,
    }
}
