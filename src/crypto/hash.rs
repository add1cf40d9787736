//! Hash functions by OpenPGP algorithm ID (RFC 9580 §9.5).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-9.5>
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use std::io;

use sha2::Digest;

use crate::error::{Error, Result, Unsupported};
use crate::types::HashAlgorithm;

/// An incremental hash over one of the algorithms this crate implements.
#[derive(Clone)]
pub(crate) enum Hasher {
    /// SHA2-224.
    Sha224(sha2::Sha224),
    /// SHA2-256.
    Sha256(sha2::Sha256),
    /// SHA2-384.
    Sha384(sha2::Sha384),
    /// SHA2-512.
    Sha512(sha2::Sha512),
    /// SHA3-256.
    Sha3_256(sha3::Sha3_256),
    /// SHA3-512.
    Sha3_512(sha3::Sha3_512),
}

impl std::fmt::Debug for Hasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The state may be derived from secret data; print only the algorithm.
        write!(f, "Hasher({:?})", self.algorithm())
    }
}

impl Hasher {
    /// A fresh hasher for `algo`.
    ///
    /// # Errors
    /// `Unsupported(HashAlgorithm)` for an algorithm this crate does not implement.
    pub(crate) fn new(algo: HashAlgorithm) -> Result<Self> {
        Ok(match algo {
            HashAlgorithm::Sha224 => Self::Sha224(sha2::Sha224::new()),
            HashAlgorithm::Sha256 => Self::Sha256(sha2::Sha256::new()),
            HashAlgorithm::Sha384 => Self::Sha384(sha2::Sha384::new()),
            HashAlgorithm::Sha512 => Self::Sha512(sha2::Sha512::new()),
            HashAlgorithm::Sha3_256 => Self::Sha3_256(sha3::Sha3_256::new()),
            HashAlgorithm::Sha3_512 => Self::Sha3_512(sha3::Sha3_512::new()),
            HashAlgorithm::Unknown(id) => {
                return Err(Error::Unsupported(Unsupported::HashAlgorithm(id)));
            }
        })
    }

    /// The algorithm this hasher computes.
    pub(crate) fn algorithm(&self) -> HashAlgorithm {
        match self {
            Self::Sha224(_) => HashAlgorithm::Sha224,
            Self::Sha256(_) => HashAlgorithm::Sha256,
            Self::Sha384(_) => HashAlgorithm::Sha384,
            Self::Sha512(_) => HashAlgorithm::Sha512,
            Self::Sha3_256(_) => HashAlgorithm::Sha3_256,
            Self::Sha3_512(_) => HashAlgorithm::Sha3_512,
        }
    }

    /// Absorbs `data`.
    pub(crate) fn update(&mut self, data: &[u8]) {
        match self {
            Self::Sha224(h) => h.update(data),
            Self::Sha256(h) => h.update(data),
            Self::Sha384(h) => h.update(data),
            Self::Sha512(h) => h.update(data),
            Self::Sha3_256(h) => h.update(data),
            Self::Sha3_512(h) => h.update(data),
        }
    }

    /// The digest.
    pub(crate) fn finish(self) -> Vec<u8> {
        match self {
            Self::Sha224(h) => h.finalize().to_vec(),
            Self::Sha256(h) => h.finalize().to_vec(),
            Self::Sha384(h) => h.finalize().to_vec(),
            Self::Sha512(h) => h.finalize().to_vec(),
            Self::Sha3_256(h) => h.finalize().to_vec(),
            Self::Sha3_512(h) => h.finalize().to_vec(),
        }
    }
}

impl io::Write for Hasher {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// SHA2-256 of `data`.
pub(crate) fn sha256(data: &[u8]) -> [u8; 32] {
    sha2::Sha256::digest(data).into()
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// FIPS 180-4 / FIPS 202 "abc" examples.
    #[test]
    fn abc_digests() {
        let cases: [(HashAlgorithm, &str); 6] = [
            (HashAlgorithm::Sha224, "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
            (HashAlgorithm::Sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                HashAlgorithm::Sha384,
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            ),
            (
                HashAlgorithm::Sha512,
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            ),
            (HashAlgorithm::Sha3_256, "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"),
            (
                HashAlgorithm::Sha3_512,
                "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0",
            ),
        ];
        for (algo, want) in cases {
            let mut h = Hasher::new(algo).unwrap();
            h.update(b"a");
            h.write_all(b"bc").unwrap();
            assert_eq!(h.algorithm(), algo);
            let got = h.finish();
            assert_eq!(hex::encode(&got), want, "{algo:?}");
            assert_eq!(Some(got.len()), algo.digest_len());
        }
        assert_eq!(hex::encode(sha256(b"abc")), cases[1].1);
    }

    #[test]
    fn unknown_is_unsupported() {
        assert!(matches!(
            Hasher::new(HashAlgorithm::Unknown(2)),
            Err(Error::Unsupported(Unsupported::HashAlgorithm(2)))
        ));
    }
}
