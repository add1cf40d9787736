//! Ed25519 signatures, PureEdDSA (RFC 8032), as OpenPGP public-key algorithm 27 and the
//! classical half of ML-DSA-65+Ed25519.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.5.5.9>
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use ed25519_dalek::{Signature, VerifyingKey};
use zeroize::Zeroizing;

use crate::crypto::accel;
use crate::crypto::rng::Rng;
use crate::crypto::secret::Ed25519Secret;
use crate::error::{Error, Result};

/// Generates an Ed25519 secret key (32 random octets, RFC 8032 §5.1.5).
///
/// # Errors
/// `Io` if the RNG fails.
pub(crate) fn generate(rng: &mut Rng) -> Result<Ed25519Secret> {
    let mut seed = Zeroizing::new([0u8; 32]);
    rng.fill(seed.as_mut_slice())?;
    Ok(Ed25519Secret::new(&seed))
}

/// The public key `A` (RFC 8032 §5.1.5).
pub(crate) fn public_key(secret: &Ed25519Secret) -> [u8; 32] {
    secret.signing_key().verifying_key().to_bytes()
}

/// Signs `msg` with PureEdDSA, no context (RFC 8032 §5.1.6). In OpenPGP `msg` is the signature
/// digest (RFC 9580 §5.2.4), not the data itself.
pub(crate) fn sign(secret: &Ed25519Secret, msg: &[u8]) -> [u8; 64] {
    use ed25519_dalek::Signer;
    secret.signing_key().sign(msg).to_bytes()
}

/// Verifies a PureEdDSA signature with the strict checks (canonical `S`, no small-order `R` or
/// public key, RFC 8032 §5.1.7, cofactorless).
///
/// Where the CPU allows (see `accel`), the group equation is checked by `graviola` (faster),
/// after [`strict_encoding`] has checked `R` and the public key: that accepts what
/// `ed25519-dalek`'s `verify_strict` accepts, except a public key with a non-canonical
/// encoding (y ≥ p), which no one can sign for and which is refused here on both paths
/// (`verify_strict` compares `R` as encoded, so it already refuses a non-canonical `R`).
///
/// # Errors
/// `BadSignature("Ed25519")` if the public key does not decode or the signature does not verify.
pub(crate) fn verify(public: &[u8; 32], msg: &[u8], sig: &[u8; 64]) -> Result<()> {
    let (r, _) = sig.split_first_chunk::<32>().ok_or(Error::BadSignature("Ed25519"))?;
    if !strict_encoding(public) || !strict_encoding(r) {
        return Err(Error::BadSignature("Ed25519"));
    }
    match accel::ed25519_verify(public, msg, sig) {
        Some(true) => Ok(()),
        Some(false) => Err(Error::BadSignature("Ed25519")),
        None => portable_verify(public, msg, sig),
    }
}

/// [`verify`]'s group equation and checks on `ed25519-dalek`.
pub(super) fn portable_verify(public: &[u8; 32], msg: &[u8], sig: &[u8; 64]) -> Result<()> {
    let key = VerifyingKey::from_bytes(public).map_err(|_| Error::BadSignature("Ed25519"))?;
    key.verify_strict(msg, &Signature::from_bytes(sig)).map_err(|_| Error::BadSignature("Ed25519"))
}

/// The y-coordinates (little-endian, sign bit clear) of the eight points of small order, as
/// canonical encodings: 0 and p − 1 (orders 4 and 2, x = ±√−1 and x = 0), 1 (the identity)
/// and the two of order 8 (RFC 8032's curve; the same list as libsodium's
/// `ge25519_has_small_order`, whose non-canonical entries [`strict_encoding`] refuses as such).
pub(super) const SMALL_ORDER_Y: [[u8; 32]; 5] = [
    [0; 32],
    [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [
        0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
    ],
    [
        0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0, 0xd5,
        0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05,
    ],
    [
        0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f, 0x2a,
        0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a,
    ],
];

/// Whether `point` (a public key or a signature's `R`) is a canonical encoding (y < p =
/// 2^255 − 19) of a y-coordinate that no small-order point has. (Whether it is on the curve at
/// all is left to the group equation.)
pub(super) fn strict_encoding(point: &[u8; 32]) -> bool {
    let mut y = *point;
    if let Some(last) = y.last_mut() {
        *last &= 0x7f;
    }
    // y ≥ p exactly when y is p + k for k in 0..19: first octet 0xed.. 0xff, then 30 octets
    // 0xff and 0x7f.
    let [first, middle @ .., last] = y;
    let at_least_p = first >= 0xed && middle.iter().all(|&b| b == 0xff) && last == 0x7f;
    !at_least_p && !SMALL_ORDER_Y.contains(&y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::rng::test_util;

    /// [`SMALL_ORDER_Y`] is exactly the set of y-coordinates of the eight-torsion points.
    #[test]
    fn small_order_list_is_exact() {
        let mut ys: Vec<[u8; 32]> = curve25519_dalek::constants::EIGHT_TORSION
            .iter()
            .map(|p| {
                let mut y = p.compress().to_bytes();
                y[31] &= 0x7f;
                y
            })
            .collect();
        ys.sort_unstable();
        ys.dedup();
        let mut list = SMALL_ORDER_Y.to_vec();
        list.sort_unstable();
        assert_eq!(ys, list);
        // Every encoding of them is refused, with either sign bit.
        for y in SMALL_ORDER_Y {
            let mut negative = y;
            negative[31] |= 0x80;
            assert!(!strict_encoding(&y) && !strict_encoding(&negative));
        }
    }

    /// y ≥ p = 2^255 − 19 is not canonical; p − 2 (not of small order) is.
    #[test]
    fn non_canonical_encodings_are_refused() {
        let mut y = [0xffu8; 32];
        y[31] = 0x7f;
        for first in 0xed..=0xff {
            y[0] = first;
            let mut negative = y;
            negative[31] |= 0x80;
            assert!(!strict_encoding(&y) && !strict_encoding(&negative), "{first:#x}");
        }
        y[0] = 0xeb;
        assert!(strict_encoding(&y));
        // A key whose y is p + 3 (the point with y = 3, not of small order): `ed25519-dalek`
        // decodes it, and `strict_encoding`, which `verify` applies before either path's
        // equation, refuses it. (No signature for it can be made: nobody knows its secret.)
        let mut p3 = [0xffu8; 32];
        p3[0] = 0xf0;
        p3[31] = 0x7f;
        let decoded = VerifyingKey::from_bytes(&p3).expect("y = 3 is on the curve");
        assert!(!decoded.is_weak());
        assert!(!strict_encoding(&p3));
    }

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
            let secret = Ed25519Secret::new(&hex::decode(sk).unwrap().try_into().unwrap());
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
