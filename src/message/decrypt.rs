//! The decryption builder ([`Decryptor`]) and stream ([`DecryptReader`]).
//!
//! Accepted grammar (RFC 9580 §10.3), after optional armor:
//!
//! ```text
//! (PKESK | SKESK | Marker | Padding)*
//!   SEIPDv2 { Signature* OPS* Literal Signature* }      (Padding and Marker anywhere inside)
//! Unknown non-critical packets (type IDs 40-63) are skipped wherever Padding is (RFC 9580 §4.3).
//! ```
//!
//! PKESKs and SKESKs of versions or algorithms this crate does not implement are skipped: a
//! co-recipient's key must never make the message unreadable. There must be as many
//! signatures after the literal data as One-Pass Signatures before it. The signatures are
//! verified (in the same pass, hashing the literal data as it is released) when the caller
//! asks for it with [`Decryptor::verify_with`]; otherwise their structure is checked only.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-10.3>

use std::fmt;
use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use crate::armor::ArmorReader;
use crate::crypto::aead::AeadCipher;
use crate::crypto::secret::{Password, SecretVec, SessionKey};
use crate::crypto::{mlkem_x25519, s2k, x25519};
use crate::error::{Error, Limit, Result, Unsupported};
use crate::key::{Cert, Tsk};
use crate::limits::Limits;
use crate::message::info::LiteralInfo;
use crate::message::lookup::{KeyStore, SharedStore};
use crate::message::reader::{Container, MessageReader};
use crate::message::seipd::SeipdReader;
use crate::message::skesk::decrypt_session_key;
use crate::message::verify::{Verification, Verifier, peek_tag};
use crate::packet::header::{Header, Tag};
use crate::packet::key::{PublicKeyMaterial, PublicKeyPacket, SecretKeyMaterial};
use crate::packet::partial::PartialBodyReader;
use crate::packet::pkesk::{Pkesk, PkeskFields, Recipient};
use crate::packet::s2k::S2k;
use crate::packet::seipd::SeipdHeader;
use crate::packet::skesk::Skesk;
use crate::packet::{PacketBody, read_raw_packet};
use crate::pipeline::{self as parallel, BufferPool};
use crate::types::Fingerprint;
use crate::types::{AeadAlgorithm, PublicKeyAlgorithm, SymmetricAlgorithm};

/// What opened a message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecryptedWith {
    /// A secret key: the certificate's primary fingerprint and the (sub)key's.
    Key {
        /// The certificate (primary key) fingerprint.
        cert: Fingerprint,
        /// The fingerprint of the key whose PKESK was decrypted.
        key: Fingerprint,
    },
    /// The password at this index, in the order given to [`Decryptor::password`].
    Password(usize),
    /// The session key at this index, in the order given to [`Decryptor::session_key`].
    SessionKey(usize),
}

/// A decrypted message: its literal data and summary ([`Decryptor::decrypt_bytes`]).
type Decrypted = (Vec<u8>, DecryptSummary);

/// Builds a decryption: keys, passwords and session keys to try, then
/// [`reader`](Decryptor::reader).
///
/// Session keys are tried first, then the PKESKs that name one of the keys (and anonymous
/// PKESKs with every key of their algorithm), then the SKESKs with each password.
///
/// With [`verify_with`](Decryptor::verify_with) the signatures inside the message are
/// verified in the same pass (see [`DecryptReader`] for what is final when).
///
/// ```
/// # fn main() -> sixpgp::Result<()> {
/// use std::io::{Read, Write};
/// use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};
///
/// let alice = KeyBuilder::new(Profile::Rfc9580).user_id("Alice <alice@example.org>").generate()?;
/// let bob = KeyBuilder::new(Profile::Rfc9580).user_id("Bob <bob@example.org>").generate()?;
/// let (alice_cert, bob_cert) = (alice.to_cert(), bob.to_cert());
///
/// let mut w = Encryptor::new([&bob_cert]).signer(&alice).writer(Vec::new())?;
/// w.write_all(b"Hello, Bob")?;
/// let ciphertext = w.finish()?;
///
/// let mut r = Decryptor::new([&bob]).verify_with([&alice_cert]).reader(&ciphertext[..])?;
/// let mut plaintext = Vec::new();
/// r.read_to_end(&mut plaintext)?;            // authenticated, but not yet known to be signed
/// let summary = r.finish()?;                 // the verdicts
/// assert!(summary.verifications.iter().any(|v| v.is_good()));
/// assert_eq!(plaintext, b"Hello, Bob");
/// # Ok(()) }
/// ```
pub struct Decryptor {
    keys: Vec<Arc<Tsk>>,
    passwords: Vec<Password>,
    session_keys: Vec<(SessionKey, Option<SymmetricAlgorithm>)>,
    limits: Limits,
    /// Whether to verify signatures, and against what.
    verify: bool,
    verifier: Verifier,
    threads: Option<usize>,
    /// Where to look up keys and certificates the message names.
    store: Option<SharedStore>,
    /// The ML-KEM decapsulation keys of `keys`, expanded from their seeds at the first
    /// ML-KEM-768+X25519 PKESK and kept for every later message.
    expanded: OnceLock<Vec<ExpandedKey>>,
    /// The chunk buffers its streams leave, for the next ones.
    pool: BufferPool,
}

