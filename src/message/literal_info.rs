//! The public view of a message's Literal Data header: format, file name and date.

use std::time::SystemTime;

use crate::packet::literal::{DataFormat, LiteralHeader};

/// The metadata of a message's Literal Data packet: format, file name and date.
///
/// These fields are *not* covered by any signature and are set freely by the sender; treat
/// them as hints (RFC 9580 §5.9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiteralInfo {
    format: DataFormat,
    filename: Vec<u8>,
    date: u32,
}

impl LiteralInfo {
    pub(super) fn from_header(header: &LiteralHeader) -> Self {
        Self { format: header.format, filename: header.filename.clone(), date: header.date }
    }

    /// The format octet.
    #[must_use]
    pub fn format(&self) -> DataFormat {
        self.format
    }

    /// The file name octets (at most 255, not necessarily UTF-8; usually empty).
    #[must_use]
    pub fn filename(&self) -> &[u8] {
        &self.filename
    }

    /// The date field, or `None` when it is 0 (not given).
    #[must_use]
    pub fn date(&self) -> Option<SystemTime> {
        (self.date != 0).then(|| crate::key::from_timestamp(self.date))
    }
}
