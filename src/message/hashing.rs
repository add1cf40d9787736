//! Hashing signed data as binary or canonical text (RFC 9580 §5.2.1.1, §5.2.1.2), streaming.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.1.2>

use crate::crypto::HashAlgorithm;
use crate::crypto::hash::Hasher;
use crate::error::Result;
use crate::key::sig::start_hash;

/// How a document signature hashes its data.
///
/// [`SignatureMode::Text`] signs the canonical form of the text: every line ending (LF or
/// CR LF) is hashed as CR LF, so that the signature survives line-ending conversion
/// ([RFC 9580 §5.2.1.2](https://www.rfc-editor.org/rfc/rfc9580#section-5.2.1.2)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SignatureMode {
    /// Signature type 0x00: the octets as they are.
    #[default]
    Binary,
    /// Signature type 0x01: canonical text with CR LF line endings.
    Text,
}

/// A v6 signature hash over a document: salt first, then the data (canonicalized in text mode).
#[derive(Debug, Clone)]
pub(crate) struct DataHasher {
    hasher: Hasher,
    text: bool,
    /// The last octet fed was CR (text mode), so an LF that follows is already canonical.
    after_cr: bool,
}

impl DataHasher {
    /// Starts a hash of `algorithm` with the v6 `salt`.
    ///
    /// # Errors
    /// `Unsupported(HashAlgorithm)` for an algorithm this crate does not implement.
    pub(crate) fn new(algorithm: HashAlgorithm, salt: &[u8], mode: SignatureMode) -> Result<Self> {
        Ok(Self { hasher: start_hash(algorithm, salt)?, text: mode == SignatureMode::Text, after_cr: false })
    }

    /// Hashes more document data.
    pub(crate) fn update(&mut self, data: &[u8]) {
        if !self.text {
            self.hasher.update(data);
            return;
        }
        // Canonical text: an LF not preceded by CR becomes CR LF; everything else is kept.
        let mut rest = data;
        while let Some(lf) = rest.iter().position(|&b| b == b'\n') {
            let (line, tail) = rest.split_at(lf);
            let cr_before = match line.last() {
                Some(&b) => b == b'\r',
                None => self.after_cr,
            };
            self.hasher.update(line);
            self.hasher.update(if cr_before { b"\n" } else { b"\r\n" });
            self.after_cr = false;
            rest = tail.get(1..).unwrap_or_default();
        }
        if let Some(&last) = rest.last() {
            self.after_cr = last == b'\r';
        }
        self.hasher.update(rest);
    }

    /// The hash state, ready for the signature trailer.
    pub(crate) fn into_hasher(self) -> Hasher {
        self.hasher
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(mode: SignatureMode, pieces: &[&[u8]]) -> Vec<u8> {
        let mut h = DataHasher::new(HashAlgorithm::Sha256, b"", mode).unwrap();
        for p in pieces {
            h.update(p);
        }
        h.into_hasher().finish()
    }

    fn plain(data: &[u8]) -> Vec<u8> {
        digest(SignatureMode::Binary, &[data])
    }

    #[test]
    fn text_is_canonicalized_across_any_split() {
        let input = b"a\nb\r\n\r\nc\rd\n\n-e";
        let canonical = b"a\r\nb\r\n\r\nc\rd\r\n\r\n-e";
        assert_eq!(plain(canonical), digest(SignatureMode::Text, &[input]));
        for cut in 0..input.len() {
            let (x, y) = input.split_at(cut);
            assert_eq!(digest(SignatureMode::Text, &[x, y]), plain(canonical), "cut {cut}");
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(digest(SignatureMode::Text, &bytes), plain(canonical));
        assert_eq!(digest(SignatureMode::Binary, &bytes), plain(input));
    }
}