/// An ML-KEM-768 decapsulation key expanded once (FIPS 203 key generation from the seed costs
/// about as much as a decapsulation), with the fingerprint of its (sub)key.
struct ExpandedKey {
    key: Fingerprint,
    dk: Box<mlkem_x25519::DecapsulationKey>,
}

impl fmt::Debug for Decryptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decryptor")
            .field("keys", &self.keys.iter().map(|k| k.fingerprint()).collect::<Vec<_>>())
            .field("passwords", &self.passwords.len())
            .field("session_keys", &self.session_keys.len())
            .field("limits", &self.limits)
            .field("verify", &self.verify)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

impl Default for Decryptor {
    fn default() -> Self {
        Self::new(Vec::<Tsk>::new())
    }
}

impl Decryptor {
    /// Decrypts with the secret keys in `keys` (possibly none, if passwords or session keys
    /// are given). Locked keys are skipped; if only a locked key would have matched, reading
    /// fails with [`Error::KeyLocked`].
    ///
    /// Keys may be given owned, as `Arc`s (shared with other decryptors), or as references,
    /// which are copied: the `Decryptor` owns what it uses, so it can live as long as a
    /// service and be shared by its threads behind an `Arc`.
    pub fn new<K: Into<Arc<Tsk>>>(keys: impl IntoIterator<Item = K>) -> Self {
        Self {
            keys: keys.into_iter().map(Into::into).collect(),
            passwords: Vec::new(),
            session_keys: Vec::new(),
            limits: Limits::default(),
            verify: false,
            verifier: Verifier::new(Vec::<Cert>::new()),
            threads: None,
            store: None,
            expanded: OnceLock::new(),
            pool: BufferPool::default(),
        }
    }

    /// Uses this many threads in all to decrypt chunks (1 = the calling thread only). The
    /// default is the machine's available parallelism, at most 4; more than the available
    /// parallelism (or 4, if that is more) counts as that many. A short message starts no
    /// thread. Armored input is decoded by `threads` − 1 workers of its own (see
    /// [`ArmorReader::threads`]). Plaintext is still released in order, each chunk only after
    /// its own tag verified.
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Keeps the whole chunk buffers of finished messages in `pool`, for the next messages to
    /// reuse (see [`BufferPool`]). By default the decryptor has a pool of its own
    /// ([`BufferPool::default`], 2 MiB), shared by every stream it makes; give several
    /// decryptors (or encryptors) one pool to share it, or [`BufferPool::new`]`(0)` to keep
    /// nothing. The plaintext and every error are the same whatever the pool.
    #[must_use]
    pub fn buffer_pool(mut self, pool: BufferPool) -> Self {
        self.pool = pool;
        self
    }

    /// Adds a secret key (owned, an `Arc`, or a reference, which is copied).
    #[must_use]
    pub fn key(mut self, key: impl Into<Arc<Tsk>>) -> Self {
        self.keys.push(key.into());
        self
    }

    /// Adds a password to try on the message's SKESKs.
    #[must_use]
    pub fn password(mut self, password: impl Into<Password>) -> Self {
        self.passwords.push(password.into());
        self
    }

    /// Adds a session key, with its cipher if known. It is used if its length (and cipher, if
    /// given) matches the message. A session key cannot be checked before the first chunk is
    /// decrypted: a wrong one makes [`reader`](Decryptor::reader) fail with [`Error::Decrypt`].
    #[must_use]
    pub fn session_key(mut self, key: SessionKey, algorithm: Option<SymmetricAlgorithm>) -> Self {
        self.session_keys.push((key, algorithm));
        self
    }

    /// Verifies the signatures inside the message against the signing keys of `certs`
    /// (repeatable; the certificates add up). The verdicts are in
    /// [`DecryptSummary::verifications`], one per signature; without this call the signatures are
    /// listed there unchecked, as [`UnverifiableReason::NotRequested`](crate::UnverifiableReason).
    ///
    /// Signatures count as good under the rules of [`Verifier`], with the time window set by
    /// [`not_before`](Decryptor::not_before), [`not_after`](Decryptor::not_after) and
    /// [`at`](Decryptor::at).
    #[must_use]
    pub fn verify_with<C: Into<Arc<Cert>>>(mut self, certs: impl IntoIterator<Item = C>) -> Self {
        self.verify = true;
        self.verifier.add_certs(certs);
        self
    }

    /// Looks up secret keys for the message's recipients, and certificates for its signers, in
    /// `store` as the message names them (see [`KeyStore`]), besides the keys and certificates
    /// given to the builder. With a store, signatures are verified as with
    /// [`verify_with`](Decryptor::verify_with).
    #[must_use]
    pub fn key_store(mut self, store: impl KeyStore + 'static) -> Self {
        self.store = Some(SharedStore::new(store));
        self
    }

