//! X25519 key agreement and the RFC 9580 X25519 session-key encryption (public-key algorithm 25).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.1.6>,
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.5.5.7>
//!
//! An all-zero shared point (a low-order public key, RFC 7748 §6.1) is rejected: on encryption
//! as `Malformed` (the recipient's key is bad), on decryption as the opaque `Decrypt`.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use x25519_dalek::{PublicKey, StaticSecret};
use zeroize::Zeroizing;

use crate::crypto::accel;
use crate::crypto::aes_kw;
use crate::crypto::hkdf;
use crate::crypto::rng::Rng;
use crate::crypto::secret::{Curve25519Secret, Secret32, SessionKey};
use crate::error::{Error, Result};

/// HKDF info string (RFC 9580 §5.1.6).
const HKDF_INFO: &[u8] = b"OpenPGP X25519";
/// KEK length: X25519 uses AES-128 key wrap (RFC 9580 §5.1.6).
pub(crate) const KEK_LEN: usize = 16;

/// Generates an X25519 secret key (32 random octets; clamping happens at use, RFC 7748 §5).
///
/// # Errors
/// `Io` if the RNG fails.
pub(crate) fn generate(rng: &mut Rng) -> Result<Curve25519Secret> {
    let mut secret = Curve25519Secret::zeroed();
    rng.fill(secret.0.as_mut_slice())?;
    Ok(secret)
}

/// The public key `X25519(secret, 9)` (on `graviola` where the CPU allows, see `accel`).
pub(crate) fn public_key(secret: &Curve25519Secret) -> [u8; 32] {
    accel::x25519_public_key(secret).unwrap_or_else(|| portable_public_key(secret))
}

/// [`public_key`] on `x25519-dalek`.
pub(super) fn portable_public_key(secret: &Curve25519Secret) -> [u8; 32] {
    let secret = StaticSecret::from(*secret.0);
    PublicKey::from(&secret).to_bytes()
}

/// `X25519(secret, public)`; `None` if the result is all zero (a low-order `public`). On
/// `graviola` where the CPU allows (see `accel`).
pub(super) fn shared_point(secret: &Curve25519Secret, public: &[u8; 32]) -> Option<Secret32> {
    accel::x25519_shared_point(secret, public).unwrap_or_else(|| portable_shared_point(secret, public))
}

/// [`shared_point`] on `x25519-dalek`.
pub(super) fn portable_shared_point(secret: &Curve25519Secret, public: &[u8; 32]) -> Option<Secret32> {
    let secret = StaticSecret::from(*secret.0);
    let shared = secret.diffie_hellman(&PublicKey::from(*public));
    // RFC 7748 §6.1: "check whether the resulting shared secret is the all-zero value and abort".
    if shared.was_contributory() { Some(Secret32::new(shared.as_bytes())) } else { None }
}

/// The KEK of RFC 9580 §5.1.6:
/// `HKDF-SHA256(salt = none, ikm = ephemeral ‖ recipient public ‖ shared point, info = "OpenPGP X25519")`.
fn kek(ephemeral: &[u8; 32], recipient: &[u8; 32], shared: &Secret32) -> Result<Zeroizing<[u8; KEK_LEN]>> {
    let mut ikm = Zeroizing::new([0u8; 96]);
    let (e, rest) = ikm.split_at_mut(32);
    let (r, s) = rest.split_at_mut(32);
    e.copy_from_slice(ephemeral);
    r.copy_from_slice(recipient);
    s.copy_from_slice(shared.as_bytes());
    let mut kek = Zeroizing::new([0u8; KEK_LEN]);
    hkdf::sha256(&[], ikm.as_slice(), HKDF_INFO, kek.as_mut_slice())?;
    Ok(kek)
}

/// The sender's key agreement with `recipient` (RFC 9580 §5.1.6, steps 1-3) from
/// `ephemeral_secret`, a fresh secret from [`generate`]: the ephemeral public key V and the KEK
/// that wraps the session key. Apart from the wrap so that the costly part can run before the
/// session key is chosen, for many recipients on several threads, with the randomness still
/// drawn in order.
///
/// # Errors
/// `Malformed` if `recipient` has low order (all-zero shared point).
pub(crate) fn agree(
    recipient: &[u8; 32],
    ephemeral_secret: &Curve25519Secret,
) -> Result<([u8; 32], Zeroizing<[u8; KEK_LEN]>)> {
    // 1. Generate an ephemeral key pair {v, V=vG}.
    let ephemeral_public = public_key(ephemeral_secret);
    // 2. Compute the shared point S = vR (all zero → the recipient key is unusable).
    let shared = shared_point(ephemeral_secret, recipient)
        .ok_or(Error::malformed("X25519: recipient public key has low order"))?;
    // 3. KEK = HKDF-SHA256(V ‖ R ‖ S, info "OpenPGP X25519"), 16 octets.
    Ok((ephemeral_public, kek(&ephemeral_public, recipient, &shared)?))
}

/// Step 4 of RFC 9580 §5.1.6: C = AES-128 key wrap (RFC 3394) of the session key under the
/// KEK from [`agree`] (for a v6 PKESK the session key is wrapped bare).
///
/// # Errors
/// `InvalidArgument` if the session key is not 16, 24 or 32 octets long.
pub(crate) fn wrap(kek: &[u8; KEK_LEN], session_key: &[u8]) -> Result<Vec<u8>> {
    if !matches!(session_key.len(), 16 | 24 | 32) {
        return Err(Error::InvalidArgument("X25519: session key length"));
    }
    aes_kw::wrap(kek, session_key)
}

