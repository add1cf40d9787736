//! Looking at a message before decrypting or verifying it: whom it is encrypted to, how many
//! passwords open it, who signed it (as far as the packets before the data say).

use std::io::BufRead;

use crate::armor::ArmorReader;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::packet::PacketBody;
use crate::packet::header::Tag;
use crate::packet::one_pass::OnePass;
use crate::packet::pkesk::Pkesk;
use crate::packet::read_raw_packet;
use crate::packet::signature::SignaturePacket;
use crate::packet::skesk::Skesk;
use crate::types::Fingerprint;
use crate::types::Recipient;

/// What the packets at the start of a message say about it ([`MessageInfo::from_bytes`]).
///
/// For an encrypted message: its recipients and password packets (who signed it is inside the
/// encryption). For an inline-signed message: the signing keys its One-Pass Signatures (and
/// any signatures before the data) name. Nothing here is authenticated: it is what the message
/// claims, for choosing keys.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct MessageInfo {
    /// Is the message encrypted (a SEIPD packet follows the session-key packets)?
    pub encrypted: bool,
    /// The recipients of the v6 PKESK packets, in order.
    pub recipients: Vec<Recipient>,
    /// How many v6 SKESK packets (passwords) the message has.
    pub passwords: usize,
    /// For an unencrypted signed message, the signing keys its signatures name, in order.
    pub signers: Vec<Fingerprint>,
}

impl MessageInfo {
    /// Reads the start of a message (armored or binary) up to its encrypted or literal data.
    ///
    /// # Errors
    /// `Malformed`/`Truncated` for broken packets, `LimitExceeded` past the default
    /// [`Limits`], `Unsupported` for compressed data; I/O errors.
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
        let mut info = Self::default();
        let mut packets = 0usize;
        loop {
            match crate::message::verify::peek_tag(&mut r)? {
                None => return Err(Error::Truncated("message: no encrypted or literal data")),
                Some(Tag::Seipd | Tag::SymmetricallyEncryptedData) => {
                    info.encrypted = true;
                    return Ok(info);
                }
                Some(Tag::LiteralData | Tag::CompressedData) => return Ok(info),
                Some(_) => {}
            }
            packets = packets.saturating_add(1);
            if packets > limits.max_session_key_packets().saturating_add(limits.max_signatures()) {
                return Err(Error::LimitExceeded(crate::error::Limit::SessionKeyPackets));
            }
            let Some(raw) = read_raw_packet(&mut r, limits)? else {
                return Err(Error::Truncated("message"));
            };
            match raw.tag {
                Tag::Pkesk => {
                    if let Ok(p) = Pkesk::parse(&raw.body) {
                        info.recipients.push((&p.recipient).into());
                    }
                }
                Tag::Skesk if Skesk::parse(&raw.body).is_ok() => {
                    info.passwords = info.passwords.saturating_add(1);
                }
                Tag::OnePassSignature => {
                    // A v3 One-Pass Signature names a v4 key, which is not a signer this crate
                    // can name.
                    if let OnePass::V6(ops) = OnePass::parse(&raw.body)? {
                        info.signers.push(Fingerprint::from_bytes(ops.fingerprint));
                    }
                }
                Tag::Signature => {
                    let issuer = SignaturePacket::parse_with_limits(&raw.body, limits)
                        .ok()
                        .and_then(|s| s.issuer_fingerprint().and_then(|f| <[u8; 32]>::try_from(f).ok()));
                    info.signers.extend(issuer.map(Fingerprint::from_bytes));
                }
                _ => {}
            }
        }
    }
}