    /// Signatures made before `t` are not acceptable (default: no bound).
    #[must_use]
    pub fn not_before(mut self, t: SystemTime) -> Self {
        self.verifier = self.verifier.not_before(t);
        self
    }

    /// Signatures made after `t` are not acceptable (default: the evaluation time).
    #[must_use]
    pub fn not_after(mut self, t: SystemTime) -> Self {
        self.verifier = self.verifier.not_after(t);
        self
    }

    /// The evaluation time for signature verification (default: now): signatures expired at
    /// `t` are not acceptable.
    #[must_use]
    pub fn at(mut self, t: SystemTime) -> Self {
        self.verifier = self.verifier.at(t);
        self
    }

    /// Resource limits (S2K cost, number of session-key packets, packet sizes). Default:
    /// [`Limits::default`].
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Reads (and dearmors, if armored) `source` up to and including the SEIPDv2 packet's
    /// fields, recovers the session key, and decrypts up to the start of the literal data.
    ///
    /// `source` is read as one message: nothing may follow it (a binary message followed by
    /// more data is refused), and where the source is left afterwards is unspecified. (A long
    /// armored body is read in large blocks straight from the source, and the read that brings
    /// the END line may bring what follows it.) Large reads pass a small `BufReader` without a
    /// copy: 16 KiB is enough.
    ///
    /// # Errors
    /// - `Unsupported(Seipdv1)` for a v1 SEIPD (RFC 4880 MDC) message, `Unsupported(...)` for
    ///   compressed data or other unsupported content;
    /// - `BadPassword` if passwords were tried on the message's SKESKs and none opened it (and
    ///   no key or session key did);
    /// - `NoDecryptionKey` if no key, password or session key opens it; `KeyLocked` if only a
    ///   locked key would have; `Unsupported(PublicKeyAlgorithm)` if it is encrypted to a
    ///   given key whose algorithm this crate does not implement, and nothing else opens it;
    /// - `Decrypt` if the first chunk does not authenticate (e.g. a wrong session key);
    /// - `LimitExceeded` for too many session-key packets or signatures, or oversize S2K
    ///   parameters;
    /// - `Malformed`/`Truncated` for broken input; `Io` from the source.
    pub fn reader<R: BufRead>(&self, source: R) -> Result<DecryptReader<R>> {
        self.open(source)
    }

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
        /// Messages a thread takes from the counter at a time.
        const TAKE: usize = 16;
        let threads = self.threads.unwrap_or_else(parallel::available_cores);
        parallel::map_in_order(threads, TAKE, messages, |m| self.decrypt_one(m.as_ref()))
    }

    /// [`decrypt_bytes`](Decryptor::decrypt_bytes) with no thread started inside the message.
    fn decrypt_one(&self, message: &[u8]) -> Result<Decrypted> {
        collect(self.open_with(message, Some(1), None)?, message.len())
    }

    /// [`reader`](Decryptor::reader) without consuming the builder.
    fn open<R: BufRead>(&self, source: R) -> Result<DecryptReader<R>> {
        self.open_with(source, self.threads, None)
    }

    /// [`reader`](Decryptor::reader) for the async reader's thread: gives up before each S2K
    /// derivation once `cancelled` is set (its stream was dropped), rather than run every
    /// derivation the message's SKESKs ask for first.
    #[cfg(feature = "async")]
    pub(crate) fn reader_until_cancelled<R: BufRead>(
        &self,
        source: R,
        cancelled: &AtomicBool,
    ) -> Result<DecryptReader<R>> {
        self.open_with(source, self.threads, Some(cancelled))
    }

    /// [`open`](Decryptor::open) with the chunk thread count `threads`.
    fn open_with<R: BufRead>(
        &self,
        source: R,
        threads: Option<usize>,
        cancelled: Option<&AtomicBool>,
    ) -> Result<DecryptReader<R>> {
        // Base64 gets workers of its own: it costs more than the AEAD.
        let armor_threads = threads.unwrap_or_else(parallel::default_threads);
        let mut armor =
            ArmorReader::with_limits(source, &self.limits).threads(armor_threads).read_ahead(true);
        let _ = armor.detect()?;

        // 1. The session-key packets, up to the SEIPD packet.
        let mut pkesks = Vec::new();
        // Every recipient named, usable or not: what a missing key is reported against.
        let mut recipients: Vec<crate::types::Recipient> = Vec::new();
        // Whom the PKESKs of algorithms this crate does not implement are for, to say so if
        // they are the only ones for the given keys.
        let mut unsupported = Vec::new();
        let mut skesks = Vec::new();
        let mut count = 0usize;
        let seipd_length = loop {
            match peek_tag(&mut armor)? {
                None => return Err(Error::Truncated("encrypted message")),
                Some(Tag::Seipd) => {
                    let header =
                        Header::read_from(&mut armor)?.ok_or(Error::Truncated("encrypted message"))?;
                    break header.length;
                }
                Some(Tag::SymmetricallyEncryptedData) => {
                    return Err(Error::Unsupported(Unsupported::Feature(
                        "symmetrically encrypted data without integrity protection",
                    )));
                }
                Some(Tag::CompressedData) => return Err(Error::Unsupported(Unsupported::CompressedData)),
                Some(Tag::AeadEncryptedData) => {
                    return Err(Error::Unsupported(Unsupported::AeadEncryptedData));
                }
                Some(tag) if tag.is_data() => {
                    return Err(Error::malformed("encrypted message: expected PKESK, SKESK or SEIPD"));
                }
                Some(_) => {}
            }
            let raw =
                read_raw_packet(&mut armor, &self.limits)?.ok_or(Error::Truncated("encrypted message"))?;
            match raw.tag {
                Tag::Pkesk | Tag::Skesk => {
                    count = count.saturating_add(1);
                    Limits::check(
                        u64::try_from(count).unwrap_or(u64::MAX),
                        u64::try_from(self.limits.max_session_key_packets()).unwrap_or(u64::MAX),
                        Limit::SessionKeyPackets,
                    )?;
                    let body = &raw.body;
                    // Only packets this crate can use are kept, so what is held before the
                    // SEIPD stays small: an unknown algorithm's PKESK or an unusable SKESK
                    // may be a whole packet body (1 MiB by default) each, up to the count
                    // limit.
                    if raw.tag == Tag::Pkesk {
                        match Pkesk::parse(body) {
                            Ok(p) => {
                                recipients.push((&p.recipient).into());
                                if matches!(p.fields, PkeskFields::Unknown(_)) {
                                    unsupported.push((p.recipient, p.algorithm));
                                } else {
                                    pkesks.push(p);
                                }
                            }
                            Err(Error::Unsupported(_)) => {}
                            Err(e) => return Err(e),
                        }
                    } else {
                        match Skesk::parse(body) {
                            Ok(s) if usable_skesk(&s) => skesks.push(s),
                            Ok(_) | Err(Error::Unsupported(_)) => {}
                            Err(e) => return Err(e),
                        }
                    }
                }
                tag if tag.is_ignored_in_messages() => {}
                _ => return Err(Error::malformed("encrypted message: expected PKESK, SKESK or SEIPD")),
            }
        };

        // 2. The SEIPD fields: version (v1 is refused here), cipher, mode, chunk size, salt.
        let mut body = PartialBodyReader::new(armor, seipd_length);
        let header = SeipdHeader::read_from(&mut body)?;
        let key_len = header
            .sym
            .key_len()
            .ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(header.sym.into())))?;
        if header.aead.nonce_len().is_none() {
            return Err(Error::Unsupported(Unsupported::AeadAlgorithm(header.aead.into())));
        }

        // 3. The session key, with the keys the store has for the named recipients.
        let looked_up = match &self.store {
            Some(store) if !pkesks.is_empty() => store.secret_keys(&recipients)?,
            _ => Vec::new(),
        };
        let (session_key, decrypted_with) = match self
            .session_key_for(&header, key_len, &pkesks, &skesks, &looked_up, cancelled)?
        {
            Some(found) => found,
            None => {
                return Err(unsupported_key(&unsupported, self.keys.iter().chain(&looked_up)).map_or_else(
                    || Error::no_decryption_key(recipients),
                    |a| Error::Unsupported(Unsupported::PublicKeyAlgorithm(a)),
                ));
            }
        };

        // 4. The chunk engine and the packets before the literal data.
        let mut seipd = SeipdReader::new(body, &session_key, &header)?;
        if let Some(n) = threads {
            seipd.set_threads(n);
        }
        seipd.set_buffer_pool(self.pool.clone());
        let verify = self.verify || self.store.is_some();
        let message = MessageReader::new(seipd, self.limits, verify, |signatures| {
            let mut verifier = self.verifier.clone().limits(self.limits);
            if let Some(store) = &self.store {
                verifier.add_certs(store.certs(&signatures.issuers())?);
            }
            Ok(Some(verifier))
        })?;
        let info = message.literal().clone();
        Ok(DecryptReader { message, info, sym: header.sym, aead: header.aead, session_key, decrypted_with })
    }

    /// Finds the session key (see the type's documentation for the order); `None` if nothing
    /// given opens the message and no more precise error applies.
    fn session_key_for(
        &self,
        header: &SeipdHeader,
        key_len: usize,
        pkesks: &[Pkesk],
        skesks: &[Skesk],
        looked_up: &[Arc<Tsk>],
        cancelled: Option<&AtomicBool>,
    ) -> Result<Option<(SessionKey, DecryptedWith)>> {
        // Given session keys: the first that fits the cipher.
        for (i, (key, alg)) in self.session_keys.iter().enumerate() {
            if key.as_bytes().len() == key_len && alg.is_none_or(|a| a == header.sym) {
                return Ok(Some((SessionKey::from_bytes(key.as_bytes()), DecryptedWith::SessionKey(i))));
            }
        }
        // The first locked key that would have been tried, and whether a password the store
        // gave for one failed.
        let mut locked = None;
        let mut bad_key_password = false;
        // Locked keys the store gave a password for, unlocked once per message each (an
        // unlock may run Argon2: many PKESKs naming one key must not repeat it).
        let mut unlocked: Vec<(Fingerprint, Option<Box<Tsk>>)> = Vec::new();
        // PKESKs: named recipients, then anonymous ones with every key of the algorithm.
        for pkesk in pkesks {
            for tsk in self.keys.iter().chain(looked_up) {
                for (fingerprint, public) in keys_of(tsk) {
                    let matches = match &pkesk.recipient {
                        Recipient::V6(fp) => fp == fingerprint.as_bytes(),
                        Recipient::Anonymous => public.algorithm == pkesk.algorithm,
                        Recipient::V4(_) => false,
                    };
                    if !matches {
                        continue;
                    }
                    let secret = match tsk.secret_for(&fingerprint) {
                        Ok(s) => s,
                        Err(e @ Error::KeyLocked { .. }) => {
                            if !unlocked.iter().any(|(f, _)| *f == fingerprint) {
                                let copy =
                                    self.unlock_from_store(tsk, &fingerprint, &mut bad_key_password)?;
                                unlocked.push((fingerprint, copy));
                            }
                            let copy = unlocked
                                .iter()
                                .find(|(f, _)| *f == fingerprint)
                                .and_then(|(_, k)| k.as_deref());
                            match copy.map(|k| k.secret_for(&fingerprint)) {
                                Some(Ok(s)) => s,
                                _ => {
                                    locked = locked.or(Some(e));
                                    continue;
                                }
                            }
                        }
                        Err(_) => continue,
                    };
                    let dk = match pkesk.fields {
                        PkeskFields::MlKem768X25519 { .. } => self.expanded_key(&fingerprint),
                        _ => None,
                    };
                    if let Some(key) = try_pkesk(pkesk, public, secret, dk)
                        && key.as_bytes().len() == key_len
                    {
                        let with = DecryptedWith::Key { cert: tsk.fingerprint(), key: fingerprint };
                        return Ok(Some((key, with)));
                    }
                }
            }
        }
        // SKESKs: each password on each SKESK, at most `max_s2k_derivations` S2K runs in
        // all (each may cost seconds and gigabytes: a message must not multiply that).
        let mut limit_error = None;
        let mut derivations = 0usize;
        for (i, password) in self.passwords.iter().enumerate() {
            for skesk in skesks {
                // Only usable SKESKs were kept (`usable_skesk`), so each pass runs a derivation
                // and counts: unusable ones, which cost nothing, cannot use up the budget.
                let Ok((spec, key_len)) = skesk_s2k(skesk) else { continue };
                // Every parameter is checked before the budget is spent or anything derived.
                match s2k::check(&spec, key_len, &self.limits) {
                    Ok(()) => {}
                    Err(e @ Error::LimitExceeded(_)) => {
                        limit_error = Some(e);
                        continue;
                    }
                    Err(_) => continue,
                }
                if derivations >= self.limits.max_s2k_derivations() {
                    return Err(Error::LimitExceeded(Limit::S2kDerivations));
                }
                if cancelled.is_some_and(|c| c.load(Ordering::Relaxed)) {
                    return Err(Error::Io(io::Error::new(
                        io::ErrorKind::BrokenPipe,
                        "the stream was dropped",
                    )));
                }
                derivations = derivations.saturating_add(1);
                let derived = s2k::derive(&spec, password.as_bytes(), key_len, &self.limits);
                match derived.and_then(|s2k_key| decrypt_session_key(skesk, &s2k_key)) {
                    Ok(key) if key.as_bytes().len() == key_len => {
                        return Ok(Some((key, DecryptedWith::Password(i))));
                    }
                    Err(e @ Error::LimitExceeded(_)) => limit_error = Some(e),
                    Ok(_) | Err(_) => {}
                }
            }
        }
        Err(if bad_key_password {
            // The store's password did not open its key: a wrong password, not a locked key.
            Error::BadPassword
        } else if let Some(e) = locked {
            e
        } else if let Some(e) = limit_error {
            e
        } else if derivations > 0 {
            // Passwords were tried on the message's SKESKs: say so, rather than "not for you".
            Error::BadPassword
        } else {
            return Ok(None);
        })
    }

    /// A copy of the locked key `tsk`, unlocked with the password the key store gives for its
    /// key `fingerprint`; `None` if the store has no password for it, or (setting
    /// `bad_password`) the password opens nothing.
    ///
    /// # Errors
    /// The store's error; `LimitExceeded` if the key's S2K parameters exceed the limits.
    fn unlock_from_store(
        &self,
        tsk: &Tsk,
        fingerprint: &Fingerprint,
        bad_password: &mut bool,
    ) -> Result<Option<Box<Tsk>>> {
        let Some(store) = &self.store else { return Ok(None) };
        let Some(password) = store.password(fingerprint)? else { return Ok(None) };
        let mut copy = Box::new(tsk.clone());
        match copy.unlock_with_limits(&password, &self.limits) {
            Ok(_) => Ok(Some(copy)),
            Err(Error::BadPassword) => {
                *bad_password = true;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

impl Decryptor {
    /// The expanded ML-KEM decapsulation key of the (sub)key `fingerprint`, expanding every
    /// unlocked ML-KEM-768+X25519 key of `keys` the first time.
    fn expanded_key(&self, fingerprint: &Fingerprint) -> Option<&mlkem_x25519::DecapsulationKey> {
        let expanded = self.expanded.get_or_init(|| {
            let mut out = Vec::new();
            for tsk in &self.keys {
                for (key, _) in keys_of(tsk) {
                    if let Ok(SecretKeyMaterial::MlKem768X25519 { mlkem_seed, .. }) = tsk.secret_for(&key) {
                        out.push(ExpandedKey {
                            key,
                            dk: Box::new(mlkem_x25519::decapsulation_key(mlkem_seed)),
                        });
                    }
                }
            }
            out
        });
        expanded.iter().find(|e| e.key == *fingerprint).map(|e| &*e.dk)
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

/// Every key of `tsk` with its fingerprint: the primary key, then the subkeys.
fn keys_of(tsk: &Tsk) -> impl Iterator<Item = (Fingerprint, &PublicKeyPacket)> + '_ {
    tsk.cert().key_packets()
}

/// The algorithm of a given key that a PKESK of an algorithm this crate does not implement is
/// addressed to (by fingerprint, or anonymously to a key of its algorithm), if any: why a
/// message that no key opened cannot be decrypted, rather than "not for these keys".
fn unsupported_key<'k>(
    unsupported: &[(Recipient, PublicKeyAlgorithm)],
    keys: impl Iterator<Item = &'k Arc<Tsk>>,
) -> Option<u8> {
    keys.flat_map(|tsk| keys_of(tsk)).find_map(|(fingerprint, public)| {
        let PublicKeyAlgorithm::Unknown(id) = public.algorithm else { return None };
        let addressed = unsupported.iter().any(|(recipient, algorithm)| match recipient {
            Recipient::V6(fp) => fp == fingerprint.as_bytes(),
            Recipient::Anonymous => *algorithm == public.algorithm,
            Recipient::V4(_) => false,
        });
        addressed.then_some(id)
    })
}

/// Decrypts a PKESK with one key (its ML-KEM part already expanded in `dk`, if given); `None`
/// if the algorithms do not match or unwrapping fails.
fn try_pkesk(
    pkesk: &Pkesk,
    public: &PublicKeyPacket,
    secret: &SecretKeyMaterial,
    dk: Option<&mlkem_x25519::DecapsulationKey>,
) -> Option<SessionKey> {
    match (&pkesk.fields, &public.material, secret) {
        (
            PkeskFields::X25519 { ephemeral, wrapped_key },
            PublicKeyMaterial::X25519(public),
            SecretKeyMaterial::X25519(secret),
        ) => x25519::pkesk_decrypt(secret, public, ephemeral, wrapped_key).ok(),
        (
            PkeskFields::MlKem768X25519 { ecdh_ciphertext, mlkem_ciphertext, wrapped_key },
            PublicKeyMaterial::MlKem768X25519 { x25519, .. },
            SecretKeyMaterial::MlKem768X25519 { x25519: x_secret, mlkem_seed },
        ) => match dk {
            Some(dk) => mlkem_x25519::pkesk_decrypt_expanded(
                x_secret,
                x25519,
                dk,
                ecdh_ciphertext,
                mlkem_ciphertext,
                wrapped_key,
            ),
            None => mlkem_x25519::pkesk_decrypt(
                x_secret,
                x25519,
                mlkem_seed,
                ecdh_ciphertext,
                mlkem_ciphertext,
                wrapped_key,
            ),
        }
        .ok(),
        _ => None,
    }
}

/// Whether an SKESK can give a session key: a cipher and S2K this crate has, an AEAD mode it
/// has with a nonce of its length, and an encrypted key of the cipher's key length.
fn usable_skesk(skesk: &Skesk) -> bool {
    skesk_s2k(skesk).is_ok()
}

/// The S2K and key length of an SKESK, if this crate can derive its key and then use it: the
/// cipher, the mode and the nonce are checked here, before any derivation, so that an SKESK
/// refused for them costs nothing.
fn skesk_s2k(skesk: &Skesk) -> Result<(S2k, usize)> {
    let key_len =
        skesk.sym.key_len().ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(skesk.sym.into())))?;
    if AeadCipher::check(skesk.sym, skesk.aead)? != skesk.iv.len() {
        return Err(Error::malformed("SKESK: IV length"));
    }
    // `decrypt_session_key` accepts only a session key of the SKESK cipher's length.
    if skesk.encrypted_key.len() != key_len {
        return Err(Error::malformed("SKESK: encrypted session key length"));
    }
    Ok((S2k::parse(&skesk.s2k)?, key_len))
}

type Body<R> = SeipdReader<PartialBodyReader<ArmorReader<R>>>;

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

/// Decrypted plaintext of a message; made by [`Decryptor::reader`].
///
/// `Read` and `BufRead` give the literal data. Plaintext is released only after the chunk
/// holding it has been authenticated (the last chunk only after the final tag, too). `Ok(0)`
/// comes only once the final tag verified, the literal data ended exactly, only padding and
/// signatures followed it inside the encryption, and nothing follows the message. Any other
/// ending is an error, never a clean end of stream; after an error every read fails.
///
/// # Signatures: what is final when
///
/// With [`Decryptor::verify_with`], the literal data is hashed as the caller consumes it and
/// the signatures are checked when the trailing Signature packets have been decrypted, at the
/// end of the message. So:
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
    /// [`Decryptor::verify_with`] was used): first the signatures placed before the literal
    /// data, then those announced by One-Pass Signatures, outermost first. Only
    /// [`Verification::is_good`] ones vouch for the plaintext; an empty list means the message
    /// is not signed.
    pub verifications: Vec<Verification>,
}

