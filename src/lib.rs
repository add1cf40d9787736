//! # sixpgp
//!
//! A pure-Rust OpenPGP library for the modern subset of the standard: v6 keys and signatures
//! (RFC 9580), SEIPDv2 AEAD encryption, Ed25519/X25519, and the post-quantum hybrids
//! ML-KEM-768+X25519 and ML-DSA-65+Ed25519 (RFC 9980).
#![forbid(unsafe_code)]
// Feature badges on docs.rs, which builds with nightly and `--cfg docsrs`; stable ignores it.
#![cfg_attr(docsrs, feature(doc_cfg))]
//!
//! Only version 6 keys and signatures, SEIPDv2 and the algorithms above are implemented. There
//! are no v4 keys, no SEIPDv1, no compression and no legacy algorithms: such input gets a typed
//! [`Error::Unsupported`] naming what was found.
//!
//! # Guide
//!
//! ## Keys and certificates
//!
//! A [`Tsk`] (transferable secret key) holds a [`Cert`] (the public part) and the secret key
//! material. [`KeyBuilder`] makes one from a [`Profile`]; both parse from armored or binary
//! input and serialize back byte for byte. A certificate can be looked at through
//! [`Cert::keys`] ([`KeyInfo`]: algorithm, flags, expiration, revocation, validity at a time),
//! [`Cert::primary_user_id`] and [`Cert::expiration_time`].
//!
//! A secret key may be locked with a password. [`Tsk::unlock`] opens it (and says
//! [`Error::BadPassword`] if the password opens nothing); [`Tsk::lock`] protects it with
//! AES-256-OCB and Argon2.
//!
//! ```
//! # fn main() -> sixpgp::Result<()> {
//! use std::time::SystemTime;
//! use sixpgp::{Cert, Error, KeyBuilder, Password, Profile, Tsk};
//!
//! let mut tsk = KeyBuilder::new(Profile::Pqc)
//!     .user_id("Alice <alice@example.org>")
//!     .password("correct horse")
//!     .generate()?;
//! let cert: Cert = tsk.to_cert();
//! assert_eq!(Cert::from_bytes(cert.to_armored().as_bytes())?, cert);
//! assert_eq!(cert.primary_user_id(SystemTime::now()).as_deref(), Some("Alice <alice@example.org>"));
//! for key in cert.keys() {
//!     println!("{} {:?} {:?}", key.fingerprint(), key.algorithm(), key.flags(SystemTime::now()));
//! }
//!
//! assert!(tsk.is_locked());
//! assert!(matches!(tsk.unlock(&Password::from("wrong")), Err(Error::BadPassword)));
//! tsk.unlock(&Password::from("correct horse"))?;
//! assert!(!tsk.is_locked());
//! # let _ = Tsk::from_bytes(&tsk.to_vec())?;
//! # Ok(()) }
//! ```
//!
//! ## Encryption and decryption
//!
//! [`Encryptor`] builds a message to certificates and passwords and ends in an
//! [`EncryptWriter`], a `Write` whose [`finish`](EncryptWriter::finish) completes the
//! message; [`Decryptor`] holds the keys, passwords and limits to open messages with, and
//! makes one [`DecryptReader`] per message. Both take keys and certificates owned, as `Arc`s
//! or by reference (copied), so they can live as long as a service. A `Decryptor` is `Sync`:
//! share one behind an `Arc` between threads.
//!
//! Plaintext is released only after the AEAD chunk holding it has been authenticated, and
//! `read` returns `Ok(0)` only once the final tag verified and the message ended exactly: a
//! truncated or modified message is an error, never a clean end. [`DecryptReader::finish`]
//! confirms it and returns the [`DecryptSummary`].
//!
//! ```
//! # fn main() -> sixpgp::Result<()> {
//! use std::io::{Read, Write};
//! use std::sync::Arc;
//! use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};
//!
//! let alice = KeyBuilder::new(Profile::Rfc9580).user_id("Alice <alice@example.org>").generate()?;
//! let bob = KeyBuilder::new(Profile::Rfc9580).user_id("Bob <bob@example.org>").generate()?;
//! let alice_cert = alice.to_cert();
//! let mut w = Encryptor::new([bob.to_cert()]).signer(&alice).armor(true).writer(Vec::new())?;
//! w.write_all(b"Hello, Bob")?;
//! let message = w.finish()?;
//!
//! // Built once, shared: Bob's key, and the certificates whose signatures he checks.
//! let decryptor = Arc::new(Decryptor::new([bob]).verify_with([&alice_cert]));
//! let mut r = decryptor.reader(&message[..])?;          // one reader per message
//! let mut plaintext = Vec::new();
//! r.read_to_end(&mut plaintext)?;
//! let summary = r.finish()?;
//! assert_eq!(plaintext, b"Hello, Bob");
//! assert!(summary.is_signed_by(&alice_cert));           // from Alice, not merely signed
//! # Ok(()) }
//! ```
//!
//! For data held in memory, [`Encryptor::encrypt_bytes`] and [`Decryptor::decrypt_bytes`] do
//! the same in one call. [`MessageInfo`] tells, before decrypting, whom a message is for; a
//! [`KeyStore`] lets the decryptor ask a keyring for just the keys a message names (and for
//! the passwords of locked ones). Its lookups may fail with the store's own error
//! ([`Error::KeyStore`]), and what it returns is trusted as given: a certificate it returns
//! for a signer is that signer.
//!
//! ## Signing and verification verdicts
//!
//! [`Signer`] makes detached, inline or cleartext signatures; [`Verifier`] checks them, and
//! [`Decryptor::verify_with`] checks the signatures inside an encrypted message. A bad or
//! uncheckable signature is not an error: each signature gets a [`Verification`] whose
//! [`VerificationStatus`] is `Good`, `Bad(`[`BadReason`]`)` or
//! `Unverifiable(`[`UnverifiableReason`]`)`, and names the signer's certificate
//! ([`Verification::signer`]). A good signature says only that *some* given certificate signed:
//! ask [`Verification::is_signed_by`] (or [`DecryptSummary::is_signed_by`]) about the one that
//! must have. Streamed data is released before its signatures are checked: act on it only once
//! `finish` has returned a good verdict.
//!
//! ```
//! # fn main() -> sixpgp::Result<()> {
//! use sixpgp::{BadReason, KeyBuilder, Profile, Signer, VerificationStatus, Verifier};
//!
//! let alice = KeyBuilder::new(Profile::Rfc9580).user_id("Alice <alice@example.org>").generate()?;
//! let signature = Signer::new().key(&alice).armor(true).sign_bytes(b"the document")?;
//! let alice_cert = alice.to_cert();
//! let verifier = Verifier::new([&alice_cert]);
//! let verdicts = verifier.clone().verify_bytes(&signature, b"the document")?;
//! assert!(verdicts.iter().any(|v| v.is_signed_by(&alice_cert)));   // good, and by Alice
//! assert_eq!(verdicts[0].signer().map(|c| c.fingerprint()), Some(alice_cert.fingerprint()));
//! let verdicts = verifier.verify_bytes(&signature, b"another document")?;
//! assert_eq!(verdicts[0].status(), VerificationStatus::Bad(BadReason::Invalid));
//! # Ok(()) }
//! ```
//!
//! ## Errors
//!
//! Every fallible function returns [`Error`], whose variants a caller can match: which
//! certificate (and which of its subkeys) cannot be used and why ([`Error::KeyUnusable`] with a
//! [`KeyProblem`]), a wrong password ([`Error::BadPassword`]) as opposed to a message not for
//! these keys ([`Error::NoDecryptionKey`], listing whom it is for) or a locked key
//! ([`Error::KeyLocked`], naming it), an authentication failure ([`Error::Decrypt`], opaque on
//! purpose), a limit ([`Error::LimitExceeded`]), a key store that failed ([`Error::KeyStore`]). The streaming adapters carry an `Error` inside
//! the `io::Error` they return; [`Error::from_io`] recovers it. A stream that failed reports
//! its first error again on every later call.
//!
//! ## Limits
//!
//! Every resource an input can make the library spend (Argon2 memory and passes, S2K runs,
//! packet sizes, counts of session-key packets and signatures) is bounded by a [`Limits`],
//! checked before the allocation or computation. Builders take it with `.limits(..)`,
//! functions with a `_with_limits` variant. The defaults open every legitimate input known;
//! [`Limits::untrusted_input`] is the preset for servers handling input from anyone.
//!
//! ```
//! # fn main() -> sixpgp::Result<()> {
//! use sixpgp::{Decryptor, Error, Limit, Limits};
//! let decryptor = Decryptor::default().password("pw").limits(Limits::untrusted_input());
//! # let _ = decryptor;
//! # Ok(()) }
//! ```
//!
//! ## Secrets in memory
//!
//! Secret key material lives in heap allocations of its own that are wiped when dropped, so
//! moving a [`Tsk`] (into a `Vec` that grows, an `Arc`, a [`Decryptor`]) moves pointers and
//! leaves no copy behind; `Debug` never prints secret material, nor the S2K salt, IV or
//! encrypted secret of a locked key. [`Decryptor::decrypt_bytes`] and
//! [`Decryptor::decrypt_all`] collect plaintext in a buffer that is wiped unless it is handed
//! over: a message that fails leaves none of its plaintext in freed memory. What the caller
//! keeps (the plaintext returned, a [`Tsk::to_vec`]) is the caller's to wipe.
//!
//! ## Async
//!
//! With the `async` feature, `Encryptor::async_writer`, `Signer::async_inline_writer`,
//! `Decryptor::async_reader` and `Verifier::async_inline_reader` give `futures-io`
//! adapters (from tokio, through `tokio_util::compat`). Nothing costly runs on the executor:
//! the writers' set-up (an Argon2 run per password, the recipients' key agreements) runs on a
//! thread of its own while their constructor is awaited, and each reader parses and decrypts
//! on a thread of its own, which a dropped reader stops at its next piece of at most 64 KiB
//! or its next S2K run. For input from the network, give the [`Decryptor`] or [`Verifier`]
//! [`Limits::untrusted_input`] (at most two Argon2 runs of at most 64 MiB per message, smaller
//! packets), and bound how many streams run at once: each reader holds a thread and up to
//! about 512 KiB of buffers besides the chunk buffers.
//!
//! ## Many messages
//!
//! For message after message to the same recipients, evaluate them once with [`Recipients`]
//! and pass them to [`Encryptor::prepared`]. For many small messages to decrypt,
//! [`Decryptor::decrypt_all`] spreads a batch over the available cores, and
//! [`Encryptor::encrypt_all`] encrypts a batch of small values the same way; a large message is
//! encrypted and decrypted on several cores by itself ([`Encryptor::threads`]), with the same
//! output whatever the thread count.
//!
//! ## Where to start
//!
//! - Keys: [`Cert`], [`Tsk`], [`KeyBuilder`] (by [`Profile`]), [`KeyUpdate`], [`KeyInfo`];
//!   the values they are named by: [`Fingerprint`], [`KeyId`], the algorithm enums.
//! - Encryption: [`Encryptor`] → [`EncryptWriter`]; [`Recipients`] evaluated once for many
//!   messages.
//! - Decryption: [`Decryptor`] → [`DecryptReader`] and [`DecryptSummary`]; [`MessageInfo`]
//!   to look at a message first; [`KeyStore`] to supply keys on demand; [`BufferPool`].
//! - Signing: [`Signer`] → [`SignWriter`] (detached), [`InlineSignWriter`],
//!   [`CleartextSignWriter`].
//! - Verification: [`Verifier`] → [`DetachedVerifier`], [`InlineVerifyReader`],
//!   [`CleartextMessage`]; each signature's verdict is a [`Verification`].
//! - ASCII armor on its own: [`ArmorReader`], [`ArmorWriter`].
//! - [`Error`] and its reasons, [`Limits`], and [`backend`] (which implementations run).
//!
//! ARCHITECTURE.md in the repository describes the layers and their invariants.

