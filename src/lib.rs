//! # sixpgp
//!
//! A pure-Rust OpenPGP library for the modern subset of the standard: v6 keys and signatures
//! (RFC 9580), SEIPDv2 AEAD encryption, Ed25519/X25519, and the post-quantum hybrids
//! ML-KEM-768+X25519 and ML-DSA-65+Ed25519 (RFC 9980).
#![forbid(unsafe_code)]
//!
//! ## Scope
//!
//! Only version 6 keys and signatures, SEIPDv2 and the algorithms above. There are no v4 keys,
//! no SEIPDv1, no compression and no legacy algorithms: such input gets a typed
//! [`Error::Unsupported`] naming what was found.
//!
//! ## Keys
//!
//! ```
//! # fn main() -> sixpgp::Result<()> {
//! use sixpgp::{Cert, KeyBuilder, Profile, Tsk};
//!
//! let tsk = KeyBuilder::new(Profile::Pqc).user_id("Alice <alice@example.org>").generate()?;
//! let cert: Cert = tsk.to_cert();
//! let armored = cert.to_armored();
//! assert_eq!(Cert::from_bytes(armored.as_bytes())?, cert);
//! let again = Tsk::from_bytes(&tsk.to_vec())?;
//! assert_eq!(again.fingerprint(), tsk.fingerprint());
//! # Ok(()) }
//! ```
//!
//! ## Module map
//!
//! - `packet`: parsing and serializing packets (no cryptography);
//! - `crypto`: the OpenPGP constructions on RustCrypto primitives (no I/O);
//! - `armor`: streaming ASCII armor ([`ArmorReader`], [`ArmorWriter`]);
//! - `signature`: v6 signature hashing, making and checking over any signed content
//!   ([`SignatureMode`]);
//! - `key`: [`Cert`], [`Tsk`], [`KeyBuilder`], self-signature evaluation;
//! - `message`: the streaming encryption and decryption adapters.
//!
//! Every limit on what input may make the library spend lives in [`Limits`].

mod armor;
mod crypto;
mod error;
mod key;
mod limits;
mod message;
mod packet;
mod signature;

pub use crate::armor::{ArmorKind, ArmorReader, ArmorWriter};
pub use crate::crypto::secret::{Password, SessionKey};
pub use crate::crypto::{AeadAlgorithm, HashAlgorithm, PublicKeyAlgorithm, SymmetricAlgorithm};
pub use crate::error::{Error, KeyProblem, Limit, Malformed, Result, Unsupported};
pub use crate::key::{
    Cert, Fingerprint, KeyBuilder, KeyFlags, KeyId, KeyInfo, KeyUpdate, Profile, ReasonForRevocation, Tsk,
};
pub use crate::limits::Limits;
pub use crate::message::cleartext::{CleartextMessage, CleartextSignWriter, is_cleartext_signed};
pub use crate::message::sign::{InlineSignWriter, SignWriter, Signer};
pub use crate::message::verify::{
    BadReason, DetachedVerifier, InlineVerifyReader, UnverifiableReason, Verification, VerificationStatus,
    Verifier,
};
pub use crate::message::{
    DataFormat, DecryptReader, DecryptSummary, DecryptedWith, Decryptor, EncryptWriter, Encryptor, KeyStore,
    LiteralInfo, MessageInfo, Purpose, Recipient, Recipients,
};
pub use crate::packet::signature::SignatureType;
pub use crate::signature::SignatureMode;

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
