//! The encryption builder ([`Encryptor`]) and stream ([`EncryptWriter`]).
//!
//! Output (RFC 9580 §10.3): zero or more v6 PKESKs (one per recipient key) and v6 SKESKs (one
//! per password), then one SEIPDv2 packet holding a Literal Data packet and an optional Padding
//! packet. With signers, the Literal Data packet is a One-Pass Signed Message inside the
//! encryption: One-Pass Signatures, the Literal Data packet, the Signatures (sign-then-encrypt,
//! RFC 9580 §10.3), made in the same single pass over the plaintext.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-10.3>

use std::fmt;
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::time::SystemTime;

use zeroize::Zeroizing;

use crate::armor::{ArmorKind, ArmorWriter};
use crate::crypto::rng::Rng;
use crate::crypto::secret::{Curve25519Secret, Password, Secret32, SecretVec, SessionKey};
use crate::crypto::{mlkem_x25519, s2k, x25519};
use crate::error::{Error, KeyProblem, Poison, Result, Unsupported};
use crate::key::{Cert, Profile, Tsk, flags, from_timestamp, to_timestamp};
use crate::limits::Limits;
use crate::message::Sink;
use crate::message::info::DataFormat;
use crate::message::literal::LiteralChunkWriter;
use crate::message::seipd::SeipdWriter;
use crate::message::sign::{InlineSignWriter, Signer};
use crate::message::skesk::encrypt_session_key;
use crate::packet::header::Tag;
use crate::packet::key::{PublicKeyMaterial, PublicKeyPacket};
use crate::packet::literal::LiteralHeader;
use crate::packet::padding::Padding;
use crate::packet::partial::PartialBodyWriter;
use crate::packet::pkesk::{Pkesk, PkeskFields, Recipient};
use crate::packet::s2k::S2k;
use crate::packet::{PacketBody, Serialize};
use crate::pipeline::{self as parallel, BufferPool};
use crate::signature::SignatureMode;
use crate::types::Fingerprint;
use crate::types::{AeadAlgorithm, PublicKeyAlgorithm, SymmetricAlgorithm};

/// The default chunk size: 256 KiB (chunk size octet 12).
pub(crate) const DEFAULT_CHUNK_SIZE: usize = 1 << 18;
/// The smallest chunk size (octet 0).
const MIN_CHUNK_SIZE: usize = 1 << 6;
/// The largest chunk size (octet 16, RFC 9580 §5.13.2).
const MAX_CHUNK_SIZE: usize = 1 << 22;
/// The largest padding this writer adds; readers bound whole-read packets by
/// [`Limits::max_packet_len`], 1 MiB by default.
const MAX_PADDING: usize = 1 << 16;
/// Argon2 parameters for SKESKs: RFC 9580 §3.7.1.4's second recommended option (t = 3, p = 4,
/// 2^16 KiB = 64 MiB).
const SKESK_ARGON2: (u8, u8, u8) = (3, 4, 16);

/// Which encryption-capable keys of a certificate to encrypt to, by key flag
/// (RFC 9580 §5.2.3.29).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Purpose {
    /// Keys flagged for encrypting storage (0x08).
    Storage,
    /// Keys flagged for encrypting communications (0x04).
    Communications,
    /// Keys with either flag (the default).
    #[default]
    Any,
}

impl Purpose {
    fn flags(self) -> u8 {
        match self {
            Self::Storage => flags::ENCRYPT_STORAGE,
            Self::Communications => flags::ENCRYPT_COMMUNICATIONS,
            Self::Any => flags::ENCRYPT_STORAGE | flags::ENCRYPT_COMMUNICATIONS,
        }
    }
}

/// Builds an encrypted message: choose recipients and passwords, then call
/// [`writer`](Encryptor::writer).
///
/// Defaults: binary output (no armor), every valid encryption-capable key of each recipient
/// at the current time, 256 KiB chunks, a binary literal packet with no file name and date 0,
/// no padding, the operating system's RNG.
///
/// The cipher and AEAD mode are the first pair in the first recipient's Preferred AEAD
/// Ciphersuites that every recipient lists (AES-128-OCB is implicitly listed by all), among
/// AES-128/AES-256 × OCB/GCM; AES-256 is required when every recipient key is
/// ML-KEM-768+X25519, when [`profile`](Encryptor::profile) asks for a post-quantum profile, and
/// for password-only messages.
///
/// ```
/// # fn main() -> sixpgp::Result<()> {
/// use std::io::{Read, Write};
/// use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};
///
/// let tsk = KeyBuilder::new(Profile::Rfc9580).user_id("Alice <alice@example.org>").generate()?;
/// let cert = tsk.to_cert();
/// let mut w = Encryptor::new([&cert]).armor(true).writer(Vec::new())?;
/// w.write_all(b"Hello, world!")?;
/// let ciphertext = w.finish()?;
///
/// let mut r = Decryptor::new([&tsk]).reader(&ciphertext[..])?;
/// let mut plaintext = Vec::new();
/// r.read_to_end(&mut plaintext)?;
/// assert_eq!(plaintext, b"Hello, world!");
/// # Ok(()) }
/// ```
pub struct Encryptor {
    recipients: Vec<Arc<Cert>>,
    prepared: Vec<Arc<Recipients>>,
    signers: Vec<Arc<Tsk>>,
    passwords: Vec<Password>,
    armor: bool,
    purpose: Purpose,
    time: Option<SystemTime>,
    chunk_size: usize,
    literal: LiteralHeader,
    padding: Option<usize>,
    hidden: bool,
    rng: Option<Rng>,
    profile: Option<Profile>,
    suite: Option<(SymmetricAlgorithm, AeadAlgorithm)>,
    threads: Option<usize>,
    pool: Option<BufferPool>,
}

