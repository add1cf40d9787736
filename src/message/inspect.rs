//! Looking at a message before decrypting or verifying it: whom it is encrypted to, how many
//! passwords open it, who signed it (as far as the packets before the data say).

use std::io::BufRead;

use crate::armor::ArmorReader;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::message::esk::{EskSequence, SkippedPacket};
use crate::message::signed::named_signers;
use crate::packet::header::{Tag, peek_tag};
use crate::packet::read_raw_packet;
use crate::types::{Fingerprint, Recipient};

/// What the packets at the start of a message say about it ([`MessageInfo::from_bytes`]).
///
/// For an encrypted message: its recipients and password packets (who signed it is inside the
/// encryption), read with the same rules as decryption reads them, so that this is what
/// [`Decryptor`](crate::Decryptor) will try. For an inline-signed message: the signing keys
/// its One-Pass Signatures (and any signatures before the data) name. Nothing here is
/// authenticated: it is what the message claims, for choosing keys.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct MessageInfo {
    /// Is the message encrypted (a SEIPD packet follows the session-key packets)?
    pub encrypted: bool,
    /// The recipients of the v6 PKESK packets, in order, including those of public-key
    /// algorithms this crate does not implement (also listed in [`skipped`](Self::skipped)).
    pub recipients: Vec<Recipient>,
    /// How many SKESK packets (passwords) decryption will try a password on: not those over
    /// the limits, which are in [`skipped`](Self::skipped).
    pub passwords: usize,
    /// The PKESK and SKESK packets decryption will not try (of versions, algorithms or S2K
    /// specifiers this crate does not implement, or S2K parameters over the limits given),
    /// in order, and why. Padding, Marker and
    /// unknown non-critical packets, which every reader ignores, are not listed.
    pub skipped: Vec<SkippedPacket>,
    /// For an unencrypted signed message, the signing keys its signatures name, in order.
    pub signers: Vec<Fingerprint>,
}

impl MessageInfo {
    /// Reads the start of a message (armored or binary) up to its encrypted or literal data.
    ///
    /// # Errors
    /// `Malformed`/`Truncated` for broken packets, `LimitExceeded` past the default
    /// [`Limits`], `Unsupported` for compressed data; I/O errors. An encrypted message fails
    /// here as [`Decryptor::reader`](crate::Decryptor::reader) fails on its session-key
    /// packets.
    pub fn from_bytes(message: &[u8]) -> Result<Self> {
        Self::from_reader(message, &Limits::default())
    }

    /// [`MessageInfo::from_bytes`] from a stream, with explicit limits. Reads no further than
    /// the start of the encrypted or literal data.
    ///
    /// # Errors
    /// As [`MessageInfo::from_bytes`].
    pub fn from_reader(source: impl BufRead, limits: &Limits) -> Result<Self> {
        let mut r = ArmorReader::with_limits(source, limits);
        let _ = r.detect()?;
        // The first packet that is not ignored says which message this is.
        loop {
            match peek_tag(&mut r)? {
                None => return Err(Error::Truncated("message: no encrypted or literal data")),
                Some(tag) if tag.is_ignored_in_messages() => {
                    let _ = read_raw_packet(&mut r, limits)?;
                }
                Some(Tag::Signature | Tag::OnePassSignature | Tag::LiteralData | Tag::CompressedData) => {
                    return Self::signed(&mut r, limits);
                }
                Some(_) => return Self::encrypted(&mut r, limits),
            }
        }
    }

    /// The session-key packets of an encrypted message, read as decryption reads them.
    fn encrypted(r: &mut impl BufRead, limits: &Limits) -> Result<Self> {
        let esk = EskSequence::read(r, limits)?;
        Ok(Self {
            encrypted: true,
            recipients: esk.recipients,
            passwords: esk.skesks.len().saturating_sub(esk.skesks_over_limit),
            skipped: esk.skipped,
            signers: Vec::new(),
        })
    }

    /// The signers an inline-signed message names before its literal data.
    fn signed(r: &mut impl BufRead, limits: &Limits) -> Result<Self> {
        Ok(Self { signers: named_signers(r, limits)?, ..Self::default() })
    }
}
