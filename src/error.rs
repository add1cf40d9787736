//! The crate's one error type.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use std::fmt;
use std::io;

use crate::types::Fingerprint;
use crate::types::Recipient;

/// Everything that can go wrong in this crate.
///
/// Variants say what was wrong and where; [`Error::Decrypt`] is opaque on purpose and never says
/// *why* authentication failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input does not follow the OpenPGP grammar.
    #[error("malformed input: {0}")]
    Malformed(Malformed),
    /// The input is well formed but uses something this crate does not implement.
    #[error("unsupported: {0}")]
    Unsupported(Unsupported),
    /// The input ended before a structure was complete.
    #[error("truncated input: {0}")]
    Truncated(&'static str),
    /// Decryption or authentication failed (wrong key, wrong password, or modified ciphertext).
    #[error("decryption failed")]
    Decrypt,
    /// None of the given keys, passwords or session keys can open this message.
    #[error("no key or password given can decrypt this message{}", recipients_text(.recipients))]
    #[non_exhaustive]
    NoDecryptionKey {
        /// Whom the message is for, as its session-key packets name them (as
        /// [`MessageInfo::recipients`](crate::MessageInfo::recipients) lists them), in order;
        /// empty for a message encrypted with passwords only.
        recipients: Vec<Recipient>,
    },
    /// A secret key is locked and no given password unlocks it.
    #[error("secret key {fingerprint} is locked")]
    #[non_exhaustive]
    KeyLocked {
        /// The fingerprint of the locked key (primary key or subkey) that was needed.
        fingerprint: Fingerprint,
    },
    /// No given password opened what it was given for: a locked secret key
    /// ([`Tsk::unlock`](crate::Tsk::unlock)), or a message's password-encrypted session keys
    /// (when no key or session key opened it either).
    #[error("wrong password")]
    BadPassword,
    /// A signature does not verify.
    #[error("bad signature: {0}")]
    BadSignature(&'static str),
    /// A certificate or key cannot be used for the requested operation: which one, and why.
    #[error("{}", unusable_text(.fingerprint, .subkey.as_ref(), *.problem))]
    #[non_exhaustive]
    KeyUnusable {
        /// The primary fingerprint of the certificate (or key) concerned.
        fingerprint: Fingerprint,
        /// The subkey that has the problem, when it is a subkey's and not the whole
        /// certificate's: a certificate whose only encryption subkey is revoked names that
        /// subkey here, with [`KeyProblem::Revoked`], while its primary key is fine.
        subkey: Option<Fingerprint>,
        /// Why it cannot be used.
        problem: KeyProblem,
    },
    /// Input asked for more resources than the [`Limits`](crate::Limits) allow.
    #[error("limit exceeded: {0}")]
    LimitExceeded(Limit),
    /// The caller passed an argument that cannot work.
    #[error("invalid argument: {0}")]
    InvalidArgument(&'static str),
    /// The underlying reader or writer failed. The I/O error is the
    /// [`source`](std::error::Error::source), so an error chain prints its text once.
    #[error("I/O error")]
    Io(#[source] io::Error),
    /// A [`KeyStore`](crate::KeyStore) failed (its own error is the
    /// [`source`](std::error::Error::source)): a keyring that cannot be reached is not a message
    /// without a key.
    #[error("key store failed")]
    KeyStore(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
    /// An internal invariant of this crate did not hold: a bug, not bad input or a bad argument.
    #[error("internal error: {0}")]
    Internal(&'static str),
}

/// The recipients of [`Error::NoDecryptionKey`], as its message lists them.
fn recipients_text(recipients: &[Recipient]) -> String {
    let named: Vec<String> = recipients
        .iter()
        .map(|r| match r {
            Recipient::Fingerprint(fp) => fp.to_string(),
            Recipient::V4Fingerprint(_) => "a v4 key".to_owned(),
            Recipient::Anonymous => "an anonymous recipient".to_owned(),
        })
        .collect();
    if named.is_empty() { String::new() } else { format!(" (encrypted to {})", named.join(", ")) }
}

/// The text of [`Error::KeyUnusable`]: a subkey's problem is not the certificate's.
fn unusable_text(fingerprint: &Fingerprint, subkey: Option<&Fingerprint>, problem: KeyProblem) -> String {
    match subkey {
        Some(sub) => format!("certificate {fingerprint}: subkey {sub} not usable: {problem}"),
        None => format!("key {fingerprint} not usable: {problem}"),
    }
}

/// Why a certificate or key cannot be used (see [`Error::KeyUnusable`]), evaluated at the
/// time of the operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyProblem {
    /// The key was created after the evaluation time.
    NotYetValid,
    /// The certificate (or the key) is revoked.
    Revoked,
    /// The certificate (or the key) is expired.
    Expired,
    /// No self-signature binds the key at that time (none verifies, or all are expired).
    NoValidSelfSignature,
    /// The certificate is valid but has no valid key for encryption (for the purpose asked):
    /// none exists, or every such subkey is revoked or expired, as the reason of the
    /// certificate's subkeys would say (see [`Cert::encryption_keys_at`](crate::Cert::encryption_keys_at)).
    NoEncryptionKey,
    /// The certificate is valid but has no valid key for signing.
    NoSigningKey,
    /// The key is valid but not flagged for what was asked (signing, certifying).
    WrongKeyFlags,
    /// The key's secret material is absent (a stub, or a public subkey in a secret key).
    NoSecret,
    /// The key's algorithm cannot be used for the operation by this crate.
    UnsupportedAlgorithm,
}

impl fmt::Display for KeyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NotYetValid => "created after the evaluation time",
            Self::Revoked => "revoked",
            Self::Expired => "expired",
            Self::NoValidSelfSignature => "no valid self-signature",
            Self::NoEncryptionKey => "no valid encryption-capable key",
            Self::NoSigningKey => "no valid signing-capable key",
            Self::WrongKeyFlags => "key not flagged for this use",
            Self::NoSecret => "no secret key material",
            Self::UnsupportedAlgorithm => "unsupported key algorithm for this use",
        })
    }
}

