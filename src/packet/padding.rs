//! Padding packets (RFC 9580 §5.14).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.14>

use std::io::{self, Write};

use crate::error::Result;

/// Padding: arbitrary octets, ignored by readers; it hides the size of a message or key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Padding(pub(crate) Vec<u8>);

impl Padding {
    /// Parses a Padding packet body. Any octets are accepted.
    ///
    /// # Errors
    /// None; the `Result` keeps every packet parser's signature alike.
    #[allow(clippy::unnecessary_wraps, reason = "same signature as every packet parser")]
    pub(crate) fn parse(body: &[u8]) -> Result<Self> {
        Ok(Self(body.to_vec()))
    }

    /// Writes the packet body.
    ///
    /// # Errors
    /// The writer's errors.
    pub(crate) fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        w.write_all(&self.0)
    }

    /// Octets [`Padding::write_to`] writes.
    pub(crate) fn encoded_len(&self) -> usize {
        self.0.len()
    }

    #[allow(dead_code, reason = "uniform serialization interface; used by the round-trip tests")]
    /// The serialized body.
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        self.0.clone()
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
