//! Ed25519 signatures, PureEdDSA (RFC 8032), as OpenPGP public-key algorithm 27 and the
//! classical half of ML-DSA-65+Ed25519.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.5.5.9>
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use ed25519_dalek::{Signature, SigningKey, VerifyingKey};

use crate::crypto::rng::Rng;
use crate::crypto::secret::Curve25519Secret;
use crate::error::{Error, Result};

/// Generates an Ed25519 secret key (32 random octets, RFC 8032 §5.1.5).
///
/// # Errors
/// `Io` if the RNG fails.
pub(crate) fn generate(rng: &mut Rng) -> Result<Curve25519Secret> {
    let mut secret = Curve25519Secret([0; 32]);
    rng.fill(&mut secret.0)?;
    Ok(secret)
}

/// The public key `A` (RFC 8032 §5.1.5).
pub(crate) fn public_key(secret: &Curve25519Secret) -> [u8; 32] {
    SigningKey::from_bytes(&secret.0).verifying_key().to_bytes()
}

/// Signs `msg` with PureEdDSA, no context (RFC 8032 §5.1.6). In OpenPGP `msg` is the signature
/// digest (RFC 9580 §5.2.4), not the data itself.
pub(crate) fn sign(secret: &Curve25519Secret, msg: &[u8]) -> [u8; 64] {
    use ed25519_dalek::Signer;
    SigningKey::from_bytes(&secret.0).sign(msg).to_bytes()
}

/// Verifies a PureEdDSA signature with the strict checks (canonical `S`, no small-order `R` or
/// public key, RFC 8032 §5.1.7).
///
/// # Errors
/// `BadSignature("Ed25519")` if the public key does not decode or the signature does not verify.
pub(crate) fn verify(public: &[u8; 32], msg: &[u8], sig: &[u8; 64]) -> Result<()> {
    let key = VerifyingKey::from_bytes(public).map_err(|_| Error::BadSignature("Ed25519"))?;
    key.verify_strict(msg, &Signature::from_bytes(sig)).map_err(|_| Error::BadSignature("Ed25519"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::rng::test_util;

    /// RFC 8032 §7.1, TEST 1 (empty message) and TEST 2 (one octet 0x72).
    #[test]
    fn rfc8032_vectors() {
        let cases = [
            (
                "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
                "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
                "",
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
            ),
            (
                "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
                "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
                "72",
                "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
            ),
        ];
        for (sk, pk, msg, sig) in cases {
            let secret = Curve25519Secret(hex::decode(sk).unwrap().try_into().unwrap());
            let public: [u8; 32] = hex::decode(pk).unwrap().try_into().unwrap();
            let msg = hex::decode(msg).unwrap();
            let want: [u8; 64] = hex::decode(sig).unwrap().try_into().unwrap();
            assert_eq!(public_key(&secret), public);
            assert_eq!(sign(&secret, &msg), want);
            verify(&public, &msg, &want).unwrap();
        }
    }

    #[test]
    fn rejects_bad_signatures_and_keys() {
        let mut rng = test_util::deterministic(3);
        let secret = generate(&mut rng).unwrap();
        let public = public_key(&secret);
        let mut sig = sign(&secret, b"digest");
        verify(&public, b"digest", &sig).unwrap();
        assert!(matches!(verify(&public, b"digesT", &sig), Err(Error::BadSignature("Ed25519"))));
        sig[40] ^= 1;
        assert!(matches!(verify(&public, b"digest", &sig), Err(Error::BadSignature("Ed25519"))));
        sig[40] ^= 1;
        // The identity point (small order) as public key: rejected by the strict check.
        let mut identity = [0u8; 32];
        identity[0] = 1;
        assert!(matches!(verify(&identity, b"digest", &sig), Err(Error::BadSignature(_))));
        // A y coordinate that is not on the curve does not decode.
        let mut bad = [0xffu8; 32];
        bad[31] = 0x7f;
        let r = verify(&bad, b"digest", &sig);
        assert!(matches!(r, Err(Error::BadSignature("Ed25519"))));
    }
}
