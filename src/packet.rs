//! The OpenPGP packet layer (RFC 9580 §4, §5): parsing and serializing, no cryptography.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

pub(crate) mod header;
pub(crate) mod key;
pub(crate) mod literal;
pub(crate) mod marker;
pub(crate) mod padding;
pub(crate) mod partial;
pub(crate) mod pkesk;
pub(crate) mod reader;
pub(crate) mod s2k;
pub(crate) mod seipd;
pub(crate) mod signature;
pub(crate) mod skesk;
pub(crate) mod subpacket;
pub(crate) mod user_id;
