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

use crate::armor::{ArmorKind, ArmorWriter};
use crate::crypto::rng::Rng;
use crate::crypto::s2k;
use crate::crypto::secret::{Password, SecretVec, SessionKey};
use crate::error::{Error, Poison, Result};
use crate::key::{Cert, Profile, Tsk, to_timestamp};
use crate::limits::Limits;
use crate::message::io::{Sink, copy_wiped};
use crate::message::literal::{FixedLiteralWriter, LiteralChunkWriter};
use crate::message::recipients::{Purpose, RecipientKey, RecipientPlan, Recipients, plans};
use crate::message::seipd::SeipdWriter;
use crate::message::sign::{InlineSignWriter, Signer};
use crate::message::skesk::encrypt_session_key;
use crate::packet::header::Tag;
use crate::packet::literal::{DataFormat, LiteralHeader};
use crate::packet::padding::Padding;
use crate::packet::partial::{PartialBodyWriter, SEIPD_MAX_PART_EXP};
use crate::packet::s2k::S2k;
use crate::packet::{PacketBody, Serialize};
use crate::pipeline::{BufferPool, policy};
use crate::signature::SignatureMode;
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

/// The default chunk size: 256 KiB (chunk size octet 12).
const DEFAULT_CHUNK_SIZE: usize = 1 << 18;
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
    plaintext_len: Option<u64>,
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
            plaintext_len: None,
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
        // `Unknown(b'u')` is `Utf8`: the signature mode follows the octet, not the variant.
        self.literal.format = DataFormat::from(u8::from(format));
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

    /// Announces the plaintext's length in advance (a file's size, say): the message then
    /// has fixed lengths where a stream of unknown length needs partial ones (the Literal
    /// Data packet, and the encrypted packet when it is below 4 GiB), so that
    /// [`Decryptor::seekable_reader`](crate::Decryptor::seekable_reader) reads any range of it
    /// in O(1) chunks. Writing more, or finishing with less, is `InvalidArgument` (and the
    /// output is then unusable). It applies to unsigned messages of up to 4 GiB; a signed one,
    /// or a longer one, is written as a stream, as without it.
    #[must_use]
    pub fn plaintext_len(mut self, octets: u64) -> Self {
        self.plaintext_len = Some(octets);
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

    /// The builder every message of a batch is copied from
    /// ([`encrypt_all`](Encryptor::encrypt_all)): the certificates evaluated once, at one time
    /// for the whole batch, one thread per message, and a buffer pool shared by the batch.
    ///
    /// # Errors
    /// `InvalidArgument` with neither recipients nor passwords, or with an injected RNG (it
    /// cannot serve several threads); as [`Recipients::new`] for the certificates.
    pub(super) fn batch_template(&self) -> Result<Self> {
        if self.recipients.is_empty() && self.prepared.is_empty() && self.passwords.is_empty() {
            return Err(Error::InvalidArgument("encrypt: no recipient and no password"));
        }
        if self.rng.is_some() {
            return Err(Error::InvalidArgument("encrypt_all: an injected RNG cannot serve a batch"));
        }
        let at = self.time.unwrap_or_else(SystemTime::now);
        let mut prepared = self.prepared.clone();
        if !self.recipients.is_empty() {
            prepared.push(Arc::new(Recipients::new(self.recipients.iter().map(|c| &**c), at, self.purpose)?));
        }
        let mut template = self.batch_copy();
        template.recipients = Vec::new();
        template.prepared = prepared;
        template.time = Some(at);
        template.threads = Some(1);
        template.pool = Some(self.pool.clone().unwrap_or_default());
        Ok(template)
    }

    /// A copy of this builder with the operating system's RNG (a [`batch_template`]'s copy for
    /// one message).
    ///
    /// [`batch_template`]: Encryptor::batch_template
    pub(super) fn batch_copy(&self) -> Self {
        Self {
            recipients: self.recipients.clone(),
            prepared: self.prepared.clone(),
            signers: self.signers.clone(),
            passwords: self.passwords.clone(),
            armor: self.armor,
            purpose: self.purpose,
            time: self.time,
            chunk_size: self.chunk_size,
            literal: self.literal.clone(),
            padding: self.padding,
            hidden: self.hidden,
            rng: None,
            profile: self.profile,
            suite: self.suite,
            threads: self.threads,
            pool: self.pool.clone(),
            // A length announced for one message does not hold for the others of a batch.
            plaintext_len: None,
        }
    }

    /// The thread count given with [`threads`](Encryptor::threads).
    pub(super) fn thread_count(&self) -> Option<usize> {
        self.threads
    }

    /// Encrypts `plaintext` held in memory and returns the message (armored with
    /// [`armor`](Encryptor::armor)): [`writer`](Encryptor::writer) into a `Vec`, with the
    /// length announced (see [`plaintext_len`](Encryptor::plaintext_len)).
    ///
    /// # Errors
    /// As [`Encryptor::writer`] and [`EncryptWriter::finish`].
    pub fn encrypt_bytes(mut self, plaintext: &[u8]) -> Result<Vec<u8>> {
        if self.plaintext_len.is_none() {
            self.plaintext_len = u64::try_from(plaintext.len()).ok();
        }
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
        let plans =
            plans(&self.recipients, &self.prepared, self.purpose, self.hidden, self.threads, t, &mut rng)?;
        let keys: Vec<&RecipientKey> = plans.iter().flat_map(|p| &p.keys).collect();
        let (sym, aead) = match self.suite {
            Some(suite) => check_suite(suite)?,
            None => self.choose_algorithms(&plans, &keys),
        };
        let key_len = sym.key_len().ok_or(Error::InvalidArgument("cipher"))?;
        let Self { passwords, armor, literal, padding, signers, time, threads, pool, plaintext_len, .. } =
            self;

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
            let armor_threads = policy::armor::message_threads(threads);
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

        // With the length known (and no signatures, whose length is not), fixed lengths where
        // they fit: the SEIPD body is its fields, the plaintext with a tag per chunk, and the
        // final tag.
        let fixed_len = plaintext_len.filter(|_| signatures.is_none()).and_then(|n| {
            let literal_len = FixedLiteralWriter::<Sink<W>>::packet_len(&literal, n)?;
            let padding_len = match &padding {
                Some(p) => {
                    let mut packet = Vec::new();
                    p.write_packet(&mut packet).ok()?;
                    u64::try_from(packet.len()).ok()?
                }
                None => 0,
            };
            let inner = literal_len.checked_add(padding_len)?;
            let chunk = 1u64.checked_shl(u32::from(chunk_size_octet).checked_add(6)?)?;
            let tags = inner.div_ceil(chunk).checked_add(1)?.checked_mul(16)?;
            let body = inner.checked_add(tags)?.checked_add(36)?;
            Some((n, u32::try_from(body).ok()))
        });

        // sink ← PKESKs/SKESKs ← SEIPD framing ← chunk engine ← literal framing.
        let framed = match fixed_len {
            Some((_, Some(body))) => PartialBodyWriter::fixed(sink, Tag::Seipd, body)?,
            _ => PartialBodyWriter::new(sink, Tag::Seipd).with_max_part_exp(SEIPD_MAX_PART_EXP),
        };
        let mut seipd = SeipdWriter::new(framed, &session_key, sym, aead, chunk_size_octet, salt)?;
        if let Some(n) = threads {
            seipd.set_threads(n);
        }
        if policy::caller_bound(armor, signatures.is_some()) {
            seipd.set_caller_bound();
        }
        if !armor {
            // Binary output: the calling thread does not copy the end of each chunk into the
            // part writer, at the cost of a chunk buffer more in flight.
            seipd.set_hold_tails(true);
        }
        if let Some(pool) = pool {
            seipd.set_buffer_pool(pool);
        }
        let inner = match signatures {
            None => match fixed_len {
                Some((n, _)) => Inner::Fixed(FixedLiteralWriter::new(seipd, &literal, n)?),
                None => Inner::Plain(LiteralChunkWriter::new(seipd, &literal)?),
            },
            // The signing randomness (ML-DSA) comes from the same RNG, after everything else.
            Some(prepared) => Inner::Signed(prepared.writer(rng).inline(Sink::Binary(seipd), &literal)?),
        };
        Ok(EncryptWriter { inner, padding, sym, aead, session_key, poison: Poison::default() })
    }
}

