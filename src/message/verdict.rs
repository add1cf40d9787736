//! Verdicts on signatures ([`Verification`], [`VerificationStatus`] and its reasons). The
//! policy that gives them is [`Verifier`](crate::Verifier)'s (`verifier.rs`).

use std::fmt;
use std::sync::Arc;
use std::time::SystemTime;

use crate::error::{Error, KeyProblem, Unsupported};
use crate::key::{Cert, from_timestamp};
use crate::limits::Limits;
use crate::packet::signature::{SignaturePacket, SignatureV4};
use crate::signature::SignatureMode;
use crate::types::Fingerprint;

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
    /// The message's signatures need more distinct hashes of its data (each a hash algorithm,
    /// salt and mode) than are computed, 16; copies of one signature share one hash.
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
            Self::TooManySignatures => "more distinct signature hashes than are computed (16)",
            Self::NotRequested => "not verified: no certificates given",
        })
    }
}

/// The result of checking one signature.
#[derive(Clone, PartialEq, Eq)]
pub struct Verification {
    pub(super) status: VerificationStatus,
    pub(super) signing_key: Option<Fingerprint>,
    pub(super) signer: Option<Arc<Cert>>,
    pub(super) mode: Option<SignatureMode>,
    pub(super) creation_time: Option<SystemTime>,
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
    pub(super) fn unverifiable(reason: UnverifiableReason) -> Self {
        Self {
            status: VerificationStatus::Unverifiable(reason),
            signing_key: None,
            signer: None,
            mode: None,
            creation_time: None,
        }
    }

    /// A signature found but not checked: its issuer, mode and creation time as it states them.
    pub(super) fn not_requested(sig: &SignaturePacket) -> Self {
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
    pub(super) fn v4(sig: &SignatureV4) -> Self {
        Self {
            status: VerificationStatus::Unverifiable(UnverifiableReason::UnsupportedVersion),
            signing_key: None,
            signer: None,
            mode: SignatureMode::from_signature_type(sig.sig_type),
            creation_time: sig.creation_time.map(from_timestamp),
        }
    }

    /// A signature found bad for `reason` before it was checked, of which nothing else is
    /// reported.
    pub(super) fn bad(reason: BadReason) -> Self {
        Self { status: VerificationStatus::Bad(reason), ..Self::unverifiable(UnverifiableReason::Malformed) }
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
    /// by its [`KeyStore`](crate::KeyStore)), if it was found. For a signature that is not good this is the
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

/// The issuer fingerprint a signature names, if it names a v6 one.
pub(super) fn issuer_of(sig: &SignaturePacket) -> Option<Fingerprint> {
    sig.issuer_fingerprint().and_then(|f| <[u8; 32]>::try_from(f).ok()).map(Fingerprint::from_bytes)
}

/// The verdict on a signature packet of another version than 6: a v4 signature is read (and
/// reported as [`Verification::v4`]), any other is unverifiable for its version.
pub(super) fn other_version(body: &[u8], limits: &Limits) -> Verification {
    match SignatureV4::parse(body, limits.max_subpackets()) {
        Ok(sig) => Verification::v4(&sig),
        Err(Error::Unsupported(Unsupported::PacketVersion { .. })) => {
            Verification::unverifiable(UnverifiableReason::UnsupportedVersion)
        }
        Err(_) => Verification::unverifiable(UnverifiableReason::Malformed),
    }
}

/// Binary or text, as the signature type says (binary for a type that is neither).
pub(super) fn mode_of(sig: &SignaturePacket) -> Option<SignatureMode> {
    SignatureMode::from_signature_type(sig.sig_type)
}
