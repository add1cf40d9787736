//! Assembly-backed AES-GCM, X25519 and Ed25519 verification from `graviola`, where the CPU
//! has what it needs; the portable RustCrypto and dalek code otherwise.
//!
//! Why: `graviola` interleaves CTR and GHASH in one pass of vector code, which a crate without
//! `unsafe` (this one) cannot write, where `aes-gcm` makes one pass for CTR and another for
//! GHASH; its X25519 and Ed25519 verification are also markedly faster than the dalek crates',
//! and with two self-signature checks and one key agreement per recipient certificate, those
//! are most of encrypting to many recipients. Its curve arithmetic is s2n-bignum's, with
//! machine-checked proofs of functional correctness.
//!
//! `graviola` builds only for x86_64 and aarch64 (used here on 64-bit little-endian targets
//! only), and asserts at each call that the CPU has its features (x86_64: AES-NI, PCLMULQDQ,
//! AVX, AVX2, BMI1, ADX; aarch64: NEON, AES, PMULL, SHA-2). `available` asks `graviola`'s
//! own check once per process, and on x86_64 BMI2 and ADX as well (its curve code uses MULX
//! and ADCX/ADOX); where they are missing (or on another target) every caller takes the
//! portable path, so no input or CPU makes it panic. Both paths give identical results: the
//! unit tests here compare them on random and edge-case inputs, and the GCM vector and failure
//! tests (`crypto::aead`) run on whichever path is taken. (In a debug build, `GRAVIOLA_CPU_DISABLE_aes=1` sends everything down the
//! portable path, and `GRAVIOLA_CPU_DISABLE_vaes=1` makes `graviola`'s GCM use its AES-NI/AVX2
//! code; `.ci/run` runs the package's tests with the first and the crypto tests with the
//! second, and lints the build without `graviola`, `--cfg sixpgp_portable`.)
//!
//! Zeroization: `graviola` wipes its AES key schedule, GHASH table, X25519 secrets and shared
//! secret when they are dropped. As on the portable path, stack copies made while a value is
//! built or moved (the key schedule boxed here, the shared point's limbs inside `graviola`)
//! are not wiped.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

pub(crate) use imp::*;

/// Where `graviola` does not build (or with `--cfg sixpgp_portable`): nothing is available,
/// and the callers take the portable path.
#[cfg(not(all(
    any(target_arch = "x86_64", target_arch = "aarch64"),
    target_pointer_width = "64",
    target_endian = "little",
    not(sixpgp_portable)
)))]
mod imp {
    use crate::crypto::aead_backend::{AeadBackend, TAG_LEN};
    use crate::crypto::secret::{Curve25519Secret, Secret32};
    use crate::error::Result;

    /// No assembly-backed GCM here (a value cannot exist).
    pub(crate) enum FastGcm {}

    impl AeadBackend for FastGcm {
        fn seal(&self, _: &[u8], _: &[u8], _: &mut [u8]) -> Result<[u8; TAG_LEN]> {
            match *self {}
        }

        fn open(&self, _: &[u8], _: &[u8], _: &mut [u8], _: &[u8; TAG_LEN]) -> Result<()> {
            match *self {}
        }
    }

    /// `graviola` is never used here.
    pub(crate) fn available() -> bool {
        false
    }

    pub(crate) fn gcm(_: &[u8]) -> Option<Box<FastGcm>> {
        None
    }

    pub(crate) fn x25519_public_key(_: &Curve25519Secret) -> Option<[u8; 32]> {
        None
    }

    pub(crate) fn x25519_shared_point(_: &Curve25519Secret, _: &[u8; 32]) -> Option<Option<Secret32>> {
        None
    }

    pub(crate) fn ed25519_verify(_: &[u8; 32], _: &[u8], _: &[u8; 64]) -> Option<bool> {
        None
    }
}

/// Where `graviola` builds (the same condition as its dependency in Cargo.toml).
#[cfg(all(
    any(target_arch = "x86_64", target_arch = "aarch64"),
    target_pointer_width = "64",
    target_endian = "little",
    not(sixpgp_portable)
))]
mod imp {
    use std::sync::OnceLock;

    use graviola::aead::AesGcm;
    use graviola::key_agreement::x25519::{PublicKey, StaticPrivateKey};
    use graviola::signing::eddsa::Ed25519VerifyingKey;
    use zeroize::Zeroize;

