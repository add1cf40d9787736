//! [`Packet`]: any non-data packet a certificate or key holds, parsed by its type.

use std::io::{self, Write};

use crate::crypto::secret::SecretVec;
use crate::error::Result;
use crate::limits::Limits;
use crate::packet::header::{Header, Tag};
use crate::packet::key::{PublicKeyPacket, SecretKeyPacket};
use crate::packet::marker::Marker;
use crate::packet::padding::Padding;
use crate::packet::signature::SignaturePacket;
use crate::packet::user_id::UserId;
use crate::packet::{PacketBody, RawPacket, Serialize};

/// A parsed non-data packet.
#[derive(Debug)]
pub(crate) enum Packet {
    PublicKey(PublicKeyPacket),
    PublicSubkey(PublicKeyPacket),
    SecretKey(SecretKeyPacket),
    SecretSubkey(SecretKeyPacket),
    Signature(SignaturePacket),
    UserId(UserId),
    Padding(Padding),
    Marker,
    /// A packet type this layer does not parse, kept verbatim.
    Other {
        tag: u8,
        body: Vec<u8>,
    },
}

impl Packet {
    /// Parses the body of a raw packet according to its type, within `limits` (the subpacket
    /// count of a signature).
    ///
    /// # Errors
    /// The errors of the packet type's parser.
    pub(crate) fn from_raw(raw: &RawPacket, limits: &Limits) -> Result<Self> {
        let body = raw.body.as_slice();
        Ok(match raw.tag {
            Tag::PublicKey => Self::PublicKey(PacketBody::parse(body)?),
            Tag::PublicSubkey => Self::PublicSubkey(PacketBody::parse(body)?),
            Tag::SecretKey => Self::SecretKey(PacketBody::parse(body)?),
            Tag::SecretSubkey => Self::SecretSubkey(PacketBody::parse(body)?),
            Tag::Signature => Self::Signature(SignaturePacket::parse_with_limits(body, limits)?),
            Tag::UserId => Self::UserId(PacketBody::parse(body)?),
            Tag::Padding => Self::Padding(PacketBody::parse(body)?),
            Tag::Marker => {
                let Marker = PacketBody::parse(body)?;
                Self::Marker
            }
            other => Self::Other { tag: u8::from(other), body: body.to_vec() },
        })
    }

    /// The packet type.
    pub(crate) fn tag(&self) -> Tag {
        match self {
            Self::PublicKey(_) => Tag::PublicKey,
            Self::PublicSubkey(_) => Tag::PublicSubkey,
            Self::SecretKey(_) => Tag::SecretKey,
            Self::SecretSubkey(_) => Tag::SecretSubkey,
            Self::Signature(_) => Tag::Signature,
            Self::UserId(_) => Tag::UserId,
            Self::Padding(_) => Tag::Padding,
            Self::Marker => Tag::Marker,
            Self::Other { tag, .. } => Tag::from(*tag),
        }
    }

    /// Octets of the body alone.
    pub(super) fn body_len(&self) -> usize {
        match self {
            Self::PublicKey(k) | Self::PublicSubkey(k) => k.encoded_len(),
            Self::SecretKey(k) | Self::SecretSubkey(k) => k.encoded_len(),
            Self::Signature(s) => s.encoded_len(),
            Self::UserId(u) => u.encoded_len(),
            Self::Padding(p) => p.encoded_len(),
            Self::Marker => Marker.encoded_len(),
            Self::Other { body, .. } => body.len(),
        }
    }

    /// Writes the body alone (no header).
    ///
    /// # Errors
    /// The writer's errors, or `InvalidInput` if a field does not fit its length field.
    pub(crate) fn write_body(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        match self {
            Self::PublicKey(k) | Self::PublicSubkey(k) => k.write_to(w),
            Self::SecretKey(k) | Self::SecretSubkey(k) => k.write_to(w),
            Self::Signature(s) => s.write_to(w),
            Self::UserId(u) => u.write_to(w),
            Self::Padding(p) => p.write_to(w),
            Self::Marker => Marker.write_to(w),
            Self::Other { body, .. } => w.write_all(body),
        }
    }
}

/// A whole packet: a header with the shortest fixed length, then the body.
impl Serialize for Packet {
    /// A packet may hold secret key material.
    type Buf = SecretVec;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        Header::fixed(self.tag(), self.body_len())?.write_to(w)?;
        self.write_body(w)
    }

    fn encoded_len(&self) -> usize {
        let body_len = self.body_len();
        let header_len = Header::fixed(self.tag(), body_len).map_or(0, |h| h.encoded_len());
        header_len.saturating_add(body_len)
    }
}
