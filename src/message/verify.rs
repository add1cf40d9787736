//! Verifying document signatures: detached ([`DetachedVerifier`]) and inline
//! ([`InlineVerifyReader`]), streaming over the signed data (RFC 9580 §5.2, §10.3).
//!
//! A signature counts as good only if all of these hold:
//! - it is a v6 binary (0x00) or text (0x01) signature with a hashed creation time and no
//!   unknown critical subpacket (RFC 9580 §5.2.3.7);
//! - its creation time is within the not-before / not-after window, and it has not expired at
//!   the evaluation time;
//! - the hash has at least 256 bits and the cryptography verifies with a key of one of the
//!   given certificates;
//! - that key was valid for signing at the signature's creation time: validly bound, with the
//!   signing flag, not expired, not revoked (hard revocations apply at any time, soft ones from
//!   their creation on; see `key::select`).
//!
//! A signature that fails any check is reported as such; it never hides the others.

use std::fmt;
use std::io::{self, BufRead, Read, Write};
use std::sync::Arc;
use std::time::SystemTime;

use crate::armor::ArmorReader;
use crate::error::KeyProblem;
use crate::error::{Error, Limit, Result, Unsupported};
use crate::key::{Cert, flags, from_timestamp, to_timestamp};
use crate::limits::Limits;
use crate::message::hash_pipe::HashPipe;
use crate::message::lookup::{KeyStore, SharedStore};
use crate::message::reader::{Container, MessageReader};
use crate::packet::header::Tag;
use crate::packet::one_pass::{OnePass, OnePassSignature, OnePassSignatureV3};
use crate::packet::signature::{SignaturePacket, SignatureV4};
use crate::packet::{PacketBody, RawPacket, read_raw_packet};
use crate::signature::{DataHasher, SignatureMode, finish_hash, verify_digest};
use crate::types::Fingerprint;
use crate::types::HashAlgorithm;

/// The verdict on one signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerificationStatus {
    /// The signature verifies and every check passed.
    Good,
    /// The signature was checked and is not acceptable.
    Bad(BadReason),
    /// The signature could not be checked.
    Unverifiable(UnverifiableReason),
}

/// Why a signature that was checked is not acceptable ([`VerificationStatus::Bad`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BadReason {
    /// The signature does not verify over the data with the signing key: the data or the
    /// signature was changed, or another key made it.
    Invalid,
    /// The signature has no creation time.
    NoCreationTime,
    /// The signature was made before the not-before bound.
    BeforeNotBefore,
    /// The signature was made after the not-after bound (by default, the evaluation time).
    AfterNotAfter,
    /// The signature had expired at the evaluation time.
    Expired,
    /// The signing key was not valid for signing when the signature was made.
    SigningKey(KeyProblem),
    /// An inline signature differs from what its One-Pass Signature announced.
    OnePassMismatch,
    /// A cleartext signature's hash algorithm is not named in the `Hash` armor header.
    HashNotInHeader,
}

/// Why a signature could not be checked ([`VerificationStatus::Unverifiable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnverifiableReason {
    /// No given certificate has the key that made it.
    NoMatchingCert,
    /// The signature or key algorithm is not implemented.
    UnsupportedAlgorithm,
    /// The hash algorithm is not implemented.
    UnsupportedHash,
    /// The signature packet version is not 6.
    UnsupportedVersion,
    /// The signature has a critical subpacket this crate does not know.
    UnknownCriticalSubpacket,
    /// The signature packet does not parse.
    Malformed,
    /// The signature is not over a document (binary or text).
    NotDocumentSignature,
    /// The message carries more signatures than are hashed over its data.
    TooManySignatures,
    /// No certificates were given to verify with (decryption without
    /// [`Decryptor::verify_with`](crate::Decryptor::verify_with)).
    NotRequested,
}

impl fmt::Display for VerificationStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Good => f.write_str("good"),
            Self::Bad(why) => write!(f, "bad: {why}"),
            Self::Unverifiable(why) => write!(f, "not verifiable: {why}"),
        }
    }
}

impl fmt::Display for BadReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid => f.write_str("does not verify"),
            Self::NoCreationTime => f.write_str("no signature creation time"),
            Self::BeforeNotBefore => f.write_str("made before the not-before time"),
            Self::AfterNotAfter => f.write_str("made after the not-after time"),
            Self::Expired => f.write_str("signature expired"),
            Self::SigningKey(p) => write!(f, "signing key not valid at the signature creation time: {p}"),
            Self::OnePassMismatch => f.write_str("signature does not match its one-pass signature"),
            Self::HashNotInHeader => f.write_str("hash algorithm not named in the Hash header"),
        }
    }
}

impl fmt::Display for UnverifiableReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NoMatchingCert => "no matching certificate",
            Self::UnsupportedAlgorithm => "unsupported algorithm",
            Self::UnsupportedHash => "unsupported hash algorithm",
            Self::UnsupportedVersion => "unsupported signature version",
            Self::UnknownCriticalSubpacket => "unknown critical subpacket",
            Self::Malformed => "malformed signature packet",
            Self::NotDocumentSignature => "not a document signature",
            Self::TooManySignatures => "more signatures on the message than are hashed (16)",
            Self::NotRequested => "not verified: no certificates given",
        })
    }
}