    use crate::crypto::aead_backend::{AeadBackend, TAG_LEN};
    use crate::crypto::secret::{Curve25519Secret, Secret32};
    use crate::error::{Error, Result};

    /// Whether the CPU has every feature `graviola` asserts (checked once per process: a debug
    /// build's `GRAVIOLA_CPU_DISABLE_<feature>` must be set before the first use).
    pub(crate) fn available() -> bool {
        static AVAILABLE: OnceLock<bool> = OnceLock::new();
        *AVAILABLE.get_or_init(detect)
    }

    /// `graviola`'s own check (the one it asserts, so that the two cannot disagree, also when
    /// its debug builds are told to hide a feature with `GRAVIOLA_CPU_DISABLE_<feature>`), and on
    /// x86_64 BMI2 and ADX too: its curve assembly uses MULX, which its check leaves out, and
    /// ADCX/ADOX, which its check leaves out in a build made with `VALGRIND_BUG_494162` set.
    /// (Stricter than `graviola` only means the portable path more often, never its panic.)
    fn detect() -> bool {
        #[cfg(target_arch = "x86_64")]
        let extra = std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("adx");
        #[cfg(not(target_arch = "x86_64"))]
        let extra = true;
        graviola::util::is_cpu_supported() && extra
    }

    /// GCM's nonce length in OpenPGP: 96 bits.
    const NONCE_LEN: usize = 12;

    /// Whether GCM allows a text of `len` octets (`graviola` does not check; the limit is
    /// the one `aes-gcm` applies on the portable path).
    fn text_fits(len: usize) -> bool {
        u64::try_from(len).is_ok_and(|n| n <= aes_gcm::P_MAX)
    }

    /// AES-GCM (SP 800-38D) with 96-bit nonces and 128-bit tags, as OpenPGP uses it, on
    /// `graviola`.
    pub(crate) struct FastGcm(AesGcm);

