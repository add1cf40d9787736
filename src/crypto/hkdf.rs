//! HKDF-SHA256 (RFC 5869), as RFC 9580 uses it for X25519 KEKs, SEIPDv2 message keys and
//! AEAD-protected secret keys.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use zeroize::Zeroize;

use crate::error::{Error, Result};

/// Fills `okm` with HKDF-SHA256(salt, ikm, info). An empty `salt` means "no salt" (RFC 5869
/// treats both as a string of zeros).
///
/// # Errors
/// `InvalidArgument` if `okm` is longer than 255 × 32 octets.
pub(crate) fn sha256(salt: &[u8], ikm: &[u8], info: &[u8], okm: &mut [u8]) -> Result<()> {
    let salt = if salt.is_empty() { None } else { Some(salt) };
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(salt, ikm);
    hk.expand(info, okm).map_err(|_| {
        okm.zeroize();
        Error::InvalidArgument("HKDF output too long")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 5869 Appendix A.1.
    #[test]
    fn rfc5869_case_1() {
        let ikm = [0x0b; 22];
        let salt = hex::decode("000102030405060708090a0b0c").unwrap();
        let info = hex::decode("f0f1f2f3f4f5f6f7f8f9").unwrap();
        let mut okm = [0u8; 42];
        sha256(&salt, &ikm, &info, &mut okm).unwrap();
        assert_eq!(
            hex::encode(okm),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        );
    }

    #[test]
    fn too_long_is_an_error() {
        let mut okm = vec![0u8; 255 * 32 + 1];
        assert!(sha256(&[], &[1], &[], &mut okm).is_err());
    }
}
