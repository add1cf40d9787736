//! Splitting a packet stream into certificates and secret keys (RFC 9580 §10.1, §10.2).
//!
//! Lenient where the spec asks for it: signatures of unknown versions, user attributes, subkeys
//! of unknown versions with their signatures, padding, marker and trust packets are skipped.
//! Strict about everything else: a non-v6 primary key or a misplaced packet is an error.

use std::io::BufRead;

use crate::armor::ArmorReader;
use crate::error::{Error, Limit, Result};
use crate::key::cert::{Cert, SubkeyBinding, UserIdBinding};
use crate::key::sig::VerifyCache;
use crate::limits::Limits;
use crate::packet::header::Tag;
use crate::packet::key::{PublicKeyPacket, SecretKeyData, SecretKeyPacket};
use crate::packet::{Packet, RawPacket, read_raw_packet};
use crate::types::Fingerprint;

/// One parsed key: the certificate, plus the secret parts if the input had them.
#[derive(Debug)]
pub(super) struct ParsedKey {
    pub(crate) cert: Cert,
    /// `Some` when the primary key was a Secret-Key packet.
    pub(crate) secrets: Option<Secrets>,
}

/// Secret parts of a transferable secret key, parallel to the certificate's keys.
#[derive(Debug, Clone)]
pub(crate) struct Secrets {
    pub(crate) primary: SecretKeyData,
    /// One entry per `cert.subkeys`, `None` where only the public subkey was present.
    pub(super) subkeys: Vec<Option<SecretKeyData>>,
}

/// Which component signatures currently attach to.
enum Current {
    Primary,
    UserId,
    Subkey,
    /// A component we skip (user attribute, unsupported subkey): drop its signatures.
    Skipped,
}

struct Builder {
    cert: Cert,
    secrets: Option<Secrets>,
    current: Current,
}

impl Builder {
    fn new(primary: PublicKeyPacket, secret: Option<SecretKeyData>) -> Self {
        let fingerprint = Fingerprint::of(&primary);
        Self {
            cert: Cert {
                primary,
                fingerprint,
                primary_sigs: Vec::new(),
                user_ids: Vec::new(),
                subkeys: Vec::new(),
                verified: VerifyCache::default(),
            },
            secrets: secret.map(|primary| Secrets { primary, subkeys: Vec::new() }),
            current: Current::Primary,
        }
    }

    fn add_subkey(&mut self, key: PublicKeyPacket, secret: Option<SecretKeyData>) {
        let fingerprint = Fingerprint::of(&key);
        self.cert.subkeys.push(SubkeyBinding { key, fingerprint, sigs: Vec::new() });
        if let Some(s) = &mut self.secrets {
            s.subkeys.push(secret);
        }
        self.current = Current::Subkey;
    }

    fn finish(self) -> ParsedKey {
        ParsedKey { cert: self.cert, secrets: self.secrets }
    }
}

/// Reading certificates: the parser below, for the public API.
impl Cert {
    /// Parses exactly one certificate, armored or binary.
    ///
    /// A transferable secret key is accepted too; its secret parts are dropped. A second
    /// certificate, in the same armored block or in another, is an error, never dropped.
    ///
    /// # Errors
    /// `Malformed`/`Truncated` for broken input, `Unsupported` for a non-v6 primary key, and
    /// `InvalidArgument` if the input holds no certificate or more than one.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_reader(bytes)
    }

    /// Parses exactly one certificate, armored or binary, from a stream.
    ///
    /// # Errors
    /// As [`Cert::from_bytes`].
    pub fn from_reader(reader: impl BufRead) -> Result<Self> {
        let mut all = Self::read_all(reader)?;
        match all.len() {
            1 => all.pop().ok_or(Error::InvalidArgument("no certificate found")),
            0 => Err(Error::InvalidArgument("no certificate found")),
            _ => Err(Error::InvalidArgument("more than one certificate found")),
        }
    }

    /// Parses every certificate in a stream (a keyring): binary, or any number of armored
    /// blocks one after the other, separated by nothing but whitespace.
    ///
    /// # Errors
    /// As [`Cert::from_bytes`], except that any number of certificates is fine; `Malformed` for
    /// anything but whitespace or another block after an armored block.
    pub fn read_all(reader: impl BufRead) -> Result<Vec<Self>> {
        Self::read_all_with_limits(reader, &Limits::default())
    }

    /// [`Cert::read_all`] with explicit resource limits.
    ///
    /// # Errors
    /// As [`Cert::from_bytes`], and `LimitExceeded` when the input goes past `limits`.
    pub fn read_all_with_limits(reader: impl BufRead, limits: &Limits) -> Result<Vec<Self>> {
        Ok(parse_keyring(reader, limits)?.into_iter().map(|k| k.cert).collect())
    }
}

/// Reads every key in `reader`: binary, or one or more armored blocks one after the other (as
/// `cat` of several armored files, or a key server, gives them). Every block is read: a
/// keyring must not lose a certificate to its framing.
pub(super) fn parse_keyring(mut reader: impl BufRead, limits: &Limits) -> Result<Vec<ParsedKey>> {
    let mut keys = Vec::new();
    let mut totals = Totals::default();
    loop {
        // The armor reader is read from directly: its buffers are wiped, where a `BufReader`'s
        // would leave the secret key packets it held in freed memory.
        let mut input = ArmorReader::with_limits(&mut reader, limits);
        let armored = input.detect()?.is_some();
        parse_packets(&mut input, limits, &mut totals, &mut keys)?;
        // Binary input is read to its end; an armored block ends at its END line, and
        // another block may follow.
        if !armored || crate::armor::only_whitespace_left(input.into_inner())? {
            return Ok(keys);
        }
    }
}