    impl AeadBackend for FastGcm {
        fn seal(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<[u8; TAG_LEN]> {
            let nonce = <&[u8; NONCE_LEN]>::try_from(nonce)
                .map_err(|_| Error::InvalidArgument("AEAD nonce length"))?;
            if !text_fits(buf.len()) {
                return Err(Error::InvalidArgument("AEAD input too long"));
            }
            let mut tag = [0u8; TAG_LEN];
            self.0.encrypt(nonce, ad, buf, &mut tag);
            Ok(tag)
        }

        fn open(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<()> {
            let opened = <&[u8; NONCE_LEN]>::try_from(nonce)
                .ok()
                .filter(|_| text_fits(buf.len()))
                .is_some_and(|nonce| self.0.decrypt(nonce, ad, buf, tag).is_ok());
            if opened {
                Ok(())
            } else {
                // `graviola` clears the buffer on a bad tag; the other failures leave it as it was.
                buf.zeroize();
                Err(Error::Decrypt)
            }
        }
    }

    /// AES-GCM keyed with `key`, if [`available`] and `key` is an AES-128 or AES-256 key
    /// (`graviola` has no AES-192).
    pub(crate) fn gcm(key: &[u8]) -> Option<Box<FastGcm>> {
        (available() && matches!(key.len(), 16 | 32)).then(|| Box::new(FastGcm(AesGcm::new(key))))
    }

    /// `X25519(secret, 9)`, if [`available`].
    pub(crate) fn x25519_public_key(secret: &Curve25519Secret) -> Option<[u8; 32]> {
        available().then(|| StaticPrivateKey::from_array(&secret.0).public_key().as_bytes())
    }

    /// `X25519(secret, public)`, if [`available`]: `Some(None)` for an all-zero result (a
    /// low-order `public`).
    pub(crate) fn x25519_shared_point(
        secret: &Curve25519Secret,
        public: &[u8; 32],
    ) -> Option<Option<Secret32>> {
        if !available() {
            return None;
        }
        let secret = StaticPrivateKey::from_array(&secret.0);
        // `graviola` answers an error exactly for the all-zero result.
        // (`SharedSecret` wipes itself when dropped.)
        Some(
            secret.diffie_hellman(&PublicKey::from_array(public)).ok().map(|shared| Secret32::new(&shared.0)),
        )
    }

    /// PureEdDSA verification (RFC 8032 §5.1.7, cofactorless), if [`available`]; the caller
    /// makes the strict checks of the encodings first (see `ed25519::verify`).
    pub(crate) fn ed25519_verify(public: &[u8; 32], msg: &[u8], sig: &[u8; 64]) -> Option<bool> {
        available()
            .then(|| Ed25519VerifyingKey::from_bytes(public).is_ok_and(|key| key.verify(sig, msg).is_ok()))
    }

    #[cfg(test)]
    #[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing, reason = "test code")]
    mod tests {
        use aes::{Aes128, Aes256};
        use aes_gcm::aead::KeyInit;
        use aes_gcm::aead::consts::U12;
        use proptest::prelude::*;

        use super::*;
        use crate::crypto::aead::RustCrypto;
        use crate::crypto::secret::Ed25519Secret;
        use crate::crypto::{ed25519, x25519};

        /// Whether these tests can compare anything: the development and CI machines have the
        /// features; elsewhere the portable path is the only one (and is tested on its own).
        /// `SIXPGP_EXPECT_GRAVIOLA=1` or `=0` (set by `.ci/run`) makes a run fail if the path
        /// it means to test is not the one taken.
        fn here() -> bool {
            match std::env::var("SIXPGP_EXPECT_GRAVIOLA").as_deref() {
                Ok("1") => assert!(available(), "graviola expected"),
                Ok("0") => assert!(!available(), "the portable path expected"),
                _ => {}
            }
            if !available() {
                eprintln!("skipped: the CPU lacks graviola's features");
            }
            available()
        }

        /// `FastGcm` against `aes-gcm`, the portable path: same ciphertext and tag, and each
        /// opens the other's.
        fn gcm_agrees(key: &[u8], nonce: &[u8; 12], ad: &[u8], data: &[u8]) {
            let fast = gcm(key).unwrap();
            let portable: Box<dyn AeadBackend> = match key.len() {
                16 => Box::new(RustCrypto(aes_gcm::AesGcm::<Aes128, U12>::new_from_slice(key).unwrap())),
                _ => Box::new(RustCrypto(aes_gcm::AesGcm::<Aes256, U12>::new_from_slice(key).unwrap())),
            };
            let (mut a, mut b) = (data.to_vec(), data.to_vec());
            let ta = fast.seal(nonce, ad, &mut a).unwrap();
            let tb = portable.seal(nonce, ad, &mut b).unwrap();
            assert_eq!((&a, ta), (&b, tb));
            fast.open(nonce, ad, &mut a, &tb).unwrap();
            portable.open(nonce, ad, &mut b, &ta).unwrap();
            assert_eq!((&a, &b), (&data.to_vec(), &data.to_vec()));
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            #[test]
            fn gcm_matches_portable(
                long_key in any::<bool>(),
                key in proptest::collection::vec(any::<u8>(), 32),
                nonce in any::<[u8; 12]>(),
                ad in proptest::collection::vec(any::<u8>(), 0..64),
                data in proptest::collection::vec(any::<u8>(), 0..3000),
            ) {
                if here() {
                    gcm_agrees(&key[..if long_key { 32 } else { 16 }], &nonce, &ad, &data);
                }
            }

            #[test]
            fn x25519_matches_portable(secret in any::<[u8; 32]>(), public in any::<[u8; 32]>()) {
                if here() {
                    let secret = Curve25519Secret::new(&secret);
                    prop_assert_eq!(x25519_public_key(&secret), Some(x25519::portable_public_key(&secret)));
                    let fast = x25519_shared_point(&secret, &public).unwrap().map(|s| *s.as_bytes());
                    prop_assert_eq!(fast, x25519::portable_shared_point(&secret, &public).map(|s| *s.as_bytes()));
                }
            }

            #[test]
            fn ed25519_matches_portable(
                secret in any::<[u8; 32]>(),
                msg in proptest::collection::vec(any::<u8>(), 0..100),
                flip in proptest::option::of((0usize..3, any::<usize>(), 0u8..8)),
            ) {
                if here() {
                    let secret = Ed25519Secret::new(&secret);
                    let mut public = ed25519::public_key(&secret);
                    let mut sig = ed25519::sign(&secret, &msg);
                    let mut msg = msg;
                    // One bit flipped in the key, the signature or the message, or none.
                    if let Some((part, at, bit)) = flip {
                        let target: &mut [u8] = match part {
                            0 => &mut public,
                            1 => &mut sig,
                            _ => &mut msg,
                        };
                        if let Some(b) = target.get_mut(at % target.len().max(1)) {
                            *b ^= 1 << bit;
                        }
                    }
                    let fast = ed25519::strict_encoding(&public)
                        && sig.first_chunk::<32>().is_some_and(ed25519::strict_encoding)
                        && ed25519_verify(&public, &msg, &sig).unwrap();
                    prop_assert_eq!(fast, ed25519::portable_verify(&public, &msg, &sig).is_ok());
                    if flip.is_none() {
                        prop_assert!(fast);
                    }
                }
            }
        }

        /// Wrong nonce lengths and bad tags fail, and a failed decryption leaves zeros.
        #[test]
        fn gcm_failures_wipe() {
            if !here() {
                return;
            }
            let fast = gcm(&[7; 32]).unwrap();
            let mut buf = vec![1u8; 100];
            assert!(matches!(fast.seal(&[0; 15], b"", &mut buf), Err(Error::InvalidArgument(_))));
            let tag = fast.seal(&[0; 12], b"ad", &mut buf).unwrap();
            for (nonce, ad, tag) in [
                (&[0u8; 12][..], &b"ad"[..], {
                    let mut t = tag;
                    t[0] ^= 1;
                    t
                }),
                (&[0u8; 12][..], &b"AD"[..], tag),
                (&[0u8; 11][..], &b"ad"[..], tag),
            ] {
                let mut copy = buf.clone();
                assert!(matches!(fast.open(nonce, ad, &mut copy, &tag), Err(Error::Decrypt)));
                assert!(copy.iter().all(|&b| b == 0));
            }
            // No AES-192 here: the caller takes `aes-gcm`.
            assert!(gcm(&[7; 24]).is_none());
        }

        /// Keys and `R`s with every torsion component (A = aB + T, R = rB + T′, S = r + k·a): the
        /// cases where Ed25519 implementations are known to differ. About one in eight verifies
        /// (without the cofactor, the torsion parts must cancel exactly); both paths agree on
        /// every one, and with [`ed25519::verify`]'s encoding checks in front.
        #[test]
        fn ed25519_mixed_order_agrees() {
            use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT as B, EIGHT_TORSION};
            use curve25519_dalek::scalar::Scalar;
            use sha2::{Digest, Sha512};
            if !here() {
                return;
            }
            let (mut accepted, mut total) = (0, 0);
            for (ta, torsion_a) in (0u8..).zip(EIGHT_TORSION.iter()) {
                for (tr, torsion_r) in (0u8..).zip(EIGHT_TORSION.iter()) {
                    for i in 0u8..8 {
                        let a = Scalar::from_bytes_mod_order_wide(&[i.wrapping_mul(7).wrapping_add(3); 64]);
                        let public = (a * B + torsion_a).compress().to_bytes();
                        let r = Scalar::from_bytes_mod_order_wide(&[i.wrapping_add(100); 64]);
                        let r_point = (r * B + torsion_r).compress().to_bytes();
                        let msg = [i, ta, tr];
                        let k: [u8; 64] = Sha512::new()
                            .chain_update(r_point)
                            .chain_update(public)
                            .chain_update(msg)
                            .finalize()
                            .into();
                        let s = r + Scalar::from_bytes_mod_order_wide(&k) * a;
                        let mut sig = [0u8; 64];
                        sig[..32].copy_from_slice(&r_point);
                        sig[32..].copy_from_slice(s.as_bytes());
                        let portable = ed25519::portable_verify(&public, &msg, &sig).is_ok();
                        let fast = ed25519::strict_encoding(&public)
                            && ed25519::strict_encoding(&r_point)
                            && ed25519_verify(&public, &msg, &sig).unwrap();
                        assert_eq!(fast, portable, "A torsion {ta}, R torsion {tr}, i {i}");
                        assert_eq!(ed25519::verify(&public, &msg, &sig).is_ok(), portable);
                        accepted += usize::from(portable);
                        total += 1;
                    }
                }
            }
            assert!(accepted > 0 && accepted < total, "{accepted} of {total}");
        }

        /// A small-order key verifies any "signature" ([S]B, S) in `graviola`'s bare equation;
        /// [`ed25519::verify`] refuses it (its encoding checks are what stops it). And S + ℓ in
        /// place of S is refused by both paths.
        #[test]
        fn ed25519_weak_keys_and_malleability() {
            use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT as B, EIGHT_TORSION};
            use curve25519_dalek::scalar::Scalar;
            if !here() {
                return;
            }
            let s = Scalar::from(12345u64);
            let mut sig = [0u8; 64];
            sig[..32].copy_from_slice(&(s * B).compress().to_bytes());
            sig[32..].copy_from_slice(s.as_bytes());
            let identity = EIGHT_TORSION[0].compress().to_bytes();
            assert!(ed25519_verify(&identity, b"any", &sig).unwrap());
            for torsion in EIGHT_TORSION {
                let public = torsion.compress().to_bytes();
                assert!(ed25519::verify(&public, b"any", &sig).is_err());
                assert!(ed25519::portable_verify(&public, b"any", &sig).is_err());
            }

            let secret = Ed25519Secret::new(&[9; 32]);
            let public = ed25519::public_key(&secret);
            let sig = ed25519::sign(&secret, b"msg");
            assert!(ed25519::verify(&public, b"msg", &sig).is_ok());
            // ℓ = 2^252 + 27742317777372353535851937790883648493, little-endian.
            let order: [u8; 32] = [
                0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
                0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
            ];
            let mut bigger = sig;
            let mut carry = 0u16;
            for (b, l) in bigger[32..].iter_mut().zip(order) {
                let [low, high] = (u16::from(*b) + u16::from(l) + carry).to_le_bytes();
                *b = low;
                carry = u16::from(high);
            }
            let same = Scalar::from_bytes_mod_order(bigger[32..].try_into().unwrap());
            assert_eq!(same.as_bytes(), &sig[32..], "S + ℓ reduces to S");
            assert!(!ed25519_verify(&public, b"msg", &bigger).unwrap());
            assert!(ed25519::portable_verify(&public, b"msg", &bigger).is_err());
            assert!(ed25519::verify(&public, b"msg", &bigger).is_err());
        }

