//! # sixpgp
//!
//! A pure-Rust OpenPGP library for the modern subset of the standard: v6 keys and signatures
//! (RFC 9580), SEIPDv2 AEAD encryption, Ed25519/X25519, and the post-quantum hybrids
//! ML-KEM-768+X25519 and ML-DSA-65+Ed25519 (RFC 9980).
#![forbid(unsafe_code)]

mod armor;
mod crypto;
mod error;
mod key;
mod limits;
mod message;
mod packet;

pub use crate::armor::{ArmorKind, ArmorReader, ArmorWriter};
pub use crate::crypto::secret::{Password, SessionKey};
pub use crate::crypto::{AeadAlgorithm, HashAlgorithm, PublicKeyAlgorithm, SymmetricAlgorithm};
pub use crate::error::{Error, Limit, Malformed, Result, Unsupported};
pub use crate::limits::Limits;
pub use crate::packet::signature::SignatureType;

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