/// Where input was malformed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed {
    context: &'static str,
    packet_type: Option<u8>,
}

impl Malformed {
    /// A short description of the malformed structure, e.g. `"signature: subpacket length"`.
    #[must_use]
    pub fn context(&self) -> &'static str {
        self.context
    }

    /// The type ID of the packet found where it may not be, when that is what is wrong (a
    /// packet of an unknown critical type, RFC 9580 §4.3, or a known one out of place).
    #[must_use]
    pub fn packet_type(&self) -> Option<u8> {
        self.packet_type
    }
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.context)?;
        match self.packet_type {
            Some(t) => write!(f, " (packet type {t})"),
            None => Ok(()),
        }
    }
}

/// What was found that this crate does not implement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unsupported {
    /// A legacy-format (RFC 4880 "old") packet header.
    LegacyPacketFormat,
    /// A packet version other than the one this crate implements.
    PacketVersion {
        /// Which packet.
        packet: &'static str,
        /// The version octet found.
        version: u8,
    },
    /// A packet type that cannot appear here.
    PacketType(u8),
    /// A public-key algorithm identifier.
    PublicKeyAlgorithm(u8),
    /// A symmetric-key algorithm identifier.
    SymmetricAlgorithm(u8),
    /// An AEAD algorithm identifier.
    AeadAlgorithm(u8),
    /// A hash algorithm identifier (or one too weak for its use).
    HashAlgorithm(u8),
    /// A string-to-key specifier type.
    S2k(u8),
    /// A secret-key protection (S2K usage octet).
    SecretKeyProtection(u8),
    /// Symmetrically Encrypted Integrity Protected Data version 1 (RFC 4880 MDC).
    Seipdv1,
    /// A version 4 Symmetric-Key Encrypted Session Key packet.
    SkeskV4,
    /// A version 3 Public-Key Encrypted Session Key packet.
    PkeskV3,
    /// Compressed data packets.
    CompressedData,
    /// An AEAD Encrypted Data packet (type ID 20), from a draft that RFC 9580 did not adopt.
    AeadEncryptedData,
    /// Anything else, named.
    Feature(&'static str),
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::LegacyPacketFormat => f.write_str("legacy packet format"),
            Self::PacketVersion { packet: "public key", version } => {
                write!(f, "version {version} key (only version 6 keys are supported)")
            }
            Self::PacketVersion { packet, version } => {
                write!(f, "{packet} version {version}")
            }
            Self::PacketType(t) => write!(f, "packet type {t}"),
            Self::PublicKeyAlgorithm(a) => match crate::types::public_key_algorithm_name(*a) {
                Some(name) => write!(f, "public-key algorithm {a} ({name})"),
                None => write!(f, "public-key algorithm {a}"),
            },
            Self::SymmetricAlgorithm(a) => write!(f, "symmetric algorithm {a}"),
            Self::AeadAlgorithm(a) => write!(f, "AEAD algorithm {a}"),
            Self::HashAlgorithm(a) => write!(f, "hash algorithm {a}"),
            Self::S2k(t) => write!(f, "S2K type {t}"),
            Self::SecretKeyProtection(u) => write!(f, "secret key protection (S2K usage {u})"),
            Self::Seipdv1 => f.write_str("SEIPD version 1 (only SEIPDv2 is implemented)"),
            Self::SkeskV4 => f.write_str("SKESK version 4 (only v6 is implemented)"),
            Self::PkeskV3 => f.write_str("PKESK version 3 (only v6 is implemented)"),
            Self::CompressedData => f.write_str("compressed data"),
            Self::AeadEncryptedData => f.write_str(
                "AEAD Encrypted Data packet (type 20, from an abandoned draft; only SEIPDv2 is implemented)",
            ),
            Self::Feature(what) => f.write_str(what),
        }
    }
}