        /// X25519 at the edges: u = 0, 1, 9, p − 1, p, p + 1, p + 9, 2^255 − 1, the two points
        /// of order 8 and RFC 7748's, each also with the top bit set (ignored, RFC 7748 §5),
        /// against all-zero, all-one and RFC secrets: `graviola` and `x25519-dalek` agree,
        /// including on which results are all zero.
        #[test]
        fn x25519_edges_agree() {
            if !here() {
                return;
            }
            let h = |s: &str| -> [u8; 32] { hex::decode(s).unwrap().try_into().unwrap() };
            let small = |v: u8| {
                let mut u = [0u8; 32];
                u[0] = v;
                u
            };
            let near_p = |low: u8| {
                let mut u = [0xffu8; 32];
                u[0] = low;
                u[31] = 0x7f;
                u
            };
            let mut us = vec![
                small(0),
                small(1),
                small(9),
                near_p(0xec),
                near_p(0xed),
                near_p(0xee),
                near_p(0xf6),
                near_p(0xff),
                h("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
                h("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"),
                h("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"),
            ];
            let with_top_bit: Vec<[u8; 32]> = us
                .iter()
                .map(|u| {
                    let mut u = *u;
                    u[31] ^= 0x80;
                    u
                })
                .collect();
            us.extend(with_top_bit);
            let mut zeros = 0;
            for secret in [
                [0u8; 32],
                [0xff; 32],
                [1; 32],
                h("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
            ] {
                let secret = Curve25519Secret::new(&secret);
                assert_eq!(x25519_public_key(&secret), Some(x25519::portable_public_key(&secret)));
                for u in &us {
                    let portable = x25519::portable_shared_point(&secret, u).map(|s| *s.as_bytes());
                    assert_eq!(
                        x25519_shared_point(&secret, u).unwrap().map(|s| *s.as_bytes()),
                        portable,
                        "{}",
                        hex::encode(u)
                    );
                    zeros += usize::from(portable.is_none());
                }
            }
            assert!(zeros > 0);
        }

        /// RFC 7748 §5.2, the first test vector, on `graviola`.
        #[test]
        fn x25519_rfc7748() {
            if !here() {
                return;
            }
            let h = |s: &str| -> [u8; 32] { hex::decode(s).unwrap().try_into().unwrap() };
            let secret =
                Curve25519Secret::new(&h("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"));
            let u = h("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c");
            let out = x25519_shared_point(&secret, &u).unwrap().unwrap();
            assert_eq!(
                *out.as_bytes(),
                h("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552")
            );
            // An all-zero result (u = 0, of low order) is refused.
            assert!(x25519_shared_point(&secret, &[0; 32]).unwrap().is_none());
        }
    }
}