impl fmt::Debug for Encryptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encryptor")
            .field("recipients", &self.recipients.iter().map(|c| c.fingerprint()).collect::<Vec<_>>())
            .field("prepared", &self.prepared.len())
            .field("signers", &self.signers.iter().map(|k| k.fingerprint()).collect::<Vec<_>>())
            .field("passwords", &self.passwords.len())
            .field("armor", &self.armor)
            .field("purpose", &self.purpose)
            .field("chunk_size", &self.chunk_size)
            .field("hidden", &self.hidden)
            .field("profile", &self.profile)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

impl Default for Encryptor {
    fn default() -> Self {
        Self::new(Vec::<Cert>::new())
    }
}

/// One recipient key chosen for a PKESK.
struct RecipientKey {
    /// Whether the key is ML-KEM-768+X25519 (post-quantum).
    pqc: bool,
    /// Its PKESK but for the wrapped session key.
    agreed: Agreed,
}

/// What one recipient certificate contributes: its keys and its AEAD ciphersuite preferences.
struct RecipientPlan {
    keys: Vec<RecipientKey>,
    /// The Preferred AEAD Ciphersuites of the primary key's binding, in order.
    preferences: Vec<(SymmetricAlgorithm, AeadAlgorithm)>,
}

/// Below this many recipient certificates, they are evaluated and their key agreements done on
/// the calling thread only: starting a thread costs about as much as a few recipients. (The
/// work is spread by certificate: the keys of one certificate stay on one thread.)
const PARALLEL_RECIPIENTS: usize = 8;

/// The random octets drawn for each key a PKESK could go to: an X25519 ephemeral secret, then
/// (used by ML-KEM-768+X25519 only) the randomness m of ML-KEM.Encaps.
type KeyRandomness = [[u8; 32]; 2];

/// A recipient key whose key agreement (the costly part) is done: everything of its PKESK but
/// the wrapped session key, and the KEK to wrap it with.
enum Agreed {
    X25519 { recipient: Recipient, ephemeral: [u8; 32], kek: Zeroizing<[u8; x25519::KEK_LEN]> },
    MlKem768X25519 { recipient: Recipient, encapsulated: mlkem_x25519::Encapsulated },
}

impl Agreed {
    /// The key agreement with `material` (X25519 or ML-KEM-768+X25519) from the randomness
    /// drawn for this key.
    ///
    /// # Errors
    /// `Malformed` for an invalid recipient public key; `InvalidArgument` for another algorithm.
    fn new(recipient: Recipient, material: &PublicKeyMaterial, [v, m]: &KeyRandomness) -> Result<Self> {
        let secret = Curve25519Secret::new(v);
        match material {
            PublicKeyMaterial::X25519(public) => {
                let (ephemeral, kek) = x25519::agree(public, &secret)?;
                Ok(Self::X25519 { recipient, ephemeral, kek })
            }
            PublicKeyMaterial::MlKem768X25519 { x25519, mlkem } => {
                let seed = Secret32::new(m);
                let encapsulated = mlkem_x25519::encapsulate(x25519, mlkem, &secret, &seed)?;
                Ok(Self::MlKem768X25519 { recipient, encapsulated })
            }
            _ => Err(Error::InvalidArgument("recipient key algorithm")),
        }
    }

    /// The PKESK: `session_key` wrapped under the KEK.
    ///
    /// # Errors
    /// `InvalidArgument` for a session key that is not 16, 24 or 32 octets.
    fn seal(&self, session_key: &SessionKey) -> Result<Pkesk> {
        Ok(match self {
            Self::X25519 { recipient, ephemeral, kek } => Pkesk {
                recipient: recipient.clone(),
                algorithm: PublicKeyAlgorithm::X25519,
                fields: PkeskFields::X25519 {
                    ephemeral: *ephemeral,
                    wrapped_key: x25519::wrap(kek, session_key.as_bytes())?,
                },
            },
            Self::MlKem768X25519 { recipient, encapsulated } => Pkesk {
                recipient: recipient.clone(),
                algorithm: PublicKeyAlgorithm::MlKem768X25519,
                fields: PkeskFields::MlKem768X25519 {
                    ecdh_ciphertext: encapsulated.ecdh_ciphertext,
                    mlkem_ciphertext: encapsulated.mlkem_ciphertext.clone(),
                    wrapped_key: mlkem_x25519::wrap(&encapsulated.kek, session_key.as_bytes())?,
                },
            },
        })
    }
}

/// The keys of `cert` a PKESK could go to, whatever their validity: those of an algorithm this
/// crate encrypts to. A [`KeyRandomness`] is drawn for each, in this order.
fn key_candidates(cert: &Cert) -> impl Iterator<Item = (Fingerprint, &PublicKeyPacket)> {
    cert.key_packets().filter(|(_, k)| is_candidate(k))
}