impl DecryptSummary {
    /// Is the message signed by `cert`: does one of its signatures verify as good with a key
    /// of `cert` ([`Verification::is_signed_by`])? Always `false` without
    /// [`Decryptor::verify_with`] or a key store, since signatures are then not checked.
    #[must_use]
    pub fn is_signed_by(&self, cert: &Cert) -> bool {
        self.verifications.iter().any(|v| v.is_signed_by(cert))
    }
}

impl<R: BufRead> DecryptReader<R> {
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

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::crypto::secret::SessionKey;
    use crate::key::{KeyBuilder, Profile, from_timestamp};
    use crate::message::literal::LiteralWriter;
    use crate::message::seipd::SeipdWriter;
    use crate::message::sign::Signer;
    use crate::message::verify::VerificationStatus;
    use crate::packet::literal::LiteralHeader;
    use crate::packet::partial::PartialBodyWriter;

    const T0: u32 = 1_750_000_000;
    const KEY: [u8; 16] = [7; 16];

    fn key(name: &str) -> Tsk {
        KeyBuilder::new(Profile::Rfc9580).user_id(name).creation_time(from_timestamp(T0)).generate().unwrap()
    }

    /// `inner` (the packets inside the encryption) in a SEIPDv2 packet under `KEY`.
    fn encrypt_raw(inner: &[u8]) -> Vec<u8> {
        let framed = PartialBodyWriter::new(Vec::new(), Tag::Seipd);
        let session_key = SessionKey::from_bytes(&KEY);
        let mut w = SeipdWriter::new(
            framed,
            &session_key,
            SymmetricAlgorithm::Aes128,
            AeadAlgorithm::Ocb,
            0,
            [1; 32],
        )
        .unwrap();
        w.write_all(inner).unwrap();
        w.finish().unwrap().finish().unwrap()
    }

