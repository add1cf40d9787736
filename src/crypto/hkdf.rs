//! HKDF-SHA256 (RFC 5869), as RFC 9580 uses it for X25519 KEKs, SEIPDv2 message keys and
//! AEAD-protected secret keys.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use hkdf::hmac::digest::{FixedOutput, KeyInit, Update};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{Error, Result};

type HmacSha256 = hkdf::hmac::Hmac<sha2::Sha256>;

/// SHA2-256 output length (HashLen).
const HASH_LEN: usize = 32;

/// Fills `okm` with HKDF-SHA256(salt, ikm, info). An empty `salt` means "no salt" (RFC 5869
/// treats both as a string of zeros).
///
/// Written on the HMAC of the `hkdf` crate rather than its `Hkdf`, which keeps the PRK and the
/// T(i) blocks in storage that is not wiped: here they are in `Zeroizing` buffers, and the
/// HMAC states (SHA-256 cores, built with `zeroize`) wipe themselves when dropped.
///
/// # Errors
/// `InvalidArgument` if `okm` is longer than 255 × 32 octets.
pub(crate) fn sha256(salt: &[u8], ikm: &[u8], info: &[u8], okm: &mut [u8]) -> Result<()> {
    let too_long = || Error::InvalidArgument("HKDF output too long");
    // RFC 5869 §2.3: "L length of output keying material in octets (<= 255*HashLen)".
    if okm.len() > HASH_LEN.saturating_mul(255) {
        okm.zeroize();
        return Err(too_long());
    }
    // §2.2: PRK = HMAC-Hash(salt, IKM), salt "if not provided, it is set to a string of HashLen
    // zeros" (which HMAC pads to the same key as an empty one).
    let mut prk = Zeroizing::new([0u8; HASH_LEN]);
    let mut mac = <HmacSha256 as KeyInit>::new_from_slice(salt).map_err(|_| Error::Internal("HKDF salt"))?;
    mac.update(ikm);
    mac.finalize_into((&mut *prk).into());
    // §2.3: T(0) = empty string; T(i) = HMAC-Hash(PRK, T(i-1) | info | i);
    // OKM = first L octets of T(1) | T(2) | ... | T(N).
    let keyed = <HmacSha256 as KeyInit>::new_from_slice(&*prk).map_err(|_| Error::Internal("HKDF PRK"))?;
    let mut t = Zeroizing::new([0u8; HASH_LEN]);
    for (i, block) in okm.chunks_mut(HASH_LEN).enumerate() {
        let counter = i.checked_add(1).and_then(|c| u8::try_from(c).ok()).ok_or_else(too_long)?;
        let mut mac = keyed.clone();
        if i > 0 {
            mac.update(&*t);
        }
        mac.update(info);
        mac.update(&[counter]);
        mac.finalize_into((&mut *t).into());
        block.copy_from_slice(t.get(..block.len()).ok_or_else(too_long)?);
    }
    Ok(())
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

    /// RFC 5869 Appendix A.2 (longer inputs, three blocks) and A.3 (no salt, no info).
    #[test]
    fn rfc5869_cases_2_and_3() {
        let ikm: Vec<u8> = (0x00..=0x4f).collect();
        let salt: Vec<u8> = (0x60..=0xaf).collect();
        let info: Vec<u8> = (0xb0..=0xff).collect();
        let mut okm = [0u8; 82];
        sha256(&salt, &ikm, &info, &mut okm).unwrap();
        assert_eq!(
            hex::encode(okm),
            "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e59\
             0e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"
        );
        let mut okm = [0u8; 42];
        sha256(&[], &[0x0b; 22], &[], &mut okm).unwrap();
        assert_eq!(
            hex::encode(okm),
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
        );
    }

    #[test]
    fn too_long_is_an_error() {
        let mut okm = vec![0u8; 255 * 32 + 1];
        assert!(sha256(&[], &[1], &[], &mut okm).is_err());
    }
}