/// A recipient certificate evaluated at one time: the keys to encrypt to and its AEAD
/// ciphersuite preferences. What [`Recipients`] keeps, so that later messages skip the
/// self-signature checks.
#[derive(Debug, Clone)]
struct Evaluated {
    keys: Vec<(Fingerprint, PublicKeyMaterial)>,
    /// The first time at which a key or binding signature the evaluation used expires, and
    /// which subkey it was (`None`: the primary key or its binding).
    expires: Option<(u32, Option<Fingerprint>)>,
    /// The Preferred AEAD Ciphersuites of the primary key's binding, in order.
    preferences: Vec<(SymmetricAlgorithm, AeadAlgorithm)>,
}

/// The keys of `cert` valid for `purpose` at `t` that this crate encrypts to, and its
/// preferences.
///
/// # Errors
/// `KeyUnusable` (naming `cert` and why) for a certificate with no valid encryption-capable key
/// for the purpose at `t`; `Unsupported(PublicKeyAlgorithm)` if all its such keys use unknown
/// algorithms.
fn evaluate(cert: &Cert, purpose: Purpose, t: u32) -> Result<Evaluated> {
    let valid = cert.keys_with_flags(t, purpose.flags());
    if valid.is_empty() {
        return Err(cert.no_key_error(t, purpose.flags()));
    }
    let mut unknown = None;
    let mut keys = Vec::new();
    let mut expires = cert.expires_after(&cert.fingerprint(), t).map(|end| (end, None));
    for k in valid {
        if is_candidate(k.key) {
            keys.push((k.fingerprint, k.key.material.clone()));
            if k.fingerprint != cert.fingerprint()
                && let Some(end) = cert.expires_after(&k.fingerprint, t)
                && expires.is_none_or(|(first, _)| end < first)
            {
                expires = Some((end, Some(k.fingerprint)));
            }
        } else {
            unknown = Some(k.key.algorithm);
        }
    }
    if keys.is_empty() {
        let alg = unknown.map_or(0, u8::from);
        return Err(Error::Unsupported(Unsupported::PublicKeyAlgorithm(alg)));
    }
    // The binding's signature was checked just above (the certificate remembers it).
    let preferences = cert
        .primary_binding_at(t)
        .and_then(|s| s.preferred_aead())
        .unwrap_or_default()
        .iter()
        .map(|&(s, a)| (SymmetricAlgorithm::from(s), AeadAlgorithm::from(a)))
        .collect();
    Ok(Evaluated { keys, expires, preferences })
}

impl Evaluated {
    /// The key agreements with each key, from the randomness `drawn` gives for its fingerprint.
    ///
    /// # Errors
    /// `Malformed` for an invalid public key; `Internal` if no randomness was drawn for
    /// a key.
    fn agree<'r>(
        &self,
        hidden: bool,
        mut drawn: impl FnMut(&Fingerprint) -> Option<&'r KeyRandomness>,
    ) -> Result<RecipientPlan> {
        let mut keys = Vec::with_capacity(self.keys.len());
        for (fingerprint, material) in &self.keys {
            let randomness = drawn(fingerprint).ok_or(Error::Internal("key randomness"))?;
            let recipient =
                if hidden { Recipient::Anonymous } else { Recipient::V6(*fingerprint.as_bytes()) };
            let pqc = matches!(material, PublicKeyMaterial::MlKem768X25519 { .. });
            keys.push(RecipientKey { pqc, agreed: Agreed::new(recipient, material, randomness)? });
        }
        Ok(RecipientPlan { keys, preferences: self.preferences.clone() })
    }
}

/// Recipient certificates evaluated once, at an explicit time, for encrypting many messages
/// to them ([`Encryptor::prepared`]): a mailing list, a backup tool. Checking a certificate's
/// self-signatures costs more than encrypting a short message to it; with `Recipients` each
/// message pays only for its key agreements.
///
/// The evaluation holds for the time given to [`Recipients::new`] until the first of the keys
/// and binding signatures it used expires ([`Recipients::expiration_time`]): a message made
/// after that is refused with [`Error::KeyUnusable`] naming the certificate (and subkey) and
/// [`KeyProblem::Expired`](crate::KeyProblem::Expired). A revocation made later is not seen.
/// Evaluate again (for example daily, or when a certificate changes) to pick such changes up;
/// [`Recipients::evaluated_at`] says when this one was made.
///
/// ```
/// # fn main() -> sixpgp::Result<()> {
/// use std::sync::Arc;
/// use std::time::SystemTime;
/// use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile, Purpose, Recipients};
///
/// let keys = (0..3)
///     .map(|i| KeyBuilder::new(Profile::Rfc9580).user_id(format!("m{i} <m{i}@example.org>")).generate())
///     .collect::<sixpgp::Result<Vec<_>>>()?;
/// let list = Arc::new(Recipients::new(keys.iter().map(|k| k.to_cert()), SystemTime::now(), Purpose::Any)?);
/// for text in ["first post", "second post"] {
///     let message = Encryptor::default().prepared(Arc::clone(&list)).encrypt_bytes(text.as_bytes())?;
///     assert_eq!(Decryptor::new([&keys[2]]).decrypt_bytes(&message)?.0, text.as_bytes());
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Recipients {
    certs: Vec<(Fingerprint, Evaluated)>,
    evaluated_at: SystemTime,
}

