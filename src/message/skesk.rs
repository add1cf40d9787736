//! v6 SKESK key derivation and session-key (un)wrapping (RFC 9580 §5.3.2).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.3.2>
//!
//! The S2K itself (password → key) is the key layer's; these functions take its output.

use crate::crypto::aead::KeyedAead;
use crate::crypto::hkdf;
use crate::crypto::secret::SecretVec;
use crate::crypto::secret::SessionKey;
use crate::error::{Error, Result, Unsupported};
use crate::packet::s2k::S2k;
use crate::packet::skesk::Skesk;
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

/// The HKDF info, which is also the AEAD associated data: 0xC3 (packet type 3 in OpenPGP
/// form), version 6, cipher, AEAD mode.
fn info(sym: SymmetricAlgorithm, aead: AeadAlgorithm) -> [u8; 4] {
    [0xc3, 6, sym.into(), aead.into()]
}

/// Derives the key-encryption key from the S2K output:
/// `KEK = HKDF-SHA256(salt = none, IKM = S2K output, info = 0xC3 ‖ 6 ‖ cipher ‖ AEAD)`, of the
/// cipher's key length.
///
/// # Errors
/// `Unsupported(SymmetricAlgorithm)` for an unknown cipher.
fn derive_kek(s2k_key: &[u8], sym: SymmetricAlgorithm, aead: AeadAlgorithm) -> Result<SecretVec> {
    let key_len = sym.key_len().ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(sym.into())))?;
    let mut kek = SecretVec::zeroed(key_len);
    hkdf::sha256(&[], s2k_key, &info(sym, aead), &mut kek)?;
    Ok(kek)
}

/// Recovers the session key from a v6 SKESK, given the S2K output for its password.
///
/// ```text
/// KEK = HKDF-SHA256(none, S2K output, 0xC3 ‖ 6 ‖ cipher ‖ AEAD)
/// session key = AEAD-Decrypt(KEK, nonce = IV, AD = 0xC3 ‖ 6 ‖ cipher ‖ AEAD, ESK ‖ tag)
/// ```
///
/// # Errors
/// `Unsupported` for an unknown cipher or mode; `Decrypt` if the tag does not verify (wrong
/// password) or the session key has the wrong length for the cipher.
pub(super) fn decrypt_session_key(skesk: &Skesk, s2k_key: &[u8]) -> Result<SessionKey> {
    let kek = derive_kek(s2k_key, skesk.sym, skesk.aead)?;
    let cipher = KeyedAead::new(skesk.sym, skesk.aead, &kek)?;
    let mut key = SecretVec::new(skesk.encrypted_key.clone());
    cipher.open(&skesk.iv, &info(skesk.sym, skesk.aead), &mut key, &skesk.tag)?;
    if skesk.sym.key_len() != Some(key.len()) {
        return Err(Error::Decrypt);
    }
    Ok(SessionKey::from_bytes(&key))
}

/// Builds a v6 SKESK that wraps `session_key` under the S2K output `s2k_key`. `s2k` is the
/// encoded S2K specifier and `iv` a fresh nonce of the mode's nonce length.
///
/// # Errors
/// `Unsupported` for an unknown cipher or mode; `InvalidArgument` for a session key or IV of
/// the wrong length.
pub(crate) fn encrypt_session_key(
    session_key: &SessionKey,
    s2k_key: &[u8],
    sym: SymmetricAlgorithm,
    aead: AeadAlgorithm,
    s2k: Vec<u8>,
    iv: Vec<u8>,
) -> Result<Skesk> {
    if sym.key_len() != Some(session_key.as_bytes().len()) {
        return Err(Error::InvalidArgument("session key length does not match the cipher"));
    }
    if aead.nonce_len() != Some(iv.len()) {
        return Err(Error::InvalidArgument("SKESK IV length"));
    }
    let kek = derive_kek(s2k_key, sym, aead)?;
    let cipher = KeyedAead::new(sym, aead, &kek)?;
    // The encrypted key is not secret, but it starts as a copy of the session key.
    let mut encrypted_key = session_key.as_bytes().to_vec();
    let tag = cipher.seal(&iv, &info(sym, aead), &mut encrypted_key)?;
    Ok(Skesk { sym, aead, s2k, iv, encrypted_key, tag })
}

/// The S2K and key length of an SKESK, if this crate can derive its key and then use it: the
/// cipher, the mode and the nonce are checked here, before any derivation, so that an SKESK
/// refused for them costs nothing.
pub(super) fn skesk_s2k(skesk: &Skesk) -> Result<(S2k, usize)> {
    let key_len =
        skesk.sym.key_len().ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(skesk.sym.into())))?;
    if KeyedAead::check(skesk.sym, skesk.aead)? != skesk.iv.len() {
        return Err(Error::malformed("SKESK: IV length"));
    }
    // `decrypt_session_key` accepts only a session key of the SKESK cipher's length.
    if skesk.encrypted_key.len() != key_len {
        return Err(Error::malformed("SKESK: encrypted session key length"));
    }
    Ok((S2k::parse(&skesk.s2k)?, key_len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketBody;
    use crate::packet::header::Header;

    fn field<'a>(json: &'a serde_json::Value, name: &str) -> &'a str {
        json[name].as_str().unwrap()
    }

    /// RFC 9580 A.9 (EAX), A.10 (OCB), A.11 (GCM): HKDF output, then the session key, and
    /// re-encryption reproduces the SKESK packet.
    #[test]
    fn rfc9580_skesk_vectors() {
        for text in [
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a09-aead-eax.json")),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a10-aead-ocb.json")),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a11-aead-gcm.json")),
        ] {
            let json: serde_json::Value = serde_json::from_str(text).unwrap();
            let packet = hex::decode(field(&json, "skesk_packet")).unwrap();
            let mut src = &packet[..];
            let _ = Header::read_from(&mut src).unwrap().unwrap();
            let skesk = Skesk::parse(src).unwrap();
            assert_eq!(hex::encode(info(skesk.sym, skesk.aead)), field(&json, "skesk_hkdf_info"));
            assert_eq!(field(&json, "skesk_aad"), field(&json, "skesk_hkdf_info"));
            assert_eq!(hex::encode(&skesk.iv), field(&json, "skesk_nonce"));
            let s2k_key = hex::decode(field(&json, "s2k_derived_key")).unwrap();
            let kek = derive_kek(&s2k_key, skesk.sym, skesk.aead).unwrap();
            assert_eq!(hex::encode(&*kek), field(&json, "skesk_hkdf_output"));
            let session_key = decrypt_session_key(&skesk, &s2k_key).unwrap();
            assert_eq!(hex::encode(session_key.as_bytes()), field(&json, "session_key"));

            let again = encrypt_session_key(
                &session_key,
                &s2k_key,
                skesk.sym,
                skesk.aead,
                skesk.s2k.clone(),
                skesk.iv.clone(),
            )
            .unwrap();
            let mut out = Vec::new();
            again.write_packet(&mut out).unwrap();
            assert_eq!(out, packet);

            // A wrong password (S2K output) fails opaquely.
            let mut wrong = s2k_key.clone();
            wrong[0] ^= 1;
            assert!(matches!(decrypt_session_key(&skesk, &wrong), Err(Error::Decrypt)));
        }
    }
}