/// The result of checking one signature.
#[derive(Clone, PartialEq, Eq)]
pub struct Verification {
    status: VerificationStatus,
    signing_key: Option<Fingerprint>,
    signer: Option<Arc<Cert>>,
    mode: Option<SignatureMode>,
    creation_time: Option<SystemTime>,
}

impl fmt::Debug for Verification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Verification")
            .field("status", &self.status)
            .field("signing_key", &self.signing_key)
            .field("cert", &self.cert())
            .field("mode", &self.mode)
            .field("creation_time", &self.creation_time)
            .finish()
    }
}

impl Verification {
    fn unverifiable(reason: UnverifiableReason) -> Self {
        Self {
            status: VerificationStatus::Unverifiable(reason),
            signing_key: None,
            signer: None,
            mode: None,
            creation_time: None,
        }
    }

    /// A signature found but not checked: its issuer, mode and creation time as it states them.
    fn not_requested(sig: &SignaturePacket) -> Self {
        Self {
            status: VerificationStatus::Unverifiable(UnverifiableReason::NotRequested),
            signing_key: issuer_of(sig),
            signer: None,
            mode: mode_of(sig),
            creation_time: sig.creation_time().map(from_timestamp),
        }
    }

    /// A v4 signature, which is read but never verified: unverifiable for its version, with
    /// the mode and creation time it states.
    fn v4(sig: &SignatureV4) -> Self {
        Self {
            status: VerificationStatus::Unverifiable(UnverifiableReason::UnsupportedVersion),
            signing_key: None,
            signer: None,
            mode: SignatureMode::from_signature_type(sig.sig_type),
            creation_time: sig.creation_time.map(from_timestamp),
        }
    }

    /// The verdict.
    #[must_use]
    pub fn status(&self) -> VerificationStatus {
        self.status
    }

    /// True if the signature is good.
    #[must_use]
    pub fn is_good(&self) -> bool {
        self.status == VerificationStatus::Good
    }

    /// The fingerprint of the key that made the signature: the matching key if one was found,
    /// else the issuer fingerprint the signature names.
    #[must_use]
    pub fn signing_key(&self) -> Option<Fingerprint> {
        self.signing_key
    }

    /// The primary fingerprint of the certificate holding the signing key, if it was found.
    #[must_use]
    pub fn cert(&self) -> Option<Fingerprint> {
        self.signer.as_ref().map(|c| c.fingerprint())
    }

    /// The certificate holding the signing key, as it was given to the verifier (or returned
    /// by its [`KeyStore`]), if it was found. For a signature that is not good this is the
    /// certificate whose key was checked against it.
    #[must_use]
    pub fn signer(&self) -> Option<&Arc<Cert>> {
        self.signer.as_ref()
    }

    /// Is this a good signature by a key of `cert` (the same primary key)? The question a
    /// caller who trusts `cert` asks: a good signature by some other certificate it also gave
    /// the verifier says nothing about `cert`.
    #[must_use]
    pub fn is_signed_by(&self, cert: &Cert) -> bool {
        self.is_good() && self.signer.as_ref().is_some_and(|s| s.fingerprint() == cert.fingerprint())
    }

    /// Binary or text, for a document signature; `None` for another signature type.
    #[must_use]
    pub fn mode(&self) -> Option<SignatureMode> {
        self.mode
    }

    /// The signature's creation time, if it has one.
    #[must_use]
    pub fn creation_time(&self) -> Option<SystemTime> {
        self.creation_time
    }
}

/// Builds signature verifications against a set of certificates.
///
/// Defaults: no not-before bound; the not-after bound and the evaluation time ("now", used for
/// signature expiration) are the current time.
#[derive(Debug, Clone)]
#[must_use]
pub struct Verifier {
    certs: Vec<Arc<Cert>>,
    store: Option<SharedStore>,
    not_before: Option<u32>,
    not_after: Option<u32>,
    at: Option<u32>,
    limits: Limits,
}

impl Verifier {
    /// A verifier trusting the signing keys of every certificate in `certs`: owned
    /// certificates, `Arc`s, or references (which are copied).
    pub fn new<C: Into<Arc<Cert>>>(certs: impl IntoIterator<Item = C>) -> Self {
        Self {
            certs: certs.into_iter().map(Into::into).collect(),
            store: None,
            not_before: None,
            not_after: None,
            at: None,
            limits: Limits::default(),
        }
    }

    /// Trusts the signing keys of `certs` too.
    pub(crate) fn add_certs<C: Into<Arc<Cert>>>(&mut self, certs: impl IntoIterator<Item = C>) {
        self.certs.extend(certs.into_iter().map(Into::into));
    }

