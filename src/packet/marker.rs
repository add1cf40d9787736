//! Marker packets (RFC 9580 §5.8).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.8>

use std::io::{self, Write};

use crate::error::{Error, Result};
use crate::packet::header::Tag;
use crate::packet::{PacketBody, Serialize};

/// The body of every Marker packet: "PGP".
const MARKER_BODY: &[u8; 3] = b"PGP";

/// A Marker packet. Readers ignore it; its body is fixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Marker;

impl PacketBody for Marker {
    const TAG: Tag = Tag::Marker;

    /// Parses a Marker packet body.
    ///
    /// # Errors
    /// `Malformed` unless the body is exactly "PGP" (0x50, 0x47, 0x50).
    fn parse(body: &[u8]) -> Result<Self> {
        if body == MARKER_BODY {
            Ok(Self)
        } else {
            Err(Error::malformed("marker packet: body is not \"PGP\""))
        }
    }
}

impl Serialize for Marker {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        w.write_all(MARKER_BODY)
    }

    fn encoded_len(&self) -> usize {
        MARKER_BODY.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pgp() {
        assert_eq!(Marker::parse(b"PGP").unwrap(), Marker);
        assert_eq!(Marker.to_vec(), b"PGP");
        assert_eq!(Marker.encoded_len(), 3);
        for bad in [&b""[..], b"PG", b"PGPP", b"pgp"] {
            assert!(matches!(Marker::parse(bad), Err(Error::Malformed(_))));
        }
    }
}
