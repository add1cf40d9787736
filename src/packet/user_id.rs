//! User ID packets (RFC 9580 §5.11).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.11>

use std::io::{self, Write};

use crate::error::Result;
use crate::packet::header::Tag;
use crate::packet::{PacketBody, Serialize};

/// A User ID: arbitrary octets, by convention UTF-8 `Name <email>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UserId(pub(crate) Vec<u8>);

impl From<Vec<u8>> for UserId {
    fn from(v: Vec<u8>) -> Self {
        Self(v)
    }
}

impl UserId {
    /// The User ID octets.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl PacketBody for UserId {
    const TAG: Tag = Tag::UserId;

    /// Parses a User ID packet body: any octets are accepted.
    fn parse(body: &[u8]) -> Result<Self> {
        Ok(Self(body.to_vec()))
    }
}

impl Serialize for UserId {
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
            let uid = UserId(bytes);
            let mut out = Vec::new();
            uid.write_to(&mut out).unwrap();
            prop_assert_eq!(out.len(), uid.encoded_len());
            prop_assert_eq!(&out, &uid.to_vec());
            prop_assert_eq!(UserId::parse(&out).unwrap(), uid);
        }
    }
}