impl Recipients {
    /// Evaluates `certs` at `at` for `purpose`: which of their keys a message would be
    /// encrypted to, and their preferences.
    ///
    /// # Errors
    /// As [`Encryptor::writer`] for each certificate: `KeyUnusable` naming the first one that
    /// has no valid encryption-capable key at `at`, and why; `Unsupported(PublicKeyAlgorithm)`.
    pub fn new<C: std::borrow::Borrow<Cert>>(
        certs: impl IntoIterator<Item = C>,
        at: SystemTime,
        purpose: Purpose,
    ) -> Result<Self> {
        let t = to_timestamp(at);
        let certs = certs
            .into_iter()
            .map(|c| {
                let cert = c.borrow();
                Ok((cert.fingerprint(), evaluate(cert, purpose, t)?))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { certs, evaluated_at: at })
    }

    /// The time the certificates were evaluated at.
    #[must_use]
    pub fn evaluated_at(&self) -> SystemTime {
        self.evaluated_at
    }

    /// The first time at which a key or binding signature the evaluation used expires (`None`:
    /// none expires). Messages made from then on are refused.
    #[must_use]
    pub fn expiration_time(&self) -> Option<SystemTime> {
        self.earliest_expiration().map(|(t, _, _)| from_timestamp(t))
    }

    /// The earliest expiration among the certificates: when, which certificate, which subkey.
    fn earliest_expiration(&self) -> Option<(u32, Fingerprint, Option<Fingerprint>)> {
        self.certs
            .iter()
            .filter_map(|(cert, e)| e.expires.map(|(t, subkey)| (t, *cert, subkey)))
            .min_by_key(|(t, _, _)| *t)
    }

    /// Checks that the evaluation still holds at the message time `t`.
    ///
    /// # Errors
    /// `KeyUnusable` with `Expired`, naming the certificate (and subkey) that expired first.
    fn check_at(&self, t: u32) -> Result<()> {
        match self.earliest_expiration() {
            Some((end, cert, subkey)) if t >= end => Err(match subkey {
                Some(subkey) => Error::subkey_unusable(cert, subkey, KeyProblem::Expired),
                None => Error::key_unusable(cert, KeyProblem::Expired),
            }),
            _ => Ok(()),
        }
    }

    /// The primary fingerprints of the certificates, in order.
    pub fn certs(&self) -> impl Iterator<Item = Fingerprint> + '_ {
        self.certs.iter().map(|(f, _)| *f)
    }

    /// The keys messages are encrypted to, in order: (certificate, key) fingerprints.
    pub fn keys(&self) -> impl Iterator<Item = (Fingerprint, Fingerprint)> + '_ {
        self.certs.iter().flat_map(|(c, e)| e.keys.iter().map(move |(k, _)| (*c, *k)))
    }
}

/// Does this crate encrypt to `key`'s algorithm?
fn is_candidate(key: &PublicKeyPacket) -> bool {
    matches!(key.material, PublicKeyMaterial::X25519(_) | PublicKeyMaterial::MlKem768X25519 { .. })
}

/// The thread count for per-recipient work: the builder's, at most the available cores.
fn recipient_threads(requested: Option<usize>, recipients: usize) -> usize {
    if recipients < PARALLEL_RECIPIENTS {
        return 1;
    }
    let cores = parallel::available_cores();
    requested.unwrap_or(cores).clamp(1, cores)
}

impl Encryptor {
    /// Encrypts to every certificate in `recipients` (possibly none, if passwords are given):
    /// owned certificates, `Arc`s, or references (which are copied).
    pub fn new<C: Into<Arc<Cert>>>(recipients: impl IntoIterator<Item = C>) -> Self {
        Self {
            recipients: recipients.into_iter().map(Into::into).collect(),
            prepared: Vec::new(),
            signers: Vec::new(),
            passwords: Vec::new(),
            armor: false,
            purpose: Purpose::Any,
            time: None,
            chunk_size: DEFAULT_CHUNK_SIZE,
            literal: LiteralHeader::binary(),
            padding: None,
            hidden: false,
            rng: None,
            profile: None,
            suite: None,
            threads: None,
            pool: None,
        }
    }

    /// Uses this many threads in all to encrypt chunks (1 = the calling thread only). The
    /// default is the machine's available parallelism, at most 4; more than the available
    /// parallelism (or 4, if that is more) counts as that many. A short message starts no
    /// thread. With many recipient certificates, checking them and the key agreements with
    /// their keys are spread over this many threads too (at most the available parallelism).
    /// Armored output is encoded by `threads` − 1 workers of its own
    /// (see [`ArmorWriter::threads`]). The output is identical for every value.
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Takes the writer's whole chunk buffers from `pool`, and leaves them there when it ends,
    /// for the next messages made with the same pool (see [`BufferPool`]). An encryptor serves
    /// one message, so by default it has no pool (its buffers are freed, wiped, at the end):
    /// give the encryptors of a loop one pool. The output is the same whatever the pool.
    #[must_use]
    pub fn buffer_pool(mut self, pool: BufferPool) -> Self {
        self.pool = Some(pool);
        self
    }

    /// Adds a recipient certificate.
    #[must_use]
    pub fn recipient(mut self, cert: impl Into<Arc<Cert>>) -> Self {
        self.recipients.push(cert.into());
        self
    }

    /// Encrypts to the certificates of `recipients` too, as they were evaluated (see
    /// [`Recipients`]): no self-signature is checked again, and the purpose the set was
    /// evaluated for applies to it, not [`purpose`](Encryptor::purpose).
    #[must_use]
    pub fn prepared(mut self, recipients: impl Into<Arc<Recipients>>) -> Self {
        self.prepared.push(recipients.into());
        self
    }

