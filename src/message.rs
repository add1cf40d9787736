//! Messages: encryption, decryption, signing and verification streams.
//!
//! This layer combines the packet framing (`packet`) with the cryptography (`crypto`), one
//! file per production of the message grammar (RFC 9580 §10.3): `esk` the session-key packets
//! before the encrypted data, `seipd` the SEIPDv2 chunk engine, `signed` the signed message,
//! `literal` the Literal Data packet; the public builders and streams sit on top of them.
//! ARCHITECTURE.md maps every file.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod batch;
mod cleartext;
mod decrypt;
mod decrypt_reader;
mod decrypt_seek;
mod encrypt;
mod esk;
mod hash_pipe;
mod hashes;
mod inspect;
mod io;
mod literal;
mod literal_info;
mod lookup;
mod recipients;
mod seipd;
mod session_key;
mod sign;
mod signed;
pub(crate) mod skesk;
mod verdict;
mod verifier;
mod verify;

pub use cleartext::{CleartextMessage, CleartextSignWriter, is_cleartext_signed};
pub use decrypt::Decryptor;
pub use decrypt_reader::{DecryptReader, DecryptSummary};
pub use decrypt_seek::{SeekSummary, SeekableReader};
pub use encrypt::{EncryptWriter, Encryptor};
pub use esk::SkippedPacket;
pub use inspect::MessageInfo;
pub use literal_info::LiteralInfo;
pub use lookup::KeyStore;
pub use recipients::{Purpose, Recipients};
pub use session_key::DecryptedWith;
pub use sign::{InlineSignWriter, SignWriter, Signer};
pub use verdict::{BadReason, UnverifiableReason, Verification, VerificationStatus};
pub use verifier::Verifier;
pub use verify::{DetachedVerifier, InlineVerifyReader};

// For the async adapters, a layer above, which read through the same `BufRead` pattern.
#[cfg(feature = "async")]
pub(crate) use io::read_via_fill_buf;