/// Encrypts `session_key` to `recipient` with `ephemeral_secret` ([`agree`], then [`wrap`]).
/// Returns the ephemeral public key and the wrapped key.
///
/// # Errors
/// As [`agree`] and [`wrap`].
#[cfg(test)]
fn pkesk_encrypt_with_ephemeral(
    recipient: &[u8; 32],
    session_key: &[u8],
    ephemeral_secret: &Curve25519Secret,
) -> Result<([u8; 32], Vec<u8>)> {
    let (ephemeral_public, kek) = agree(recipient, ephemeral_secret)?;
    Ok((ephemeral_public, wrap(&kek, session_key)?))
}

/// Decrypts the session key of an X25519 PKESK.
///
/// # Errors
/// `Decrypt` if the shared point is all zero or the key unwrap fails; `Malformed` if `wrapped`
/// has an impossible length.
pub(crate) fn pkesk_decrypt(
    secret: &Curve25519Secret,
    recipient_public: &[u8; 32],
    ephemeral: &[u8; 32],
    wrapped: &[u8],
) -> Result<SessionKey> {
    // 1. S = rV, where r is the recipient's secret and V the ephemeral public key.
    let shared = shared_point(secret, ephemeral).ok_or(Error::Decrypt)?;
    // 2. KEK = HKDF-SHA256(V ‖ R ‖ S, info "OpenPGP X25519").
    let kek = kek(ephemeral, recipient_public, &shared)?;
    // 3. Unwrap (RFC 3394); the integrity check failing means a wrong key or a modified packet.
    let key = aes_kw::unwrap(kek.as_slice(), wrapped)?;
    Ok(SessionKey::from_bytes(&key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::rng::test_util;

    fn json() -> serde_json::Value {
        serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/a08-x25519-aead-ocb.json"
        )))
        .unwrap()
    }

    fn field<const N: usize>(v: &serde_json::Value, name: &str) -> [u8; N] {
        hex::decode(v[name].as_str().unwrap()).unwrap().try_into().unwrap()
    }

    /// RFC 9580 Appendix A.8: every intermediate, both directions.
    #[test]
    fn rfc9580_a8() {
        let v = json();
        let eph_secret = Curve25519Secret::new(&field(&v, "ephemeral_secret_key"));
        let eph_public: [u8; 32] = field(&v, "ephemeral_public_key");
        let rcpt_secret = Curve25519Secret::new(&field(&v, "recipient_x25519_secret_key"));
        let rcpt_public: [u8; 32] = field(&v, "recipient_x25519_public_key");
        let session_key: [u8; 16] = field(&v, "session_key");
        let pkesk = hex::decode(v["pkesk_packet"].as_str().unwrap()).unwrap();
        // The PKESK ends in: ephemeral (32) ‖ length octet (24) ‖ wrapped key (24).
        let wrapped = &pkesk[pkesk.len() - 24..];
        assert_eq!(pkesk[pkesk.len() - 25], 24);
        assert_eq!(&pkesk[pkesk.len() - 57..pkesk.len() - 25], &eph_public);

        assert_eq!(public_key(&eph_secret), eph_public);
        assert_eq!(public_key(&rcpt_secret), rcpt_public);
        let shared = shared_point(&eph_secret, &rcpt_public).unwrap();
        assert_eq!(*shared.as_bytes(), field::<32>(&v, "shared_point"));
        assert_eq!(shared_point(&rcpt_secret, &eph_public).unwrap().as_bytes(), shared.as_bytes());
        let k = kek(&eph_public, &rcpt_public, &shared).unwrap();
        assert_eq!(*k, field::<16>(&v, "hkdf_output_kek"));

        let (e, w) = pkesk_encrypt_with_ephemeral(&rcpt_public, &session_key, &eph_secret).unwrap();
        assert_eq!(e, eph_public);
        assert_eq!(w, wrapped);

        let sk = pkesk_decrypt(&rcpt_secret, &rcpt_public, &eph_public, wrapped).unwrap();
        assert_eq!(sk.as_bytes(), session_key);
    }

    #[test]
    fn round_trip_and_failures() {
        let mut rng = test_util::deterministic(1);
        let secret = generate(&mut rng).unwrap();
        let public = public_key(&secret);
        let key = [0x42u8; 32];
        let (eph, mut wrapped) =
            pkesk_encrypt_with_ephemeral(&public, &key, &generate(&mut rng).unwrap()).unwrap();
        assert_eq!(wrapped.len(), 40);
        let sk = pkesk_decrypt(&secret, &public, &eph, &wrapped).unwrap();
        assert_eq!(sk.as_bytes(), key);

        wrapped[3] ^= 0x80;
        assert!(matches!(pkesk_decrypt(&secret, &public, &eph, &wrapped), Err(Error::Decrypt)));
        wrapped[3] ^= 0x80;
        // A wrong recipient secret fails opaquely.
        let other = generate(&mut rng).unwrap();
        assert!(matches!(pkesk_decrypt(&other, &public, &eph, &wrapped), Err(Error::Decrypt)));
        // Low-order points (RFC 7748 §6.1): the zero point and the point of order 8 with u = 1.
        let mut one = [0u8; 32];
        one[0] = 1;
        for low in [[0u8; 32], one] {
            assert!(matches!(pkesk_decrypt(&secret, &public, &low, &wrapped), Err(Error::Decrypt)));
            assert!(matches!(pkesk_encrypt_with_ephemeral(&low, &key, &secret), Err(Error::Malformed(_))));
        }
        assert!(matches!(
            pkesk_encrypt_with_ephemeral(&public, &[0u8; 17], &secret),
            Err(Error::InvalidArgument(_))
        ));
    }
}