    fn decrypt_verify(msg: &[u8], certs: &[Cert]) -> Result<(Vec<u8>, Vec<Verification>)> {
        let mut r = Decryptor::default()
            .session_key(SessionKey::from_bytes(&KEY), Some(SymmetricAlgorithm::Aes128))
            .verify_with(certs)
            .at(from_timestamp(T0 + 200))
            .reader(msg)?;
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
        Ok((out, r.finish()?.verifications))
    }

    fn signer(tsk: &Tsk) -> Signer {
        Signer::new().key(tsk).creation_time(from_timestamp(T0 + 100))
    }

    #[test]
    fn tampered_signature_is_bad_but_the_message_decrypts() {
        let alice = key("Alice <alice@example.org>");
        let certs = [alice.to_cert()];
        let mut w = signer(&alice).inline_writer(Vec::new()).unwrap();
        w.write_all(b"signed data").unwrap();
        let inner = w.finish().unwrap();
        let (out, v) = decrypt_verify(&encrypt_raw(&inner), &certs).unwrap();
        assert_eq!(out, b"signed data");
        assert!(v[0].is_good());
        // Flip a bit of the Ed25519 signature (the last octets of the message).
        let mut bad = inner.clone();
        *bad.last_mut().unwrap() ^= 0x01;
        let (out, v) = decrypt_verify(&encrypt_raw(&bad), &certs).unwrap();
        assert_eq!(out, b"signed data");
        assert!(matches!(v[0].status(), VerificationStatus::Bad(_)), "{v:?}");
        // Flip a bit of the salt in the signature: it no longer matches its one-pass signature.
        // (The last salt octet is just before the 64-octet Ed25519 signature.)
        let last_salt_octet = inner.len() - 64 - 1;
        let mut bad = inner.clone();
        bad[last_salt_octet] ^= 0x01;
        let (_, v) = decrypt_verify(&encrypt_raw(&bad), &certs).unwrap();
        assert!(!v[0].is_good(), "{v:?}");
    }

