//! Padding packets (RFC 9580 §5.14).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.14>

use std::io::{self, Write};

use crate::error::Result;
use crate::packet::header::Tag;
use crate::packet::{PacketBody, Serialize};

/// Padding: arbitrary octets, ignored by readers; it hides the size of a message or key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Padding(pub(crate) Vec<u8>);

impl PacketBody for Padding {
    const TAG: Tag = Tag::Padding;

    /// Parses a Padding packet body: any octets are accepted.
    fn parse(body: &[u8]) -> Result<Self> {
        Ok(Self(body.to_vec()))
    }
}

impl Serialize for Padding {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        w.write_all(&self.0)
    }

    fn encoded_len(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let pad = Padding(bytes);
            let mut out = Vec::new();
            pad.write_to(&mut out).unwrap();
            prop_assert_eq!(out.len(), pad.encoded_len());
            prop_assert_eq!(&out, &pad.to_vec());
            prop_assert_eq!(Padding::parse(&out).unwrap(), pad);
        }
    }
}