    /// Looks up the certificates of the signers the signatures name in `store` (see
    /// [`KeyStore`]), besides the certificates given.
    pub fn key_store(mut self, store: impl KeyStore + 'static) -> Self {
        self.store = Some(SharedStore::new(store));
        self
    }

    /// Adds the certificates `store` has for `issuers`.
    ///
    /// # Errors
    /// The store's, as [`Error::KeyStore`].
    fn look_up(&mut self, issuers: &[Fingerprint]) -> Result<()> {
        if let Some(store) = &self.store
            && !issuers.is_empty()
        {
            let found = store.certs(issuers)?;
            self.certs.extend(found);
        }
        Ok(())
    }

    /// Signatures made before `t` are not acceptable.
    pub fn not_before(mut self, t: SystemTime) -> Self {
        self.not_before = Some(to_timestamp(t));
        self
    }

    /// Signatures made after `t` are not acceptable (default: the evaluation time).
    pub fn not_after(mut self, t: SystemTime) -> Self {
        self.not_after = Some(to_timestamp(t));
        self
    }

    /// The evaluation time (default: now): signatures expired at `t` are not acceptable.
    pub fn at(mut self, t: SystemTime) -> Self {
        self.at = Some(to_timestamp(t));
        self
    }

    /// Resource limits for parsing signatures and messages.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    fn now(&self) -> u32 {
        self.at.unwrap_or_else(|| to_timestamp(SystemTime::now()))
    }

    /// A sink that verifies detached `signatures` (binary or armored Signature packets) over
    /// what is written to it; [`DetachedVerifier::finish`] gives one [`Verification`] per
    /// signature.
    ///
    /// # Errors
    /// `Malformed`/`Truncated` if the signature packets cannot be framed (a packet that frames
    /// but does not parse is reported as unverifiable instead), or if they hold no signature or
    /// another packet type; `LimitExceeded(Signatures)` for too many.
    pub fn detached(self, signatures: &[u8]) -> Result<DetachedVerifier> {
        let mut bytes = Vec::new();
        let _ = ArmorReader::with_limits(signatures, &self.limits)
            .read_to_end(&mut bytes)
            .map_err(Error::from_io)?;
        let mut r = &bytes[..];
        let mut items = Vec::new();
        while let Some(raw) = read_raw_packet(&mut r, &self.limits)? {
            match raw.tag {
                Tag::Signature => {}
                tag if tag.is_ignored_in_messages() => continue,
                _ => return Err(Error::malformed("detached signatures: not a signature packet")),
            }
            if items.len() >= self.limits.max_signatures() {
                return Err(Error::LimitExceeded(Limit::Signatures));
            }
            items.push(Pending::from_body(&raw.body, &self.limits)?);
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
        Ok(DetachedVerifier { verifier, items, pipe: None })
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

    /// Checks one signature over the finished hash.
    fn check(&self, sig: &SignaturePacket, hasher: DataHasher) -> Verification {
        let mode = mode_of(sig);
        let issuer = issuer_of(sig);
        let created = sig.creation_time();
        let mut v = Verification {
            status: VerificationStatus::Unverifiable(UnverifiableReason::NoMatchingCert),
            signing_key: issuer,
            signer: None,
            mode,
            creation_time: created.map(from_timestamp),
        };
        let digest = finish_hash(hasher.into_hasher(), sig);
        let bad = |mut v: Verification, status| {
            v.status = status;
            v
        };
        if sig.has_unknown_critical() {
            return bad(v, VerificationStatus::Unverifiable(UnverifiableReason::UnknownCriticalSubpacket));
        }
        let Some(created) = created else {
            return bad(v, VerificationStatus::Bad(BadReason::NoCreationTime));
        };
        let now = self.now();
        if self.not_before.is_some_and(|nb| created < nb) {
            return bad(v, VerificationStatus::Bad(BadReason::BeforeNotBefore));
        }
        if created > self.not_after.unwrap_or(now) {
            return bad(v, VerificationStatus::Bad(BadReason::AfterNotAfter));
        }
        if let Some(exp) = sig.signature_expiration().filter(|&e| e != 0)
            && u64::from(now) >= u64::from(created).saturating_add(u64::from(exp))
        {
            return bad(v, VerificationStatus::Bad(BadReason::Expired));
        }
        // Every key of every certificate the issuer fingerprint names (or all, without one).
        for cert in &self.certs {
            for (fingerprint, key) in cert.key_packets() {
                if issuer.is_some_and(|i| i != fingerprint) {
                    continue;
                }
                let status = match verify_digest(key, sig, &digest) {
                    Ok(()) => {
                        let valid =
                            cert.key_at(&fingerprint, created).is_some_and(|k| k.flags & flags::SIGN != 0);
                        if valid {
                            VerificationStatus::Good
                        } else {
                            let problem = cert.key_problem(&fingerprint, created, flags::SIGN);
                            VerificationStatus::Bad(BadReason::SigningKey(problem))
                        }
                    }
                    Err(Error::Unsupported(_)) => {
                        VerificationStatus::Unverifiable(UnverifiableReason::UnsupportedAlgorithm)
                    }
                    Err(_) => VerificationStatus::Bad(BadReason::Invalid),
                };
                // Keep the most favourable outcome: good, then bad, then unverifiable.
                let better = match (status, v.status) {
                    (_, VerificationStatus::Good) => false,
                    (VerificationStatus::Good, _) => true,
                    (VerificationStatus::Bad(_), VerificationStatus::Unverifiable(_)) => true,
                    _ => v.signer.is_none(),
                };
                if better {
                    v.status = status;
                    v.signing_key = Some(fingerprint);
                    v.signer = Some(Arc::clone(cert));
                }
            }
        }
        v
    }
}

/// The issuer fingerprint a signature names, if it names a v6 one.
fn issuer_of(sig: &SignaturePacket) -> Option<Fingerprint> {
    sig.issuer_fingerprint().and_then(|f| <[u8; 32]>::try_from(f).ok()).map(Fingerprint::from_bytes)
}

/// The verdict on a signature packet of another version than 6: a v4 signature is read (and
/// reported as [`Verification::v4`]), any other is unverifiable for its version.
fn other_version(body: &[u8], limits: &Limits) -> Verification {
    match SignatureV4::parse(body, limits.max_subpackets()) {
        Ok(sig) => Verification::v4(&sig),
        Err(Error::Unsupported(Unsupported::PacketVersion { .. })) => {
            Verification::unverifiable(UnverifiableReason::UnsupportedVersion)
        }
        Err(_) => Verification::unverifiable(UnverifiableReason::Malformed),
    }
}

/// Binary or text, as the signature type says (binary for a type that is neither).
fn mode_of(sig: &SignaturePacket) -> Option<SignatureMode> {
    SignatureMode::from_signature_type(sig.sig_type)
}

/// One signature awaiting the end of the data.
#[derive(Debug)]
enum Pending {
    Hashing(Box<SignaturePacket>, DataHasher),
    Done(Verification),
}

impl Pending {
    /// Parses a Signature packet body and starts its hash. A signature that does not parse is
    /// a verdict, not an error; one over the limits is an error, as for any other packet.
    ///
    /// # Errors
    /// `LimitExceeded` (too many subpackets).
    fn from_body(body: &[u8], limits: &Limits) -> Result<Self> {
        Ok(match SignaturePacket::parse_with_limits(body, limits) {
            Ok(sig) => Self::start(sig),
            Err(e @ Error::LimitExceeded(_)) => return Err(e),
            Err(Error::Unsupported(Unsupported::PacketVersion { .. })) => {
                Self::Done(other_version(body, limits))
            }
            Err(_) => Self::Done(Verification::unverifiable(UnverifiableReason::Malformed)),
        })
    }

    fn start(sig: SignaturePacket) -> Self {
        let Some(mode) = SignatureMode::from_signature_type(sig.sig_type) else {
            return Self::Done(Verification::unverifiable(UnverifiableReason::NotDocumentSignature));
        };
        match DataHasher::new(sig.hash_algorithm, &sig.salt, mode) {
            Ok(h) => Self::Hashing(Box::new(sig), h),
            Err(_) => Self::Done(Verification::unverifiable(UnverifiableReason::UnsupportedHash)),
        }
    }

    fn update(&mut self, data: &[u8]) {
        if let Self::Hashing(_, h) = self {
            h.update(data);
        }
    }

    fn finish(self, verifier: &Verifier) -> Verification {
        match self {
            Self::Hashing(sig, h) => verifier.check(&sig, h),
            Self::Done(v) => v,
        }
    }
}

/// A sink that verifies detached signatures over what is written to it (see
/// [`Verifier::detached`]).
#[derive(Debug)]
#[must_use = "call finish() to get the verifications"]
pub struct DetachedVerifier {
    verifier: Verifier,
    items: Vec<Pending>,
    /// From the first write on: the running hashes, moved out of `items` (see
    /// [`hash_slots`]) until they are needed there again.
    pipe: Option<HashPipe>,
}

impl DetachedVerifier {
    /// Marks every signature whose hash algorithm is not in `named` as bad: a cleartext
    /// message's `Hash` header must not name other algorithms than its signatures use
    /// (RFC 9580 §7.1), since a reader may show the header to the user.
    pub(crate) fn require_hashes(&mut self, named: &[HashAlgorithm]) {
        self.take_back_hashes();
        for item in &mut self.items {
            if let Pending::Hashing(sig, _) = item
                && !named.contains(&sig.hash_algorithm)
            {
                *item = Pending::Done(Verification {
                    status: VerificationStatus::Bad(BadReason::HashNotInHeader),
                    signing_key: None,
                    signer: None,
                    mode: None,
                    creation_time: None,
                });
            }
        }
    }

    /// One [`Verification`] per signature, in order.
    pub fn finish(mut self) -> Vec<Verification> {
        self.take_back_hashes();
        let verifier = self.verifier;
        self.items.into_iter().map(|p| p.finish(&verifier)).collect()
    }

    /// Puts the running hashes back into `items`. If the hashing thread was lost (it cannot
    /// be, short of a panic), the hashes it held could not be computed: those signatures are
    /// unverifiable, never good.
    fn take_back_hashes(&mut self) {
        let Some(pipe) = self.pipe.take() else { return };
        match pipe.finish() {
            Ok(hashers) => {
                for (slot, hasher) in hash_slots(&mut self.items, &mut []).zip(hashers) {
                    *slot = hasher;
                }
            }
            Err(_) => {
                for item in &mut self.items {
                    if let Pending::Hashing(..) = item {
                        *item =
                            Pending::Done(Verification::unverifiable(UnverifiableReason::UnsupportedHash));
                    }
                }
            }
        }
    }
}

impl Write for DetachedVerifier {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.pipe.is_none() {
            self.pipe = into_pipe(hash_slots(&mut self.items, &mut []));
        }
        if let Some(pipe) = &mut self.pipe {
            pipe.update(data)?;
            return Ok(data.len());
        }
        for p in &mut self.items {
            p.update(data);
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The signature packets around one Literal Data packet (RFC 9580 §10.3) and the running
/// hashes of the literal data: shared by [`InlineVerifyReader`] and the decryption stream, which
/// frame the literal data differently but check its signatures the same way.
pub(crate) struct InlineSignatures {
    /// Whether the data is hashed (false: the structure is checked, nothing is verified).
    hashing: bool,
    /// Signatures placed before the data.
    prefixed: Vec<Pending>,
    /// One-Pass Signatures, in order, with the hash each one started (or why it could not).
    one_pass: Vec<(OnePass, OpsHash)>,
    /// Every Signature packet, header included, in the order found.
    signature_packets: Vec<u8>,
    /// From the first literal data on: the running hashes, moved out of `prefixed` and
    /// `one_pass` (see [`hash_slots`]) until `read_suffix` puts them back.
    pipe: Option<HashPipe>,
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

/// The packet type of the header at the start of `r`, without consuming it.
pub(crate) fn peek_tag(r: &mut impl BufRead) -> Result<Option<Tag>> {
    loop {
        match r.fill_buf() {
            Ok(buf) => {
                return Ok(buf
                    .first()
                    .map(|&b| if b & 0x40 != 0 { Tag::from(b & 0x3f) } else { Tag::Other(0) }));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::from_io(e)),
        }
    }
}

impl<R: BufRead> Container for ArmorReader<R> {
    /// An inline-signed message ends where its input does: the trailing signatures were read
    /// to the end.
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Most signatures of one inline-signed message whose hashes run over its literal data: each
/// hashes all of it again, so a message with many (up to `Limits::max_signatures`) One-Pass
/// Signatures would multiply the cost of reading it. Those beyond are reported as unverifiable.
const MAX_HASHED_SIGNATURES: usize = 16;

/// The verdict on a signature whose hash was not started.
fn not_hashed(hashing: bool) -> Verification {
    Verification::unverifiable(if hashing {
        UnverifiableReason::TooManySignatures
    } else {
        UnverifiableReason::NotRequested
    })
}

/// Appends a signature packet to the kept signature packets, whose total size is bounded by
/// the packet length limit (a message's signatures are small; a flood of large ones is not).
fn serialize(raw: &RawPacket, out: &mut Vec<u8>, limits: &Limits) -> Result<()> {
    let total = out.len().saturating_add(raw.body.len());
    if total > limits.max_packet_len() {
        return Err(Error::LimitExceeded(Limit::Signatures));
    }
    crate::packet::header::Header::fixed(raw.tag, raw.body.len())?.write_to(out)?;
    out.extend_from_slice(&raw.body);
    Ok(())
}

impl InlineSignatures {
    /// Reads the packets before the literal data (signatures, then One-Pass Signatures;
    /// padding and marker packets are skipped) and starts their hashes if `hashing`. `source`
    /// is left at the Literal Data packet.
    ///
    /// # Errors
    /// `Truncated` if the input ends before the literal data; `Unsupported(CompressedData)`;
    /// `Malformed` for another packet, or a signature between One-Pass Signatures;
    /// `LimitExceeded(Signatures)`; framing and I/O errors.
    /// The signing keys the signatures before the literal data name (One-Pass Signatures and
    /// prefixed signatures that parse), in order.
    pub(crate) fn issuers(&self) -> Vec<Fingerprint> {
        let prefixed = self.prefixed.iter().filter_map(|p| match p {
            Pending::Hashing(sig, _) => issuer_of(sig),
            Pending::Done(v) => v.signing_key,
        });
        let announced = self.one_pass.iter().filter_map(|(ops, _)| match ops {
            OnePass::V6(ops) => Some(Fingerprint::from_bytes(ops.fingerprint)),
            OnePass::V3(_) => None,
        });
        prefixed.chain(announced).collect()
    }

    pub(crate) fn read_prefix(source: &mut impl BufRead, limits: &Limits, hashing: bool) -> Result<Self> {
        let mut this = Self {
            hashing,
            prefixed: Vec::new(),
            one_pass: Vec::new(),
            signature_packets: Vec::new(),
            pipe: None,
        };
        // Hashes started so far: each one hashes all of the literal data again.
        let mut hashers = 0usize;
        let mut may_hash = || {
            let ok = hashing && hashers < MAX_HASHED_SIGNATURES;
            hashers = hashers.saturating_add(usize::from(ok));
            ok
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
                    this.prefixed.push(if may_hash() {
                        Pending::from_body(&raw.body, limits)?
                    } else {
                        Pending::Done(not_hashed(hashing))
                    });
                }
                Tag::OnePassSignature => {
                    let ops = OnePass::parse(&raw.body)?;
                    let hasher = match &ops {
                        OnePass::V6(v6) if may_hash() => start_for(v6),
                        OnePass::V6(_) => Err(not_hashed(hashing)),
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
    pub(crate) fn update(&mut self, data: &[u8]) {
        if !self.hashing {
            return;
        }
        if self.pipe.is_none() {
            self.pipe = into_pipe(hash_slots(&mut self.prefixed, &mut self.one_pass));
        }
        if let Some(pipe) = &mut self.pipe {
            // A lost hashing thread is reported by `read_suffix`.
            let _ = pipe.update(data);
            return;
        }
        for p in &mut self.prefixed {
            p.update(data);
        }
        for (_, h) in &mut self.one_pass {
            if let Ok(h) = h {
                h.update(data);
            }
        }
    }

    /// Every Signature packet read so far (header included, binary), in the order found.
    pub(crate) fn signature_packets(&self) -> &[u8] {
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
    pub(crate) fn read_suffix(
        &mut self,
        source: &mut impl BufRead,
        limits: &Limits,
        verifier: Option<&Verifier>,
    ) -> Result<Vec<Verification>> {
        if let Some(pipe) = self.pipe.take() {
            let hashers = pipe.finish()?;
            for (slot, hasher) in hash_slots(&mut self.prefixed, &mut self.one_pass).zip(hashers) {
                *slot = hasher;
            }
        }
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
        let mut results: Vec<Verification> = prefixed.into_iter().map(|p| p.finish(verifier)).collect();
        // The first trailing signature belongs to the last One-Pass Signature (§10.3).
        let pairs = one_pass.into_iter().rev().zip(trailing);
        let mut announced: Vec<Verification> = pairs
            .map(|((ops, hasher), (body, sig))| match ops {
                OnePass::V6(ops) => match (sig, hasher) {
                    (Ok(sig), Ok(h)) if matches_ops(&ops, &sig) => verifier.check(&sig, h),
                    (Ok(_), Ok(_)) => one_pass_mismatch(),
                    (Ok(_), Err(v)) => v,
                    (Err(Error::Unsupported(Unsupported::PacketVersion { .. })), _) => {
                        other_version(&body, limits)
                    }
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
        let limits = verifier.limits;
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

/// The hash a One-Pass Signature started, or the verdict if it cannot be started.
type OpsHash = std::result::Result<DataHasher, Verification>;

/// The running hashes of `prefixed` and `one_pass`, always in this order.
fn hash_slots<'x>(
    prefixed: &'x mut [Pending],
    one_pass: &'x mut [(OnePass, OpsHash)],
) -> impl Iterator<Item = &'x mut DataHasher> {
    let prefixed = prefixed.iter_mut().filter_map(|p| match p {
        Pending::Hashing(_, h) => Some(h),
        Pending::Done(_) => None,
    });
    prefixed.chain(one_pass.iter_mut().filter_map(|(_, h)| h.as_mut().ok()))
}

/// Moves the hashes of `slots` into a [`HashPipe`], leaving an empty hash in each slot until
/// they are put back.
fn into_pipe<'x>(slots: impl Iterator<Item = &'x mut DataHasher>) -> Option<HashPipe> {
    let empty = DataHasher::new(HashAlgorithm::Sha256, &[], SignatureMode::Binary).ok()?;
    Some(HashPipe::new(slots.map(|slot| std::mem::replace(slot, empty.clone())).collect()))
}

/// Starts the hash a One-Pass Signature announces.
fn start_for(ops: &OnePassSignature) -> OpsHash {
    let mode = SignatureMode::from_signature_type(ops.sig_type)
        .ok_or_else(|| Verification::unverifiable(UnverifiableReason::NotDocumentSignature))?;
    DataHasher::new(ops.hash_algorithm, &ops.salt, mode)
        .map_err(|_| Verification::unverifiable(UnverifiableReason::UnsupportedHash))
}

/// The verdict on a signature that differs from what its One-Pass Signature announced.
fn one_pass_mismatch() -> Verification {
    Verification {
        status: VerificationStatus::Bad(BadReason::OnePassMismatch),
        ..Verification::unverifiable(UnverifiableReason::Malformed)
    }
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

/// A v6 signature must repeat what its One-Pass Signature announced (RFC 9580 §5.4).
fn matches_ops(ops: &OnePassSignature, sig: &SignaturePacket) -> bool {
    ops.sig_type == sig.sig_type
        && ops.hash_algorithm == sig.hash_algorithm
        && ops.pk_algorithm == sig.pk_algorithm
        && ops.salt == sig.salt
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
    use std::io::Write;

    use super::*;
    use crate::crypto::rng::Rng;
    use crate::key::{KeyBuilder, Profile, Signed, Tsk, make_over};
    use crate::message::sign::Signer;
    use crate::packet::key::{SecretKeyData, SecretKeyMaterial};
    use crate::packet::signature::SignatureType;
    use crate::packet::subpacket::SubpacketData;
    use crate::packet::{Packet, Serialize};
    use crate::signature::{base_subpackets, critical, make, sub};

    const T0: u32 = 1_750_000_000;

    fn key() -> Tsk {
        KeyBuilder::new(Profile::Rfc9580)
            .user_id("Test <test@example.org>")
            .creation_time(from_timestamp(T0))
            .generate()
            .unwrap()
    }

    fn primary_secret(tsk: &Tsk) -> &SecretKeyMaterial {
        match &tsk.secrets.primary {
            SecretKeyData::Plain(m) => m,
            SecretKeyData::Encrypted(_) => panic!("locked"),
        }
    }

    fn sign_at(tsk: &Tsk, t: u32) -> Vec<u8> {
        let mut w = Signer::new().key(tsk).creation_time(from_timestamp(t)).detached().unwrap();
        w.write_all(b"data").unwrap();
        w.finish().unwrap()
    }

    fn status(cert: &Cert, sigs: &[u8], now: u32) -> VerificationStatus {
        let certs = [cert.clone()];
        let r = Verifier::new(&certs).at(from_timestamp(now)).verify_detached(sigs, &b"data"[..]).unwrap();
        r[0].status()
    }

    /// A key revocation of `tsk`'s primary key at `created` with reason `code`.
    fn revoke(tsk: &mut Tsk, created: u32, code: u8) {
        let primary = tsk.cert.primary.clone();
        let rev = make_over(
            &primary,
            primary_secret(tsk),
            SignatureType::KeyRevocation,
            vec![
                critical(SubpacketData::SignatureCreationTime(created)),
                sub(SubpacketData::ReasonForRevocation { code, reason: b"test".to_vec() }),
            ],
            Signed::Key(&primary),
            &mut Rng::os(),
        )
        .unwrap();
        tsk.cert.primary_sigs.push(rev);
    }

    /// Decrypt-and-verify applies the same key checks: a signer whose key was later revoked
    /// (hard) is bad, soft-revoked after the signature is still good.
    /// Past the hash pipe's threshold (a hashing thread on more than one core): detached and
    /// inline signatures inside encryption verify, and a changed octet makes them bad.
    #[test]
    fn large_data_is_hashed_alike_on_the_pipe() {
        use std::io::Read;

        use crate::message::{Decryptor, Encryptor};
        let (signer, rcpt) = (key(), key());
        let certs = [signer.to_cert()];
        let rcpt_cert = rcpt.to_cert();
        let data: Vec<u8> = (0..(6usize << 20) + 3).map(|i| u8::try_from(i % 253).unwrap()).collect();
        let mut altered = data.clone();
        altered[5 << 20] ^= 1;

        let mut w = Signer::new().key(&signer).creation_time(from_timestamp(T0)).detached().unwrap();
        for piece in data.chunks(100_000) {
            w.write_all(piece).unwrap();
        }
        let sig = w.finish().unwrap();
        let verify =
            |d: &[u8]| Verifier::new(&certs).at(from_timestamp(T0 + 10)).verify_detached(&sig, d).unwrap();
        assert!(verify(&data)[0].is_good());
        assert!(!verify(&altered)[0].is_good());

        let mut w = Encryptor::new([&rcpt_cert])
            .signer(&signer)
            .at(from_timestamp(T0 + 10))
            .writer(Vec::new())
            .unwrap();
        let _ = w.copy_from(&mut &data[..]).unwrap();
        let msg = w.finish().unwrap();
        let mut r =
            Decryptor::new([&rcpt]).verify_with(&certs).at(from_timestamp(T0 + 20)).reader(&msg[..]).unwrap();
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).unwrap();
        assert!(out == data);
        let v = r.finish().unwrap().verifications;
        assert!(v.len() == 1 && v[0].is_good(), "{v:?}");
    }

    #[test]
    fn sign_encrypt_with_a_revoked_signer() {
        use std::io::Read;

        use crate::message::{Decryptor, Encryptor};
        let carol = key();
        let carol_cert = carol.to_cert();
        for (code, good) in [(0u8, false), (1, true)] {
            let mut signer = key();
            let mut w = Encryptor::new([&carol_cert])
                .signer(&signer)
                .at(from_timestamp(T0 + 10))
                .writer(Vec::new())
                .unwrap();
            w.write_all(b"data").unwrap();
            let msg = w.finish().unwrap();
            revoke(&mut signer, T0 + 100, code);
            let certs = [signer.to_cert()];
            let mut r = Decryptor::new([&carol])
                .verify_with(&certs)
                .at(from_timestamp(T0 + 1000))
                .reader(&msg[..])
                .unwrap();
            let mut out = Vec::new();
            let _ = r.read_to_end(&mut out).unwrap();
            assert_eq!(out, b"data");
            let v = r.finish().unwrap().verifications;
            assert_eq!(v[0].is_good(), good, "code {code}: {v:?}");
            // After the revocation the key cannot sign new messages.
            let e = Encryptor::new([&carol_cert]).signer(&signer).at(from_timestamp(T0 + 200));
            assert!(e.writer(Vec::new()).is_err());
        }
    }

    #[test]
    fn hard_revocation_is_retroactive_soft_is_not() {
        for (code, retroactive) in [(0u8, true), (2, true), (1, false), (3, false)] {
            let mut tsk = key();
            let before = sign_at(&tsk, T0 + 10);
            revoke(&mut tsk, T0 + 100, code);
            let got = status(&tsk.cert, &before, T0 + 1000);
            assert_eq!(got == VerificationStatus::Good, !retroactive, "code {code}: {got:?}");
        }
        // After a soft revocation, new signatures are refused by the signer.
        let mut tsk = key();
        revoke(&mut tsk, T0 + 100, 1);
        assert!(Signer::new().key(&tsk).creation_time(from_timestamp(T0 + 200)).detached().is_err());
    }

    #[test]
    fn signatures_by_keys_that_cannot_sign_or_were_not_yet_valid_are_bad() {
        let tsk = key();
        let cert = &tsk.cert;
        let fingerprint = cert.fingerprint;
        let forge = |secret: &SecretKeyMaterial,
                     key: &crate::packet::key::PublicKeyPacket,
                     fp: Fingerprint,
                     t: u32| {
            let hashed = base_subpackets(fp.as_bytes(), t);
            let sig = make(
                key,
                secret,
                SignatureType::Binary,
                crate::types::HashAlgorithm::Sha512,
                hashed,
                &mut Rng::os(),
                |h| {
                    h.update(b"data");
                },
            )
            .unwrap();
            Packet::Signature(sig).to_vec()
        };
        // Made before the key existed.
        let early = forge(primary_secret(&tsk), &cert.primary, fingerprint, T0 - 10);
        assert!(matches!(status(cert, &early, T0 + 100), VerificationStatus::Bad(_)));
        // The same forgery at a valid time is good (so the check above is the time).
        let ok = forge(primary_secret(&tsk), &cert.primary, fingerprint, T0 + 10);
        assert_eq!(status(cert, &ok, T0 + 100), VerificationStatus::Good);
        // The encryption subkey's secret cannot sign at all; a signature by a key without the
        // signing flag is bad: use the primary key with a cert whose flags say certify-only.
        let mut certify_only = tsk.cert.clone();
        let primary = certify_only.primary.clone();
        let direct = make_over(
            &primary,
            primary_secret(&tsk),
            SignatureType::DirectKey,
            vec![
                critical(SubpacketData::SignatureCreationTime(T0 + 1)),
                sub(SubpacketData::KeyFlags(vec![flags::CERTIFY])),
            ],
            Signed::Key(&primary),
            &mut Rng::os(),
        )
        .unwrap();
        certify_only.primary_sigs.push(direct);
        let later = forge(primary_secret(&tsk), &cert.primary, fingerprint, T0 + 10);
        assert!(matches!(status(&certify_only, &later, T0 + 100), VerificationStatus::Bad(_)));
    }

    #[test]
    fn unknown_critical_subpacket_and_expired_signature() {
        let tsk = key();
        let cert = &tsk.cert;
        let sign_with = |extra: SubpacketData, is_critical: bool| {
            let hashed = vec![
                critical(SubpacketData::SignatureCreationTime(T0 + 10)),
                if is_critical { critical(extra) } else { sub(extra) },
            ];
            let sig = make(
                &cert.primary,
                primary_secret(&tsk),
                SignatureType::Binary,
                crate::types::HashAlgorithm::Sha512,
                hashed,
                &mut Rng::os(),
                |h| {
                    h.update(b"data");
                },
            )
            .unwrap();
            Packet::Signature(sig).to_vec()
        };
        let unknown = sign_with(SubpacketData::Unknown { tag: 100, body: vec![1] }, true);
        assert!(matches!(status(cert, &unknown, T0 + 100), VerificationStatus::Unverifiable(_)));
        let expiring = sign_with(SubpacketData::SignatureExpirationTime(50), true);
        assert_eq!(status(cert, &expiring, T0 + 20), VerificationStatus::Good);
        assert!(matches!(status(cert, &expiring, T0 + 100), VerificationStatus::Bad(_)));
    }
}