/// A suite set with [`Encryptor::cipher_suite`], if this crate implements it.
fn check_suite(suite: (SymmetricAlgorithm, AeadAlgorithm)) -> Result<(SymmetricAlgorithm, AeadAlgorithm)> {
    let _ = crate::crypto::aead::KeyedAead::check(suite.0, suite.1)?;
    Ok(suite)
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
    /// Literal data of a length known in advance.
    Fixed(FixedLiteralWriter<PartialBodyWriter<Sink<W>>>),
    /// One-Pass Signatures, literal data framing and hashing, signatures at the end.
    Signed(InlineSignWriter<Encrypted<W>>),
}

impl<W: Write> Inner<W> {
    fn finish(self) -> Result<Encrypted<W>> {
        match self {
            Self::Plain(l) => l.finish(),
            Self::Fixed(l) => l.finish(),
            Self::Signed(s) => s.finish(),
        }
    }
}

impl<W: Write> Write for Inner<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self {
            Self::Plain(l) => l.write(data),
            Self::Fixed(l) => l.write(data),
            Self::Signed(s) => s.write(data),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(l) => l.flush(),
            Self::Fixed(l) => l.flush(),
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
            Inner::Fixed(literal) => literal.copy_from(src),
            Inner::Signed(signed) => copy_wiped(src, signed),
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