mod armor;
#[cfg(feature = "async")]
mod async_io;
mod crypto;
mod error;
mod key;
mod limits;
mod message;
mod packet;
mod pipeline;
mod signature;
mod types;

pub use crate::armor::{ArmorKind, ArmorReader, ArmorWriter};
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use crate::async_io::{
    AsyncDecryptReader, AsyncEncryptWriter, AsyncInlineSignWriter, AsyncInlineVerifyReader,
};
pub use crate::crypto::secret::{Password, SessionKey};
pub use crate::crypto::{Backend, Implementation, backend};
pub use crate::error::{Error, KeyProblem, Limit, Malformed, Result, Unsupported};
pub use crate::key::{
    Cert, KeyBuilder, KeyFlags, KeyInfo, KeyUpdate, Profile, ReasonForRevocation, Revocation, Tsk,
};
pub use crate::limits::Limits;
pub use crate::message::{
    BadReason, CleartextMessage, CleartextSignWriter, DecryptReader, DecryptSummary, DecryptedWith,
    Decryptor, DetachedVerifier, EncryptWriter, Encryptor, InlineSignWriter, InlineVerifyReader, KeyStore,
    LiteralInfo, MessageInfo, Purpose, Recipients, SeekSummary, SeekableReader, SignWriter, Signer,
    SkippedPacket, UnverifiableReason, Verification, VerificationStatus, Verifier, is_cleartext_signed,
};
pub use crate::packet::literal::DataFormat;
pub use crate::packet::signature::SignatureType;
pub use crate::pipeline::BufferPool;
pub use crate::signature::SignatureMode;
pub use crate::types::{
    AeadAlgorithm, Fingerprint, HashAlgorithm, KeyId, PublicKeyAlgorithm, Recipient, SymmetricAlgorithm,
};

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;

#[cfg(feature = "bench-internals")]
#[doc(hidden)]
pub mod bench_internals;

/// This library's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The `rand_core` crate, re-exported so that callers can name the RNG traits that
/// [`KeyBuilder::rng`] and the other `rng` hooks accept.
pub use rand_core;

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
