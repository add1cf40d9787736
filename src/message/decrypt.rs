//! The decryption builder ([`Decryptor`]): what a message is opened with, and the stack that
//! reads one.
//!
//! Accepted grammar (RFC 9580 §10.3), after optional armor:
//!
//! ```text
//! (PKESK | SKESK | Marker | Padding)*
//!   SEIPDv2 { Signature* OPS* Literal Signature* }      (Padding and Marker anywhere inside)
//! Unknown non-critical packets (type IDs 40-63) are skipped wherever Padding is (RFC 9580 §4.3).
//! ```
//!
//! The session-key packets are read by `esk` (which skips those this crate cannot use), the
//! session key is found by `session_key`, and the signed message inside the SEIPD packet is
//! read by `signed`: there must be as many signatures after the literal data as One-Pass
//! Signatures before it. The signatures are verified (in the same pass, hashing the literal
//! data as it is released) when the caller asks for it with [`Decryptor::verify_with`];
//! otherwise their structure is checked only.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-10.3>

use std::fmt;
use std::io::{BufRead, Read, Seek};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::SystemTime;

use crate::armor::ArmorReader;
use crate::crypto::aead::KeyedAead;
use crate::crypto::secret::{Password, SessionKey};
use crate::error::{Error, Result, Unsupported};
use crate::key::{Cert, Tsk};
use crate::limits::Limits;
use crate::message::decrypt_reader::DecryptReader;
use crate::message::decrypt_seek::SeekableReader;
use crate::message::esk::EskSequence;
use crate::message::lookup::{KeyStore, SharedStore};
use crate::message::seipd::SeipdReader;
use crate::message::session_key::KeySources;
use crate::message::signed::MessageReader;
use crate::message::verifier::Verifier;
use crate::packet::header::Header;
use crate::packet::partial::PartialBodyReader;
use crate::packet::seipd::SeipdHeader;
use crate::pipeline::{BufferPool, policy};
use crate::types::SymmetricAlgorithm;

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
    /// Keys, passwords, session keys and the key store.
    sources: KeySources,
    limits: Limits,
    /// Whether to verify signatures, and against what.
    verify: bool,
    verifier: Verifier,
    threads: Option<usize>,
    /// The chunk buffers its streams leave, for the next ones.
    pool: BufferPool,
}

