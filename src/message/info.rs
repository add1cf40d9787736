//! Public descriptions of a message's contents: the literal data format and metadata.

use std::time::SystemTime;

use crate::packet::literal::{LiteralFormat, LiteralHeader};

/// The format octet of a Literal Data packet (RFC 9580 §5.9).
///
/// <https://www.rfc-editor.org/rfc/rfc9580#section-5.9>
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum DataFormat {
    /// `b`: binary data (the default).
    #[default]
    Binary,
    /// `u`: UTF-8 text. What [`Encryptor::format`](crate::Encryptor::format) writes for text.
    Utf8,
    /// `t`: text, the deprecated form of `u`; accepted on decryption.
    Text,
    /// Any other format octet, as found.
    Unknown(u8),
}

impl From<LiteralFormat> for DataFormat {
    fn from(f: LiteralFormat) -> Self {
        match f {
            LiteralFormat::Binary => Self::Binary,
            LiteralFormat::Utf8 => Self::Utf8,
            LiteralFormat::Text => Self::Text,
            LiteralFormat::Other(v) => Self::Unknown(v),
        }
    }
}

impl From<DataFormat> for LiteralFormat {
    fn from(f: DataFormat) -> Self {
        match f {
            DataFormat::Binary => Self::Binary,
            DataFormat::Utf8 => Self::Utf8,
            DataFormat::Text => Self::Text,
            DataFormat::Unknown(v) => Self::from(v),
        }
    }
}

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
    pub(crate) fn from_header(header: &LiteralHeader) -> Self {
        Self { format: header.format.into(), filename: header.filename.clone(), date: header.date }
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
