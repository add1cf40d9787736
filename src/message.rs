//! Messages: encryption, decryption, signing and verification streams.
//!
//! This layer combines the packet framing (`packet`) with the cryptography (`crypto`):
//! `seipd` is the SEIPDv2 chunk engine, `skesk` derives and unwraps v6 SKESK session keys,
//! `literal` frames and unframes Literal Data packets; `encrypt` and `decrypt` are the public
//! builders and streams on top of them.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

pub(crate) mod cleartext;
mod decrypt;
mod encrypt;
pub(crate) mod hashing;
mod info;
pub(crate) mod literal;
mod parallel;
pub(crate) mod seipd;
pub(crate) mod sign;
pub(crate) mod skesk;
pub(crate) mod verify;

pub use decrypt::{DecryptReader, DecryptSummary, DecryptedWith, Decryptor};
pub use encrypt::{EncryptWriter, Encryptor, Purpose};
pub use info::{DataFormat, LiteralInfo};