/// What a whole keyring has used of its limits, over all its armored blocks.
#[derive(Default)]
struct Totals {
    packets: usize,
    octets: usize,
}

/// Reads every key from a binary packet stream into `keys`.
fn parse_packets(
    input: &mut impl BufRead,
    limits: &Limits,
    totals: &mut Totals,
    keys: &mut Vec<ParsedKey>,
) -> Result<()> {
    let mut current: Option<Builder> = None;
    while let Some(raw) = read_raw_packet(input, limits)? {
        totals.packets = totals.packets.saturating_add(1);
        totals.octets = totals.octets.saturating_add(raw.body.len());
        if totals.octets > limits.max_keyring_len() {
            return Err(Error::LimitExceeded(Limit::KeyringLength));
        }
        Limits::check(totals.packets as u64, limits.max_cert_packets() as u64, Limit::CertPackets)?;
        match raw.tag {
            Tag::PublicKey | Tag::SecretKey => {
                if let Some(b) = current.take() {
                    keys.push(b.finish());
                }
                current = Some(primary_builder(&raw, limits)?);
            }
            Tag::Padding | Tag::Marker | Tag::Trust => {}
            _ => {
                let b = current.as_mut().ok_or(Error::misplaced_packet(
                    "certificate: first packet is not a primary key",
                    u8::from(raw.tag),
                ))?;
                component(b, &raw, limits)?;
            }
        }
    }
    if let Some(b) = current.take() {
        keys.push(b.finish());
    }
    Ok(())
}

fn primary_builder(raw: &RawPacket, limits: &Limits) -> Result<Builder> {
    match Packet::from_raw(raw, limits)? {
        Packet::PublicKey(k) => Ok(Builder::new(k, None)),
        Packet::SecretKey(SecretKeyPacket { public, secret }) => Ok(Builder::new(public, Some(secret))),
        _ => Err(Error::malformed("certificate: unexpected primary key packet")),
    }
}

fn component(b: &mut Builder, raw: &RawPacket, limits: &Limits) -> Result<()> {
    match raw.tag {
        Tag::Signature => {
            let sig = match Packet::from_raw(raw, limits) {
                Ok(Packet::Signature(sig)) => sig,
                // A signature that does not parse (another version, an unknown algorithm, or
                // malformed) is skipped, not fatal: anyone can append a third-party
                // signature to a certificate, and one bad packet must not make the
                // certificate unusable. Its extent is known, and it counts against the
                // packet limit like any other.
                Ok(_) | Err(Error::Unsupported(_) | Error::Malformed(_) | Error::Truncated(_)) => {
                    return Ok(());
                }
                Err(e) => return Err(e),
            };
            let list = match b.current {
                Current::Primary => &mut b.cert.primary_sigs,
                Current::UserId => match b.cert.user_ids.last_mut() {
                    Some(u) => &mut u.sigs,
                    None => return Ok(()),
                },
                Current::Subkey => match b.cert.subkeys.last_mut() {
                    Some(s) => &mut s.sigs,
                    None => return Ok(()),
                },
                Current::Skipped => return Ok(()),
            };
            if list.len() >= limits.max_signatures() {
                return Err(Error::LimitExceeded(Limit::Signatures));
            }
            list.push(sig);
        }
        Tag::UserId => {
            if let Packet::UserId(user_id) = Packet::from_raw(raw, limits)? {
                b.cert.user_ids.push(UserIdBinding { user_id, sigs: Vec::new() });
                b.current = Current::UserId;
            }
        }
        Tag::UserAttribute => b.current = Current::Skipped,
        Tag::PublicSubkey | Tag::SecretSubkey => match Packet::from_raw(raw, limits) {
            Ok(Packet::PublicSubkey(k)) => b.add_subkey(k, None),
            Ok(Packet::SecretSubkey(SecretKeyPacket { public, secret })) => {
                b.add_subkey(public, Some(secret));
            }
            Ok(_) => return Err(Error::malformed("certificate: bad subkey packet")),
            // A subkey of another version is skipped with its signatures.
            Err(Error::Unsupported(_)) => b.current = Current::Skipped,
            Err(e) => return Err(e),
        },
        // Unknown packet types in the non-critical range are skipped (RFC 9580 §4.3).
        Tag::Other(t) if t >= 40 => {}
        tag => return Err(misplaced(&b.current, tag)),
    }
    Ok(())
}

/// The error for a packet that has no place in a certificate: one of an unknown critical type
/// (RFC 9580 §4.3: "a critical packet of an unknown type" makes the whole sequence invalid, where
/// a non-critical one, 40 to 63, is skipped), or a known type that certificates do not hold;
/// and after which component it came.
fn misplaced(current: &Current, tag: Tag) -> Error {
    let critical_unknown = matches!(tag, Tag::Other(_));
    let context = match (critical_unknown, current) {
        (true, Current::Primary) => "certificate: unknown critical packet type after the primary key",
        (true, Current::UserId) => "certificate: unknown critical packet type after a user ID",
        (true, Current::Subkey) => "certificate: unknown critical packet type after a subkey",
        (true, Current::Skipped) => "certificate: unknown critical packet type after a skipped component",
        (false, Current::Primary) => "certificate: packet type not allowed after the primary key",
        (false, Current::UserId) => "certificate: packet type not allowed after a user ID",
        (false, Current::Subkey) => "certificate: packet type not allowed after a subkey",
        (false, Current::Skipped) => "certificate: packet type not allowed after a skipped component",
    };
    Error::misplaced_packet(context, u8::from(tag))
}