    /// Signs the message with `tsk` too (repeatable: one signature per key), inside the
    /// encryption: the plaintext becomes One-Pass Signatures + Literal Data + Signatures, hashed
    /// as it is written and signed at [`finish`](EncryptWriter::finish).
    ///
    /// The signature is made by the key's first subkey (or primary key) valid for signing at
    /// the creation time ([`at`](Encryptor::at), default now), whose secret must be unlocked.
    /// With [`format`](Encryptor::format) `Utf8` or `Text` the signatures are text signatures
    /// (type 0x01, over the text with CR LF line endings); otherwise binary (0x00).
    #[must_use]
    pub fn signer(mut self, tsk: impl Into<Arc<Tsk>>) -> Self {
        self.signers.push(tsk.into());
        self
    }

    /// Adds a password: the session key is also encrypted with it (v6 SKESK, Argon2 S2K with
    /// t = 3, p = 4, 64 MiB).
    #[must_use]
    pub fn password(mut self, password: impl Into<Password>) -> Self {
        self.passwords.push(password.into());
        self
    }

    /// ASCII-armors the output (`PGP MESSAGE`). Default: `false`.
    #[must_use]
    pub fn armor(mut self, yes: bool) -> Self {
        self.armor = yes;
        self
    }

    /// Which keys of each certificate to encrypt to. Default: [`Purpose::Any`].
    #[must_use]
    pub fn purpose(mut self, purpose: Purpose) -> Self {
        self.purpose = purpose;
        self
    }

    /// Evaluates the certificates (validity, flags, preferences) at `t` instead of now; with
    /// [`signer`](Encryptor::signer)s, `t` is also the signature creation time.
    #[must_use]
    pub fn at(mut self, t: SystemTime) -> Self {
        self.time = Some(t);
        self
    }

    /// The SEIPDv2 chunk size in octets: a power of two from 64 to 4 MiB (checked by
    /// [`writer`](Encryptor::writer)). Default: 256 KiB.
    #[must_use]
    pub fn chunk_size(mut self, octets: usize) -> Self {
        self.chunk_size = octets;
        self
    }

    /// The literal data format. Default: [`DataFormat::Binary`]; use [`DataFormat::Utf8`] for
    /// text.
    #[must_use]
    pub fn format(mut self, format: DataFormat) -> Self {
        self.literal.format = format.into();
        self
    }

    /// The literal data file name (at most 255 octets, checked by
    /// [`writer`](Encryptor::writer)). Default: empty.
    #[must_use]
    pub fn filename(mut self, name: impl Into<Vec<u8>>) -> Self {
        self.literal.filename = name.into();
        self
    }

    /// The literal data date. Default: none (0).
    #[must_use]
    pub fn date(mut self, t: SystemTime) -> Self {
        self.literal.date = to_timestamp(t);
        self
    }

    /// Adds a Padding packet (RFC 9580 §5.14) of `octets` random octets (at most 64 KiB, checked
    /// by [`writer`](Encryptor::writer)) after the literal data, inside the encryption, to hide
    /// the message length.
    #[must_use]
    pub fn padding(mut self, octets: usize) -> Self {
        self.padding = Some(octets);
        self
    }

    /// Hides the recipients: PKESKs name no key ("anonymous recipient"), and each recipient
    /// must try its keys. Default: `false`.
    #[must_use]
    pub fn hidden_recipients(mut self, yes: bool) -> Self {
        self.hidden = yes;
        self
    }

    /// Draws every random value (session key, salts, ephemeral keys, padding) from `rng`
    /// instead of the operating system's generator.
    #[must_use]
    pub fn rng(mut self, rng: impl rand_core::CryptoRng + Send + 'static) -> Self {
        self.rng = Some(Rng::from_boxed(Box::new(rng)));
        self
    }

