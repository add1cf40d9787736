//! The start of an encrypted message (RFC 9580 §10.3): the ESK sequence, its PKESKs and SKESKs,
//! before the encrypted data. Read here, with one set of rules, for decryption and for
//! [`MessageInfo`](super::MessageInfo).
//!
//! ```text
//! (PKESK | SKESK | Marker | Padding | unknown non-critical packet)*  SEIPD
//! ```
//!
//! PKESKs and SKESKs of versions or algorithms this crate does not implement are skipped (and
//! listed as [`SkippedPacket`]s): a co-recipient's key must never make the message unreadable.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-10.3>

use std::io::BufRead;

use crate::crypto::s2k;
use crate::error::{Error, Limit, Result, Unsupported};
use crate::limits::Limits;
use crate::message::skesk::skesk_s2k;
use crate::packet::header::{Tag, peek_tag};
use crate::packet::pkesk::{self, Pkesk, PkeskFields};
use crate::packet::skesk::Skesk;
use crate::packet::{PacketBody, read_raw_packet};
use crate::types::{PublicKeyAlgorithm, Recipient};

/// A session-key packet that decryption does not try, and why ([`MessageInfo::skipped`]).
///
/// [`MessageInfo::skipped`]: crate::MessageInfo::skipped
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkippedPacket {
    /// A PKESK of a version or public-key algorithm this crate does not implement
    /// (`Unsupported::PkeskV3`, `PacketVersion`, `PublicKeyAlgorithm`, ...). A version 6 PKESK
    /// to an unknown algorithm still names its recipient in [`MessageInfo::recipients`].
    ///
    /// [`MessageInfo::recipients`]: crate::MessageInfo::recipients
    Pkesk(Unsupported),
    /// An SKESK no password can open here: what this crate does not implement about it (its
    /// version, cipher, AEAD mode or S2K), or `None` if its fields do not fit each other.
    Skesk(Option<Unsupported>),
    /// An SKESK whose S2K asks for more than the [`Limits`] allow: decryption runs no
    /// password through it, and fails with `LimitExceeded` of this limit if nothing else
    /// opens the message.
    SkeskOverLimit(Limit),
}

/// The session-key packets of an encrypted message, as decryption uses them.
#[derive(Debug, Default)]
pub(super) struct EskSequence {
    /// The PKESKs decryption can try, in order.
    pub(super) pkesks: Vec<Pkesk>,
    /// Every recipient the PKESKs name, usable or not: what a missing key is reported against
    /// and what a key store is asked for.
    pub(super) recipients: Vec<Recipient>,
    /// Whom the PKESKs of algorithms this crate does not implement are for, to say so if they
    /// are the only ones for the given keys.
    pub(super) unsupported: Vec<(pkesk::Recipient, PublicKeyAlgorithm)>,
    /// The SKESKs a password may open, in order, and those over the limits (which decryption
    /// reports if nothing else opens the message).
    pub(super) skesks: Vec<Skesk>,
    /// How many of `skesks` ask for more S2K work than the limits allow.
    pub(super) skesks_over_limit: usize,
    /// The PKESKs and SKESKs decryption does not try, in order.
    pub(super) skipped: Vec<SkippedPacket>,
}

impl EskSequence {
    /// Reads the packets before the SEIPD packet, whose header is left unread in `source`.
    ///
    /// Only packets this crate can use are kept, so what is held before the SEIPD stays small:
    /// an unknown algorithm's PKESK or an unusable SKESK may be a whole packet body (1 MiB by
    /// default) each, up to the count limit.
    ///
    /// # Errors
    /// `Truncated` if the input ends first; `Unsupported` for encrypted data without integrity
    /// protection, AEAD Encrypted Data or compressed data; `Malformed` for another packet or a
    /// PKESK or SKESK that does not parse; `LimitExceeded(SessionKeyPackets)`; I/O errors.
    pub(super) fn read(source: &mut impl BufRead, limits: &Limits) -> Result<Self> {
        let mut this = Self::default();
        let mut count = 0usize;
        loop {
            match peek_tag(source)? {
                None => return Err(Error::Truncated("encrypted message")),
                Some(Tag::Seipd) => return Ok(this),
                Some(Tag::SymmetricallyEncryptedData) => {
                    return Err(Error::Unsupported(Unsupported::Feature(
                        "symmetrically encrypted data without integrity protection",
                    )));
                }
                Some(Tag::CompressedData) => return Err(Error::Unsupported(Unsupported::CompressedData)),
                Some(Tag::AeadEncryptedData) => {
                    return Err(Error::Unsupported(Unsupported::AeadEncryptedData));
                }
                Some(tag) if tag.is_data() => {
                    return Err(Error::malformed("encrypted message: expected PKESK, SKESK or SEIPD"));
                }
                Some(_) => {}
            }
            let raw = read_raw_packet(source, limits)?.ok_or(Error::Truncated("encrypted message"))?;
            match raw.tag {
                Tag::Pkesk | Tag::Skesk => {
                    count = count.saturating_add(1);
                    Limits::check(
                        u64::try_from(count).unwrap_or(u64::MAX),
                        u64::try_from(limits.max_session_key_packets()).unwrap_or(u64::MAX),
                        Limit::SessionKeyPackets,
                    )?;
                    if raw.tag == Tag::Pkesk {
                        this.pkesk(Pkesk::parse(&raw.body))?;
                    } else {
                        this.skesk(Skesk::parse(&raw.body), limits)?;
                    }
                }
                tag if tag.is_ignored_in_messages() => {}
                _ => return Err(Error::malformed("encrypted message: expected PKESK, SKESK or SEIPD")),
            }
        }
    }

    /// Keeps a PKESK that decryption can try, or says why it is skipped.
    fn pkesk(&mut self, parsed: Result<Pkesk>) -> Result<()> {
        match parsed {
            Ok(p) => {
                self.recipients.push((&p.recipient).into());
                if matches!(p.fields, PkeskFields::Unknown(_)) {
                    let id = u8::from(p.algorithm);
                    self.skipped.push(SkippedPacket::Pkesk(Unsupported::PublicKeyAlgorithm(id)));
                    self.unsupported.push((p.recipient, p.algorithm));
                } else {
                    self.pkesks.push(p);
                }
            }
            Err(Error::Unsupported(why)) => self.skipped.push(SkippedPacket::Pkesk(why)),
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// Keeps an SKESK that a password may open, or says why it is skipped.
    fn skesk(&mut self, parsed: Result<Skesk>, limits: &Limits) -> Result<()> {
        match parsed {
            Ok(s) => match skesk_s2k(&s) {
                Ok((spec, key_len)) => {
                    if let Err(Error::LimitExceeded(limit)) = s2k::check(&spec, key_len, limits) {
                        self.skipped.push(SkippedPacket::SkeskOverLimit(limit));
                        self.skesks_over_limit = self.skesks_over_limit.saturating_add(1);
                    }
                    self.skesks.push(s);
                }
                Err(Error::Unsupported(why)) => self.skipped.push(SkippedPacket::Skesk(Some(why))),
                Err(_) => self.skipped.push(SkippedPacket::Skesk(None)),
            },
            Err(Error::Unsupported(why)) => self.skipped.push(SkippedPacket::Skesk(Some(why))),
            Err(e) => return Err(e),
        }
        Ok(())
    }
}
