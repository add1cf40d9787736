//! AES Key Wrap (RFC 3394), as RFC 9580 §5.1.6 (X25519) and RFC 9980 (ML-KEM-768+X25519) use
//! it to wrap session keys.
//!
//! <https://www.rfc-editor.org/rfc/rfc3394#section-2.2>
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use aes_kw::KeyInit;

use crate::crypto::secret::SecretVec;
use crate::error::{Error, Result};

/// The semiblock size (the integrity check register A is one semiblock).
const SEMIBLOCK: usize = 8;

/// Wraps `key` (a multiple of 8 octets, at least 16) under `kek` (16, 24 or 32 octets).
///
/// # Errors
/// `InvalidArgument` for a KEK of another length or a key whose length is not a multiple of 8
/// octets or shorter than 16.
pub(super) fn wrap(kek: &[u8], key: &[u8]) -> Result<Vec<u8>> {
    // RFC 3394 §2.2.1: the plaintext is n ≥ 2 64-bit blocks; the output is n + 1 blocks.
    if !key.len().is_multiple_of(SEMIBLOCK) || key.len() < 2 * SEMIBLOCK {
        return Err(Error::InvalidArgument("AES key wrap: key length"));
    }
    let out_len =
        key.len().checked_add(SEMIBLOCK).ok_or(Error::InvalidArgument("AES key wrap: key length"))?;
    let mut out = vec![0u8; out_len];
    let res = match kek.len() {
        16 => aes_kw::KwAes128::new_from_slice(kek)
            .map_err(|_| ())
            .and_then(|kw| kw.wrap_key(key, &mut out).map(|_| ()).map_err(|_| ())),
        24 => aes_kw::KwAes192::new_from_slice(kek)
            .map_err(|_| ())
            .and_then(|kw| kw.wrap_key(key, &mut out).map(|_| ()).map_err(|_| ())),
        32 => aes_kw::KwAes256::new_from_slice(kek)
            .map_err(|_| ())
            .and_then(|kw| kw.wrap_key(key, &mut out).map(|_| ()).map_err(|_| ())),
        _ => return Err(Error::InvalidArgument("AES key wrap: KEK length")),
    };
    res.map_err(|()| Error::InvalidArgument("AES key wrap: key length"))?;
    Ok(out)
}

/// Unwraps `wrapped` under `kek` (16, 24 or 32 octets) and checks the RFC 3394 integrity value.
///
/// # Errors
/// - `Malformed` if `wrapped` is not a multiple of 8 octets or shorter than 24 octets;
/// - `InvalidArgument` for a KEK of another length;
/// - `Decrypt` if the integrity check fails (wrong KEK or modified ciphertext).
pub(super) fn unwrap(kek: &[u8], wrapped: &[u8]) -> Result<SecretVec> {
    // RFC 3394 §2.2.2: the ciphertext is n + 1 ≥ 3 64-bit blocks.
    if !wrapped.len().is_multiple_of(SEMIBLOCK) || wrapped.len() < 3 * SEMIBLOCK {
        return Err(Error::malformed("AES key wrap: wrapped key length"));
    }
    let out_len =
        wrapped.len().checked_sub(SEMIBLOCK).ok_or(Error::malformed("AES key wrap: wrapped key length"))?;
    let mut out = SecretVec::zeroed(out_len);
    // RFC 3394 §2.2.3: "If A == IV, return P, else return an error" — opaque on purpose.
    let res = match kek.len() {
        16 => aes_kw::KwAes128::new_from_slice(kek)
            .map_err(|_| ())
            .and_then(|kw| kw.unwrap_key(wrapped, &mut out).map(|_| ()).map_err(|_| ())),
        24 => aes_kw::KwAes192::new_from_slice(kek)
            .map_err(|_| ())
            .and_then(|kw| kw.unwrap_key(wrapped, &mut out).map(|_| ()).map_err(|_| ())),
        32 => aes_kw::KwAes256::new_from_slice(kek)
            .map_err(|_| ())
            .and_then(|kw| kw.unwrap_key(wrapped, &mut out).map(|_| ()).map_err(|_| ())),
        _ => return Err(Error::InvalidArgument("AES key unwrap: KEK length")),
    };
    res.map_err(|()| Error::Decrypt)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEK: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    const KEY: &str = "00112233445566778899aabbccddeeff000102030405060708090a0b0c0d0e0f";

    /// RFC 3394 §4.1, 4.2, 4.3, 4.6: (KEK octets, key octets, ciphertext).
    const CASES: [(usize, usize, &str); 4] = [
        (16, 16, "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5"),
        (24, 16, "96778b25ae6ca435f92b5b97c050aed2468ab8a17ad84e5d"),
        (32, 16, "64e8c3f9ce0f5ba263e9777905818a2a93c8191e7d6e8ae7"),
        (32, 32, "28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326cbc7f0e71a99f43bfb988b9b7a02dd21"),
    ];

    #[test]
    fn rfc3394_vectors() {
        let kek_all = hex::decode(KEK).unwrap();
        let key_all = hex::decode(KEY).unwrap();
        for (kek_len, key_len, ct) in CASES {
            let kek = &kek_all[..kek_len];
            let key = &key_all[..key_len];
            let wrapped = wrap(kek, key).unwrap();
            assert_eq!(hex::encode(&wrapped), ct);
            assert_eq!(unwrap(kek, &wrapped).unwrap().as_slice(), key);
        }
    }

    #[test]
    fn tampering_and_bad_lengths() {
        let kek = hex::decode(&KEK[..32]).unwrap();
        let mut ct = hex::decode(CASES[0].2).unwrap();
        for i in 0..ct.len() {
            ct[i] ^= 1;
            assert!(matches!(unwrap(&kek, &ct), Err(Error::Decrypt)));
            ct[i] ^= 1;
        }
        assert!(matches!(unwrap(&kek, &ct[..16]), Err(Error::Malformed(_))));
        assert!(matches!(unwrap(&kek, &ct[..23]), Err(Error::Malformed(_))));
        assert!(matches!(unwrap(&kek[..15], &ct), Err(Error::InvalidArgument(_))));
        assert!(matches!(wrap(&kek, &[0; 12]), Err(Error::InvalidArgument(_))));
        assert!(matches!(wrap(&kek, &[0; 8]), Err(Error::InvalidArgument(_))));
        assert!(matches!(wrap(&kek[..8], &[0; 16]), Err(Error::InvalidArgument(_))));
    }
}