    #[test]
    fn prefixed_and_one_pass_signatures_are_both_verified() {
        let alice = key("Alice <alice@example.org>");
        let bob = key("Bob <bob@example.org>");
        let certs = [alice.to_cert(), bob.to_cert()];
        // Bob's signature placed before Alice's one-pass signed message (RFC 9580 §10.3).
        let mut d = signer(&bob).detached().unwrap();
        d.write_all(b"payload").unwrap();
        let mut inner = d.finish().unwrap();
        let mut w = signer(&alice).inline_writer(Vec::new()).unwrap();
        w.write_all(b"payload").unwrap();
        inner.extend(w.finish().unwrap());
        let (out, v) = decrypt_verify(&encrypt_raw(&inner), &certs).unwrap();
        assert_eq!(out, b"payload");
        assert_eq!(v.len(), 2);
        assert!(v.iter().all(Verification::is_good), "{v:?}");
        assert_eq!(v[0].cert(), Some(bob.fingerprint()));
        assert_eq!(v[1].cert(), Some(alice.fingerprint()));

        // Only a prefixed signature over a plain literal packet.
        let mut d = signer(&bob).detached().unwrap();
        d.write_all(b"payload").unwrap();
        let mut inner = d.finish().unwrap();
        let mut l = LiteralWriter::new(Vec::new(), &LiteralHeader::binary()).unwrap();
        l.write_all(b"payload").unwrap();
        inner.extend(l.finish().unwrap());
        let (_, v) = decrypt_verify(&encrypt_raw(&inner), &certs).unwrap();
        assert_eq!(v.len(), 1);
        assert!(v[0].is_good());
    }

