//! Opening secret key material protected with S2K usage 254: AES in CFB mode, the plaintext
//! followed by its SHA-1 hash as a check (RFC 9580 §3.7.2.1, §5.5.3). Read only: keys this
//! crate locks use AEAD (usage 253).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.5.3>
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use cfb_mode::cipher::KeyIvInit;
use sha1::{Digest, Sha1};
use subtle::ConstantTimeEq;

use crate::crypto::secret::SecretVec;
use crate::error::{Error, Result, Unsupported};
use crate::types::SymmetricAlgorithm;

/// The length of the SHA-1 check that follows the material.
const CHECK_LEN: usize = 20;

/// Decrypts `ciphertext` with `key` and `iv` and returns the secret key material, or `None`
/// if the SHA-1 check does not match (a wrong password, or altered data: the two cannot be
/// told apart).
///
/// # Errors
/// `Unsupported(SymmetricAlgorithm)` for a cipher other than AES; `Malformed` for a key or IV
/// of the wrong length, or a ciphertext shorter than the check.
pub(crate) fn open_sha1_checked(
    symmetric: SymmetricAlgorithm,
    key: &[u8],
    iv: &[u8],
    ciphertext: &[u8],
) -> Result<Option<SecretVec>> {
    // "the secret key material is encrypted ... in CFB mode ... the SHA-1 hash of the
    // plaintext of the algorithm-specific portion is appended to the plaintext and encrypted
    // with it"; the key is the S2K output for the cipher's key size.
    let material_len = ciphertext
        .len()
        .checked_sub(CHECK_LEN)
        .ok_or(Error::malformed("secret key: encrypted material shorter than its check"))?;
    let mut plain = SecretVec::new(ciphertext.to_vec());
    let bad_lengths = |_| Error::malformed("secret key: CFB key or IV length");
    match symmetric {
        SymmetricAlgorithm::Aes128 => {
            cfb_mode::Decryptor::<aes::Aes128>::new_from_slices(key, iv)
                .map_err(bad_lengths)?
                .decrypt(&mut plain);
        }
        SymmetricAlgorithm::Aes192 => {
            cfb_mode::Decryptor::<aes::Aes192>::new_from_slices(key, iv)
                .map_err(bad_lengths)?
                .decrypt(&mut plain);
        }
        SymmetricAlgorithm::Aes256 => {
            cfb_mode::Decryptor::<aes::Aes256>::new_from_slices(key, iv)
                .map_err(bad_lengths)?
                .decrypt(&mut plain);
        }
        other => return Err(Error::Unsupported(Unsupported::SymmetricAlgorithm(u8::from(other)))),
    }
    let (material, check) = plain.split_at_checked(material_len).ok_or(Error::Internal("CFB: split"))?;
    let digest = Sha1::digest(material);
    if !bool::from(digest.as_slice().ct_eq(check)) {
        return Ok(None);
    }
    Ok(Some(SecretVec::new(material.to_vec())))
}

#[cfg(test)]
mod tests {
    use cfb_mode::cipher::KeyIvInit;

    use super::*;

    fn seal(key: &[u8; 16], iv: &[u8; 16], material: &[u8]) -> Vec<u8> {
        let mut buf = material.to_vec();
        buf.extend_from_slice(&Sha1::digest(material));
        cfb_mode::Encryptor::<aes::Aes128>::new(key.into(), iv.into()).encrypt(&mut buf);
        buf
    }

    #[test]
    fn opens_what_was_sealed_and_refuses_a_wrong_key_or_a_changed_octet() {
        let (key, iv, material) = ([7u8; 16], [9u8; 16], [0x42u8; 32]);
        let sealed = seal(&key, &iv, &material);
        let opened = open_sha1_checked(SymmetricAlgorithm::Aes128, &key, &iv, &sealed).unwrap().unwrap();
        assert_eq!(&opened[..], &material[..]);
        assert!(open_sha1_checked(SymmetricAlgorithm::Aes128, &[8; 16], &iv, &sealed).unwrap().is_none());
        let mut changed = sealed.clone();
        changed[3] ^= 1;
        assert!(open_sha1_checked(SymmetricAlgorithm::Aes128, &key, &iv, &changed).unwrap().is_none());
        assert!(matches!(
            open_sha1_checked(SymmetricAlgorithm::Aes128, &key, &iv, &sealed[..19]),
            Err(Error::Malformed(_))
        ));
        assert!(matches!(
            open_sha1_checked(SymmetricAlgorithm::Aes256, &key, &iv, &sealed),
            Err(Error::Malformed(_))
        ));
    }
}