/// The limit from [`Limits`](crate::Limits) that input exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// Argon2 memory.
    Argon2Memory,
    /// Argon2 passes.
    Argon2Passes,
    /// Argon2 parallelism.
    Argon2Parallelism,
    /// Argon2 memory times passes.
    Argon2Work,
    /// Iterated and salted S2K octet count.
    S2kIterations,
    /// Number of password-based key derivations attempted on one message.
    S2kDerivations,
    /// Length of a packet that is read whole.
    PacketLength,
    /// Number of session-key packets tried.
    SessionKeyPackets,
    /// Number of signatures.
    Signatures,
    /// Number of subpackets in a signature.
    Subpackets,
    /// Armor header line length or count.
    ArmorHeaders,
    /// Number of packets in a certificate or key.
    CertPackets,
    /// Octets of one certificate or keyring.
    KeyringLength,
    /// Number of password-based key derivations attempted while unlocking one key.
    UnlockDerivations,
    /// Octets of the signed text of a cleartext-signed message.
    CleartextLength,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Argon2Memory => "Argon2 memory",
            Self::Argon2Passes => "Argon2 passes",
            Self::Argon2Parallelism => "Argon2 parallelism",
            Self::Argon2Work => "Argon2 memory times passes",
            Self::S2kIterations => "S2K iteration count",
            Self::S2kDerivations => "number of password-based key derivations",
            Self::PacketLength => "packet length",
            Self::SessionKeyPackets => "number of session-key packets",
            Self::Signatures => "number of signatures",
            Self::Subpackets => "number of subpackets",
            Self::ArmorHeaders => "armor headers",
            Self::CertPackets => "packets per certificate",
            Self::KeyringLength => "size of a certificate or keyring",
            Self::UnlockDerivations => "number of key derivations to unlock a key",
            Self::CleartextLength => "size of a cleartext-signed text",
        })
    }
}

impl Error {
    /// Malformed input, with a short static description of where.
    pub(crate) const fn malformed(context: &'static str) -> Self {
        Self::Malformed(Malformed { context, packet_type: None })
    }

    /// A packet of type `packet_type` where the grammar allows none of its type; `context` says
    /// where.
    pub(crate) const fn misplaced_packet(context: &'static str, packet_type: u8) -> Self {
        Self::Malformed(Malformed { context, packet_type: Some(packet_type) })
    }

    /// No key opens a message for `recipients`.
    pub(crate) fn no_decryption_key(recipients: Vec<Recipient>) -> Self {
        Self::NoDecryptionKey { recipients }
    }

    /// The secret of the key `fingerprint` is locked.
    pub(crate) const fn key_locked(fingerprint: Fingerprint) -> Self {
        Self::KeyLocked { fingerprint }
    }

    /// The certificate (or key) `fingerprint` cannot be used, for a reason of its own.
    pub(crate) const fn key_unusable(fingerprint: Fingerprint, problem: KeyProblem) -> Self {
        Self::KeyUnusable { fingerprint, subkey: None, problem }
    }

    /// The subkey `subkey` of the certificate `fingerprint` cannot be used.
    pub(crate) const fn subkey_unusable(
        fingerprint: Fingerprint,
        subkey: Fingerprint,
        problem: KeyProblem,
    ) -> Self {
        Self::KeyUnusable { fingerprint, subkey: Some(subkey), problem }
    }

    /// The error a stream returns once an earlier error has poisoned it, where that error was
    /// not kept.
    pub(crate) const fn poisoned() -> Self {
        Self::InvalidArgument("stream used after an error")
    }