    /// Picks the algorithms for `profile`: [`Profile::Pqc`] and [`Profile::PqcEncryption`] ask
    /// for AES-256; [`Profile::Rfc9580`] (the default) negotiates as described on the type.
    #[must_use]
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = Some(profile);
        self
    }

    /// Uses this cipher and AEAD mode instead of negotiating them from the recipients'
    /// preferences: for messages to readers whose support you know (every OpenPGP v6
    /// implementation must read AES-128-OCB; GCM and EAX are optional), for password-only
    /// messages, and for benchmarks. Supported: AES-128/192/256 with OCB, GCM or EAX (checked
    /// by [`writer`](Encryptor::writer)).
    #[must_use]
    pub fn cipher_suite(mut self, sym: SymmetricAlgorithm, aead: AeadAlgorithm) -> Self {
        self.suite = Some((sym, aead));
        self
    }

    /// The chunk size octet for `self.chunk_size`.
    fn chunk_size_octet(&self) -> Result<u8> {
        let size = self.chunk_size;
        if !size.is_power_of_two() || !(MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE).contains(&size) {
            return Err(Error::InvalidArgument("chunk size must be a power of two from 64 to 4 MiB"));
        }
        size.trailing_zeros()
            .checked_sub(6)
            .and_then(|c| u8::try_from(c).ok())
            .ok_or(Error::InvalidArgument("chunk size"))
    }

    /// The keys of `cert` to encrypt to, with their key agreements done, and its preferences,
    /// at `t`. `randomness` holds a [`KeyRandomness`] for each of [`key_candidates`].
    ///
    /// # Errors
    /// As [`evaluate`]; `Malformed` for an invalid public key.
    fn plan(
        cert: &Cert,
        purpose: Purpose,
        t: u32,
        hidden: bool,
        randomness: &[KeyRandomness],
    ) -> Result<RecipientPlan> {
        let evaluated = evaluate(cert, purpose, t)?;
        // The randomness of each candidate, in candidate order (which every valid key is in).
        let mut candidates = key_candidates(cert).zip(randomness);
        evaluated.agree(hidden, |fingerprint| {
            candidates.by_ref().find(|(c, _)| c.0 == *fingerprint).map(|(_, drawn)| drawn)
        })
    }

    /// Every recipient's [`RecipientPlan`], in recipient order. The randomness of the key
    /// agreements is drawn from `rng` first, certificate by certificate; then, with many
    /// recipients, the certificates are evaluated and their key agreements done on several
    /// threads (the session key is wrapped afterwards, once the cipher is chosen).
    ///
    /// # Errors
    /// The first recipient's error, as [`Encryptor::plan`]; `Io` from the RNG.
    fn plans(&self, t: u32, rng: &mut Rng) -> Result<Vec<RecipientPlan>> {
        /// One recipient: a certificate to evaluate, or one evaluated before.
        #[derive(Clone, Copy)]
        enum Work<'w> {
            Cert(&'w Cert),
            Prepared(&'w Evaluated),
        }
        let work: Vec<Work<'_>> = self
            .recipients
            .iter()
            .map(|c| Work::Cert(c))
            .chain(self.prepared.iter().flat_map(|r| r.certs.iter().map(|(_, e)| Work::Prepared(e))))
            .collect();
        let counts: Vec<usize> = work
            .iter()
            .map(|w| match w {
                Work::Cert(c) => key_candidates(c).count(),
                Work::Prepared(e) => e.keys.len(),
            })
            .collect();
        let total = counts.iter().sum::<usize>().saturating_mul(size_of::<KeyRandomness>());
        let mut randomness = SecretVec::zeroed(total);
        rng.fill(&mut randomness)?;
        let (halves, _) = randomness.as_chunks::<32>();
        let (mut rest, _) = halves.as_chunks::<2>();
        let mut jobs = Vec::with_capacity(work.len());
        for (w, n) in work.into_iter().zip(counts) {
            let (mine, others) = rest.split_at(n.min(rest.len()));
            jobs.push((w, mine));
            rest = others;
        }
        let threads = recipient_threads(self.threads, jobs.len());
        let (purpose, hidden) = (self.purpose, self.hidden);
        parallel::map_in_order(threads, 1, &jobs, |&(w, randomness)| match w {
            Work::Cert(cert) => Self::plan(cert, purpose, t, hidden, randomness),
            Work::Prepared(evaluated) => {
                let mut drawn = randomness.iter();
                evaluated.agree(hidden, |_| drawn.next())
            }
        })
        .into_iter()
        .collect()
    }

    /// The cipher and AEAD mode (see the type's documentation).
    fn choose_algorithms(
        &self,
        plans: &[RecipientPlan],
        keys: &[&RecipientKey],
    ) -> (SymmetricAlgorithm, AeadAlgorithm) {
        use AeadAlgorithm::{Gcm, Ocb};
        use SymmetricAlgorithm::{Aes128, Aes256};
        let all_pqc = !keys.is_empty() && keys.iter().all(|k| k.pqc);
        let pqc_profile = matches!(self.profile, Some(Profile::Pqc | Profile::PqcEncryption));
        let need_256 = all_pqc || pqc_profile || keys.is_empty();
        let eligible = |(s, a): (SymmetricAlgorithm, AeadAlgorithm)| {
            matches!(a, Ocb | Gcm) && (s == Aes256 || (s == Aes128 && !need_256))
        };
        // AES-128-OCB, the mandatory-to-implement suite, is implied in each recipient's list.
        let lists_have = |pair| plans.iter().all(|p| pair == (Aes128, Ocb) || p.preferences.contains(&pair));
        let chosen = plans.first().and_then(|first| {
            let implied = std::iter::once((Aes128, Ocb));
            first.preferences.iter().copied().chain(implied).find(|&pair| eligible(pair) && lists_have(pair))
        });
        chosen.unwrap_or(if need_256 { (Aes256, Ocb) } else { (Aes128, Ocb) })
    }

    /// Encrypts `plaintext` held in memory and returns the message (armored with
    /// [`armor`](Encryptor::armor)): [`writer`](Encryptor::writer) into a `Vec`.
    ///
    /// # Errors
    /// As [`Encryptor::writer`] and [`EncryptWriter::finish`].
    pub fn encrypt_bytes(self, plaintext: &[u8]) -> Result<Vec<u8>> {
        let mut w = self.writer(Vec::new())?;
        w.write_all(plaintext)?;
        w.finish()
    }

    /// Writes the session-key packets and starts the encrypted stream into `sink`.
    ///
    /// # Errors
    /// - `InvalidArgument` with neither recipients nor passwords, for a bad chunk size, file
    ///   name or padding length;
    /// - `KeyUnusable` if a certificate has no valid encryption-capable key for the purpose
    ///   (SOP: `CERT_CANNOT_ENCRYPT`);
    /// - `Unsupported(PublicKeyAlgorithm)` if its only such keys use algorithms this crate
    ///   lacks;
    /// - `KeyLocked` if a signer's signing secret is locked (SOP: `KEY_IS_PROTECTED`);
    ///   `KeyUnusable` if a signer has no key valid for signing at the creation time (SOP:
    ///   `KEY_CANNOT_SIGN`);
    /// - `Malformed` for an invalid recipient public key; `Io` from the sink or the RNG.
    ///
    /// Nothing is written to `sink` if the recipients or signers are unusable.
    pub fn writer<W: Write>(mut self, sink: W) -> Result<EncryptWriter<W>> {
        if self.recipients.is_empty() && self.prepared.is_empty() && self.passwords.is_empty() {
            return Err(Error::InvalidArgument("encrypt: no recipient and no password"));
        }
        let chunk_size_octet = self.chunk_size_octet()?;
        self.literal.check()?;
        if self.padding.is_some_and(|p| p > MAX_PADDING) {
            return Err(Error::InvalidArgument("padding longer than 64 KiB"));
        }
        let t = to_timestamp(self.time.unwrap_or_else(SystemTime::now));
        for prepared in &self.prepared {
            prepared.check_at(t)?;
        }
        let mut rng = self.rng.take().unwrap_or_else(Rng::os);
        let plans = self.plans(t, &mut rng)?;
        let keys: Vec<&RecipientKey> = plans.iter().flat_map(|p| &p.keys).collect();
        let (sym, aead) = match self.suite {
            Some(suite) => check_suite(suite)?,
            None => self.choose_algorithms(&plans, &keys),
        };
        let key_len = sym.key_len().ok_or(Error::InvalidArgument("cipher"))?;
        let Self { passwords, armor, literal, padding, signers, time, threads, pool, .. } = self;

        // The signers first, so that an unusable signing key fails before any output.
        let signatures = if signers.is_empty() {
            None
        } else {
            let mut signer = Signer::new().mode(SignatureMode::from_literal_format(literal.format));
            if let Some(t) = time {
                signer = signer.creation_time(t);
            }
            for tsk in signers {
                signer = signer.key(tsk);
            }
            Some(signer.prepare(&mut rng)?)
        };

        // The session key, then every other random value, drawn before any plaintext arrives
        // so that the output depends only on the RNG and the plaintext, not on write sizes.
        let mut key_bytes = SecretVec::zeroed(key_len);
        rng.fill(&mut key_bytes)?;
        let session_key = SessionKey::from_bytes(&key_bytes);

        let mut sink = if armor {
            // Base64 gets workers of its own: it costs more than the AEAD.
            let armor_threads = threads.unwrap_or_else(parallel::default_threads);
            Sink::Armored(ArmorWriter::new(sink, ArmorKind::Message)?.threads(armor_threads))
        } else {
            Sink::Binary(sink)
        };

        // One v6 PKESK per recipient key (RFC 9580 §5.1.2).
        for key in &keys {
            key.agreed.seal(&session_key)?.write_packet(&mut sink)?;
        }

        // One v6 SKESK per password (RFC 9580 §5.3.2), Argon2 S2K (§3.7.1.4).
        for password in &passwords {
            let mut salt = [0u8; 16];
            rng.fill(&mut salt)?;
            let (t, p, m) = SKESK_ARGON2;
            let s2k_spec = S2k::Argon2 { salt, t, p, m };
            let s2k_key = s2k::derive(&s2k_spec, password.as_bytes(), key_len, &Limits::default())?;
            let mut iv = vec![0u8; aead.nonce_len().ok_or(Error::InvalidArgument("AEAD mode"))?];
            rng.fill(&mut iv)?;
            let skesk = encrypt_session_key(&session_key, &s2k_key, sym, aead, s2k_spec.to_vec(), iv)?;
            skesk.write_packet(&mut sink)?;
        }

        let padding = match padding {
            Some(len) => {
                let mut body = vec![0u8; len];
                rng.fill(&mut body)?;
                Some(Padding(body))
            }
            None => None,
        };
        let mut salt = [0u8; 32];
        rng.fill(&mut salt)?;

        // sink ← PKESKs/SKESKs ← SEIPD framing ← chunk engine ← literal framing.
        let framed = PartialBodyWriter::new(sink, Tag::Seipd);
        let mut seipd = SeipdWriter::new(framed, &session_key, sym, aead, chunk_size_octet, salt)?;
        if let Some(n) = threads {
            seipd.set_threads(n);
        }
        if let Some(pool) = pool {
            seipd.set_buffer_pool(pool);
        }
        let inner = match signatures {
            None => Inner::Plain(LiteralChunkWriter::new(seipd, &literal)?),
            // The signing randomness (ML-DSA) comes from the same RNG, after everything else.
            Some(prepared) => Inner::Signed(prepared.writer(rng).inline(Sink::Binary(seipd), &literal)?),
        };
        Ok(EncryptWriter { inner, padding, sym, aead, session_key, poison: Poison::default() })
    }
}

