//! ASCII armor ([RFC 9580 §6](https://www.rfc-editor.org/rfc/rfc9580#section-6)).
//!
//! [`ArmorWriter`] turns binary OpenPGP data into an armored block; [`ArmorReader`] turns an
//! armored block back into binary data, or passes binary input through unchanged. Both stream:
//! memory use is bounded by fixed buffers, whatever the size of the data.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod base64;
mod reader;
mod writer;

use std::io::BufRead;

use crate::crypto::secret::SecretVec;
use crate::error::{Error, Result};
use crate::pipeline::{Shape, policy};

pub use self::reader::ArmorReader;
pub use self::writer::ArmorWriter;

/// What an armored block holds, as named by its BEGIN and END lines
/// ([RFC 9580 §6.2](https://www.rfc-editor.org/rfc/rfc9580#section-6.2)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ArmorKind {
    /// `PGP MESSAGE`: an encrypted, signed or literal message.
    Message,
    /// `PGP PUBLIC KEY BLOCK`: one or more certificates.
    PublicKey,
    /// `PGP PRIVATE KEY BLOCK`: one or more transferable secret keys.
    PrivateKey,
    /// `PGP SIGNATURE`: a detached signature.
    Signature,
}

impl ArmorKind {
    /// Every kind, for matching a BEGIN line.
    const ALL: [Self; 4] = [Self::Message, Self::PublicKey, Self::PrivateKey, Self::Signature];

    /// The label between `-----BEGIN ` / `-----END ` and `-----`.
    const fn label(self) -> &'static str {
        match self {
            Self::Message => "PGP MESSAGE",
            Self::PublicKey => "PGP PUBLIC KEY BLOCK",
            Self::PrivateKey => "PGP PRIVATE KEY BLOCK",
            Self::Signature => "PGP SIGNATURE",
        }
    }

    /// The kind whose label is exactly `label`.
    fn from_label(label: &[u8]) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.label().as_bytes() == label)
    }
}

/// The dashes around a BEGIN or END label.
const DASHES: &[u8] = b"-----";

/// The pipeline of a threaded path, for blocks of `block_len` octets of text (the first block
/// on the calling thread).
fn block_pipeline_shape(block_len: usize) -> Shape {
    Shape {
        buf_len: block_len,
        max_depth: policy::depth_within(policy::armor::IN_FLIGHT_BUDGET, block_len),
        solo_jobs: 1,
    }
}

/// Gives `buf` room for `capacity` octets in one step (armor may hold a secret key; a
/// `SecretVec` wipes the allocation it leaves).
fn reserve_wiped(buf: &mut SecretVec, capacity: usize) {
    buf.reserve_exact(capacity.saturating_sub(buf.len()));
}

/// Skips whitespace and says whether the input ended: after an armored block's END line,
/// whether another block may follow.
///
/// # Errors
/// I/O errors of `input`.
pub(crate) fn only_whitespace_left(input: &mut impl BufRead) -> Result<bool> {
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::from_io(e)),
        };
        if buf.is_empty() {
            return Ok(true);
        }
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(skip) => {
                input.consume(skip);
                return Ok(false);
            }
            None => {
                let len = buf.len();
                input.consume(len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip() {
        for kind in ArmorKind::ALL {
            assert_eq!(ArmorKind::from_label(kind.label().as_bytes()), Some(kind));
        }
        assert_eq!(ArmorKind::from_label(b"PGP SIGNED MESSAGE"), None);
        assert_eq!(ArmorKind::from_label(b"PGP MESSAGE "), None);
    }
}