    /// The same error again, for a stream that reports its first error on every later call.
    /// An I/O error is rebuilt from its kind and message (`io::Error` cannot be cloned).
    pub(crate) fn replay(&self) -> Self {
        match self {
            Self::Malformed(m) => Self::Malformed(*m),
            Self::Unsupported(u) => Self::Unsupported(*u),
            Self::Truncated(w) => Self::Truncated(w),
            Self::Decrypt => Self::Decrypt,
            Self::NoDecryptionKey { recipients } => Self::NoDecryptionKey { recipients: recipients.clone() },
            Self::KeyLocked { fingerprint } => Self::KeyLocked { fingerprint: *fingerprint },
            Self::BadPassword => Self::BadPassword,
            Self::BadSignature(w) => Self::BadSignature(w),
            Self::KeyUnusable { fingerprint, subkey, problem } => {
                Self::KeyUnusable { fingerprint: *fingerprint, subkey: *subkey, problem: *problem }
            }
            Self::LimitExceeded(l) => Self::LimitExceeded(*l),
            Self::InvalidArgument(w) => Self::InvalidArgument(w),
            Self::Internal(w) => Self::Internal(w),
            // The store's error cannot be cloned: its text is kept.
            Self::KeyStore(e) => Self::KeyStore(e.to_string().into()),
            Self::Io(e) => {
                // A replayed error must not invite a retry loop.
                let kind = match e.kind() {
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock => io::ErrorKind::Other,
                    kind => kind,
                };
                Self::Io(io::Error::new(kind, e.to_string()))
            }
        }
    }

    /// Recovers a crate error carried inside an [`io::Error`] by the streaming adapters.
    #[must_use]
    pub fn from_io(err: io::Error) -> Self {
        if err.get_ref().is_some_and(|e| e.is::<Error>()) {
            match err.into_inner().map(|b| b.downcast::<Error>()) {
                Some(Ok(e)) => *e,
                Some(Err(other)) => Self::Io(io::Error::other(other)),
                None => Self::Io(io::Error::other("unknown I/O error")),
            }
        } else {
            Self::Io(err)
        }
    }
}

/// The first error of a stream, reported again by every later call: the one rule every reader
/// and writer of this crate follows once something failed.
#[derive(Debug, Default)]
pub(crate) struct Poison(Option<Error>);

impl Poison {
    /// `Ok` until an error was kept, then that error again.
    pub(crate) fn check(&self) -> Result<()> {
        match &self.0 {
            Some(first) => Err(first.replay()),
            None => Ok(()),
        }
    }

    /// [`Poison::check`] for `io` methods.
    pub(crate) fn check_io(&self) -> io::Result<()> {
        self.check().map_err(io::Error::from)
    }

    /// Keeps `err` if it is the first, and returns the error to report now.
    pub(crate) fn set(&mut self, err: Error) -> Error {
        match &self.0 {
            Some(first) => first.replay(),
            None => {
                let now = err.replay();
                self.0 = Some(err);
                now
            }
        }
    }

    /// [`Poison::set`] for `io` methods.
    pub(crate) fn set_io(&mut self, err: io::Error) -> io::Error {
        self.set(Error::from_io(err)).into()
    }

    /// `result`, with its error kept if it is the first (and the first reported instead).
    pub(crate) fn guard<T>(&mut self, result: Result<T>) -> Result<T> {
        result.map_err(|e| self.set(e))
    }
}

impl From<io::Error> for Error {
    /// Unwraps a crate error that travelled through an `io::Error` (see [`Error::from_io`]).
    fn from(err: io::Error) -> Self {
        Self::from_io(err)
    }
}

impl From<Error> for io::Error {
    fn from(err: Error) -> Self {
        match err {
            Error::Io(e) => e,
            Error::Truncated(_) => io::Error::new(io::ErrorKind::UnexpectedEof, err),
            other => io::Error::new(io::ErrorKind::InvalidData, other),
        }
    }
}

/// This crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_round_trip_keeps_the_error() {
        let io: io::Error = Error::Decrypt.into();
        assert_eq!(io.kind(), io::ErrorKind::InvalidData);
        assert!(matches!(Error::from_io(io), Error::Decrypt));
        let io: io::Error = Error::Truncated("chunk").into();
        assert_eq!(io.kind(), io::ErrorKind::UnexpectedEof);
        assert!(matches!(Error::from_io(io), Error::Truncated("chunk")));
        let plain = io::Error::new(io::ErrorKind::BrokenPipe, "pipe");
        assert!(matches!(Error::from_io(plain), Error::Io(e) if e.kind() == io::ErrorKind::BrokenPipe));
    }
}