/// A suite set with [`Encryptor::cipher_suite`], if this crate implements it.
fn check_suite(suite: (SymmetricAlgorithm, AeadAlgorithm)) -> Result<(SymmetricAlgorithm, AeadAlgorithm)> {
    use AeadAlgorithm::{Eax, Gcm, Ocb};
    use SymmetricAlgorithm::{Aes128, Aes192, Aes256};
    match suite {
        (Aes128 | Aes192 | Aes256, Ocb | Gcm | Eax) => Ok(suite),
        (Aes128 | Aes192 | Aes256, aead) => Err(Error::Unsupported(Unsupported::AeadAlgorithm(aead.into()))),
        (sym, _) => Err(Error::Unsupported(Unsupported::SymmetricAlgorithm(sym.into()))),
    }
}

/// The encrypted stream: sink ← PKESKs/SKESKs ← SEIPD framing ← chunk engine.
type Encrypted<W> = SeipdWriter<PartialBodyWriter<Sink<W>>>;

/// What the plaintext goes through before the encryption.
#[expect(
    clippy::large_enum_variant,
    reason = "one per stream, living as long as it: a box would only add an allocation"
)]
enum Inner<W: Write> {
    /// Literal data framing.
    Plain(LiteralChunkWriter<PartialBodyWriter<Sink<W>>>),
    /// One-Pass Signatures, literal data framing and hashing, signatures at the end.
    Signed(InlineSignWriter<Encrypted<W>>),
}