    #[test]
    fn structure_errors_are_errors_with_or_without_verification() {
        let alice = key("Alice <alice@example.org>");
        let certs = [alice.to_cert()];
        let mut w = signer(&alice).inline_writer(Vec::new()).unwrap();
        w.write_all(b"x").unwrap();
        let inner = w.finish().unwrap();
        // The trailing signature cut off: a one-pass signature without its signature.
        let mut l = LiteralWriter::new(Vec::new(), &LiteralHeader::binary()).unwrap();
        l.write_all(b"x").unwrap();
        let literal = l.finish().unwrap();
        // OPS + literal, no signature: find the literal packet and cut after it.
        let literal_at = inner.windows(literal.len()).position(|w| w == literal).unwrap();
        let cut = &inner[..literal_at + literal.len()];
        assert!(cut.len() < inner.len());
        for verify in [true, false] {
            let msg = encrypt_raw(cut);
            let d = Decryptor::default().session_key(SessionKey::from_bytes(&KEY), None);
            let d = if verify { d.verify_with(&certs) } else { d };
            let mut r = d.reader(&msg[..]).unwrap();
            assert!(r.read_to_end(&mut Vec::new()).is_err());
        }
    }

    /// One `Decryptor` decrypts many messages through `&self`, from several threads, with
    /// X25519 and ML-KEM-768+X25519 keys (the expanded key is reused), gives what the streaming
    /// reader gives, and rejects a modified or truncated message.
    #[test]
    fn decrypt_bytes_serves_many_messages_from_one_decryptor() {
        use crate::message::encrypt::Encryptor;
        for profile in [Profile::Rfc9580, Profile::Pqc] {
            let tsk = KeyBuilder::new(profile)
                .user_id("Bulk <bulk@example.org>")
                .creation_time(from_timestamp(T0))
                .generate()
                .unwrap();
            let cert = tsk.to_cert();
            let messages: Vec<(Vec<u8>, Vec<u8>)> = (0..6usize)
                .map(|i| {
                    let plain = vec![u8::try_from(i).unwrap(); 100 + i * 3000];
                    let mut w = Encryptor::new([&cert]).chunk_size(1024).writer(Vec::new()).unwrap();
                    w.write_all(&plain).unwrap();
                    (plain, w.finish().unwrap())
                })
                .collect();
            let decryptor = Decryptor::new([&tsk]);
            std::thread::scope(|s| {
                for _ in 0..2 {
                    let _ = s.spawn(|| {
                        for (plain, msg) in &messages {
                            let (out, summary) = decryptor.decrypt_bytes(msg).unwrap();
                            assert_eq!(&out, plain);
                            let mut r = Decryptor::new([&tsk]).reader(&msg[..]).unwrap();
                            let mut streamed = Vec::new();
                            let _ = r.read_to_end(&mut streamed).unwrap();
                            assert_eq!(streamed, out);
                            assert_eq!(&summary.decrypted_with, r.decrypted_with());
                        }
                    });
                }
            });
            let expanded = decryptor.expanded.get().map_or(0, Vec::len);
            assert_eq!(expanded, usize::from(profile == Profile::Pqc), "{profile:?}");
            let (_, msg) = &messages[3];
            for cut in [msg.len() - 1, msg.len() - 17, msg.len() / 2, 3] {
                assert!(decryptor.decrypt_bytes(&msg[..cut]).is_err(), "cut {cut}");
            }
            let mut bad = msg.clone();
            let at = bad.len() - 40;
            bad[at] ^= 1;
            assert!(decryptor.decrypt_bytes(&bad).is_err());
        }
    }
}