impl fmt::Debug for Decryptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decryptor")
            .field("keys", &self.sources.keys.iter().map(|k| k.fingerprint()).collect::<Vec<_>>())
            .field("passwords", &self.sources.passwords.len())
            .field("session_keys", &self.sources.session_keys.len())
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
            sources: KeySources::new(keys.into_iter().map(Into::into).collect()),
            limits: Limits::default(),
            verify: false,
            verifier: Verifier::new(Vec::<Cert>::new()),
            threads: None,
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
        self.sources.keys.push(key.into());
        self
    }

    /// Adds a password to try on the message's SKESKs.
    #[must_use]
    pub fn password(mut self, password: impl Into<Password>) -> Self {
        self.sources.passwords.push(password.into());
        self
    }

    /// Adds a session key, with its cipher if known. It is used if its length (and cipher, if
    /// given) matches the message. A session key cannot be checked before the first chunk is
    /// decrypted: a wrong one makes [`reader`](Decryptor::reader) fail with [`Error::Decrypt`].
    #[must_use]
    pub fn session_key(mut self, key: SessionKey, algorithm: Option<SymmetricAlgorithm>) -> Self {
        self.sources.session_keys.push((key, algorithm));
        self
    }

    /// Verifies the signatures inside the message against the signing keys of `certs`
    /// (repeatable; the certificates add up). The verdicts are in
    /// [`DecryptSummary::verifications`](crate::DecryptSummary::verifications), one per
    /// signature; without this call the signatures are listed there unchecked, as
    /// [`UnverifiableReason::NotRequested`](crate::UnverifiableReason).
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
        self.sources.store = Some(SharedStore::new(store));
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

    /// The thread count given to [`threads`](Decryptor::threads), if any.
    pub(super) fn thread_count(&self) -> Option<usize> {
        self.threads
    }

    /// [`reader`](Decryptor::reader) without consuming the builder.
    pub(super) fn open<R: BufRead>(&self, source: R) -> Result<DecryptReader<R>> {
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

    /// Opens a binary message in a seekable `source` (from its current position) for random
    /// access to its plaintext: see [`SeekableReader`] for what is authenticated when, and
    /// which messages seek in O(1) chunks. Signatures inside the message are not verified,
    /// even with [`verify_with`](Self::verify_with). Nothing is decrypted but the chunks the
    /// reads touch (and the first, which holds the literal data header).
    ///
    /// # Errors
    /// `InvalidArgument` for armored input (dearmor it first: an armored message cannot be
    /// read at an offset); otherwise as [`reader`](Self::reader).
    pub fn seekable_reader<R: Read + Seek>(&self, source: R) -> Result<SeekableReader<R>> {
        SeekableReader::open(source, &self.limits, |esk, header, key_len| {
            self.sources.find(esk, header, key_len, &self.limits, None)
        })
    }

    /// [`open`](Decryptor::open) with the chunk thread count `threads`.
    pub(super) fn open_with<R: BufRead>(
        &self,
        source: R,
        threads: Option<usize>,
        cancelled: Option<&AtomicBool>,
    ) -> Result<DecryptReader<R>> {
        let armor_threads = policy::armor::message_threads(threads);
        let mut armor =
            ArmorReader::with_limits(source, &self.limits).threads(armor_threads).read_ahead(true);
        let armored = armor.detect()?.is_some();

        // 1. The session-key packets, up to the SEIPD packet.
        let esk = EskSequence::read(&mut armor, &self.limits)?;
        let seipd_length =
            Header::read_from(&mut armor)?.ok_or(Error::Truncated("encrypted message"))?.length;

        // 2. The SEIPD fields: version (v1 is refused here), cipher, mode, chunk size, salt.
        let mut body = PartialBodyReader::new(armor, seipd_length);
        let header = SeipdHeader::read_from(&mut body)?;
        let _ = KeyedAead::check(header.sym, header.aead)?;
        let key_len = header
            .sym
            .key_len()
            .ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(header.sym.into())))?;

        // 3. The session key, with the keys the store has for the named recipients.
        let (session_key, decrypted_with) =
            self.sources.find(&esk, &header, key_len, &self.limits, cancelled)?;

        // 4. The chunk engine and the packets before the literal data.
        let mut seipd = SeipdReader::new(body, &session_key, &header)?;
        if let Some(n) = threads {
            seipd.set_threads(n);
        }
        let verify = self.verify || self.sources.store.is_some();
        if policy::caller_bound(armored, verify) {
            seipd.set_caller_bound();
        }
        seipd.set_buffer_pool(self.pool.clone());
        let message = MessageReader::new(seipd, self.limits, verify, |signatures| {
            let mut verifier = self.verifier.clone().limits(self.limits);
            if let Some(store) = &self.sources.store {
                verifier.add_certs(store.certs(&signatures.issuers())?);
            }
            Ok(Some(verifier))
        })?;
        Ok(DecryptReader::new(message, header.sym, header.aead, session_key, decrypted_with))
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;
    use crate::crypto::secret::SessionKey;
    use crate::key::{KeyBuilder, Profile, from_timestamp};
    use crate::message::literal::LiteralWriter;
    use crate::message::seipd::SeipdWriter;
    use crate::message::sign::Signer;
    use crate::message::verdict::{Verification, VerificationStatus};
    use crate::packet::header::Tag;
    use crate::packet::literal::LiteralHeader;
    use crate::packet::partial::PartialBodyWriter;
    use crate::types::AeadAlgorithm;

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
    /// X25519 and ML-KEM-768+X25519 keys, gives what the streaming
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