impl<W: Write> Inner<W> {
    fn finish(self) -> Result<Encrypted<W>> {
        match self {
            Self::Plain(l) => l.finish(),
            Self::Signed(s) => s.finish(),
        }
    }
}

impl<W: Write> Write for Inner<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self {
            Self::Plain(l) => l.write(data),
            Self::Signed(s) => s.write(data),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(l) => l.flush(),
            Self::Signed(s) => s.flush(),
        }
    }
}

/// Encrypts what is written to it into `W`; made by [`Encryptor::writer`].
///
/// Plaintext is framed as a Literal Data packet, cut into chunks, and each chunk is encrypted
/// and written as soon as it is full. [`finish`](EncryptWriter::finish) writes the last chunk,
/// the final tag and every closing frame; without it the output is incomplete and will not
/// decrypt. `Drop` does no I/O. After any error every call fails.
///
/// With [`signer`](Encryptor::signer)s the plaintext is hashed as it is written and the
/// signatures are made by `finish`, inside the encryption, before the final tag.
#[must_use = "call finish() to complete the message"]
pub struct EncryptWriter<W: Write> {
    inner: Inner<W>,
    padding: Option<Padding>,
    sym: SymmetricAlgorithm,
    aead: AeadAlgorithm,
    session_key: SessionKey,
    /// The first error, reported again by every later call.
    poison: Poison,
}

impl<W: Write> fmt::Debug for EncryptWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncryptWriter")
            .field("sym", &self.sym)
            .field("aead", &self.aead)
            .field("poison", &self.poison)
            .finish_non_exhaustive()
    }
}

impl<W: Write> EncryptWriter<W> {
    /// The cipher and session key, e.g. for SOP's `--session-key-out`.
    #[must_use]
    pub fn session_key(&self) -> (SymmetricAlgorithm, &SessionKey) {
        (self.sym, &self.session_key)
    }

    /// The AEAD mode of the SEIPDv2 packet.
    #[must_use]
    pub fn aead(&self) -> AeadAlgorithm {
        self.aead
    }

    /// Reads `src` to its end and encrypts it, like [`std::io::copy`] into this writer, but
    /// reading straight into the chunk buffers, which are wiped when done with, so the data is
    /// moved once and left nowhere else (`std::io::copy` leaves the last plaintext it moved in
    /// its stack buffer). With a [`signer`](Encryptor::signer) it goes through one 64 KiB
    /// buffer, wiped after each write. Returns the octets read; more may be written
    /// afterwards, and [`finish`](EncryptWriter::finish) is still needed.
    ///
    /// # Errors
    /// Read errors of `src` and I/O errors of the sink (as `Io`); after an error every call
    /// fails.
    ///
    /// ```
    /// # fn main() -> sixpgp::Result<()> {
    /// use sixpgp::{Encryptor, KeyBuilder, Profile};
    ///
    /// let key = KeyBuilder::new(Profile::Rfc9580).user_id("Alice <alice@example.org>").generate()?;
    /// let cert = key.to_cert();
    /// let mut input: &[u8] = b"a large file, in real life";
    /// let mut w = Encryptor::new([&cert]).writer(Vec::new())?;
    /// let n = w.copy_from(&mut input)?;
    /// assert_eq!(n, 26);
    /// let ciphertext = w.finish()?;
    /// # assert!(!ciphertext.is_empty());
    /// # Ok(()) }
    /// ```
    pub fn copy_from(&mut self, src: &mut (impl Read + ?Sized)) -> Result<u64> {
        self.poison.check()?;
        let result = match &mut self.inner {
            Inner::Plain(literal) => literal.copy_from(src),
            Inner::Signed(signed) => crate::message::copy_wiped(src, signed),
        };
        result.map_err(|e| self.poison.set(Error::from_io(e)))
    }

    /// Makes the signatures (if signing), writes the last chunk, the final tag, the padding,
    /// closes every frame (and the armor), flushes the sink and returns it.
    ///
    /// # Errors
    /// `Io` from the sink; the first error again if an earlier call failed; `KeyUnusable` if
    /// a signing secret cannot sign.
    pub fn finish(self) -> Result<W> {
        self.poison.check()?;
        let mut seipd = self.inner.finish()?;
        if let Some(padding) = &self.padding {
            padding.write_packet(&mut seipd)?;
        }
        seipd.finish()?.finish()?.finish()
    }
}

impl<W: Write> Write for EncryptWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.poison.check_io()?;
        self.inner.write(data).map_err(|e| self.poison.set_io(e))
    }

    /// Writes the chunks that are done and flushes the sink. Buffered plaintext stays until
    /// its chunk is full (a short chunk is written only by `finish`), and a full chunk until
    /// 64 KiB more follow it (the literal packet's last part is rewritten by `finish`).
    fn flush(&mut self) -> io::Result<()> {
        self.poison.check_io()?;
        self.inner.flush().map_err(|e| self.poison.set_io(e))
    }
}
