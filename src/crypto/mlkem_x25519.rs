//! ML-KEM-768+X25519 (public-key algorithm 35), the composite KEM of RFC 9980.
//!
//! Section numbers are those of draft-ietf-openpgp-pqc-17 (published as RFC 9980), §4:
//! <https://www.rfc-editor.org/rfc/rfc9980#section-4>
//!
//! The public key is X25519 public (32) ‖ ML-KEM-768 encapsulation key (1184); the secret key is
//! X25519 secret (32) ‖ ML-KEM seed `d ‖ z` (64), expanded with `ML-KEM.KeyGen_internal(d, z)`
//! (FIPS 203, Algorithm 16).
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use libcrux_ml_kem::mlkem768;
use sha3::Digest;
use zeroize::Zeroizing;

use crate::crypto::aes_kw;
use crate::crypto::rng::Rng;
use crate::crypto::secret::{Curve25519Secret, MlKemSeed, Secret32, SessionKey};
use crate::crypto::x25519;
use crate::error::{Error, Result};
use crate::types::PublicKeyAlgorithm;

/// Length of an ML-KEM-768 encapsulation key.
const MLKEM_PUBLIC_LEN: usize = 1184;
/// Length of an ML-KEM-768 ciphertext.
const MLKEM_CIPHERTEXT_LEN: usize = 1088;

/// Domain separator of the key combiner (§4.2.1): UTF-8 "OpenPGPCompositeKDFv1".
const DOM_SEP: &[u8; 21] = b"OpenPGPCompositeKDFv1";

/// What [`pkesk_encrypt`] returns: ECDH ciphertext, ML-KEM ciphertext, wrapped session key.
#[cfg(test)]
type PkeskFields = ([u8; 32], Box<[u8; MLKEM_CIPHERTEXT_LEN]>, Vec<u8>);

/// An ML-KEM-768 encapsulation key that passed the input check of FIPS 203 §7.2, unpacked
/// for libcrux's encapsulation (the encapsulation key in NTT form and the matrix A sampled),
/// so that a recipient key evaluated once (`Recipients`) does that once, not for every
/// message. As for decapsulation keys (`Unpacked` in `secret.rs`): AVX2 where the CPU has
/// it, the portable code on other CPUs, and on aarch64 the packed key on libcrux's NEON code.
pub(crate) struct MlKemEncapsulationKey(EncapsulationForm);

enum EncapsulationForm {
    #[cfg(sixpgp_mlkem_avx2)]
    Avx2(Box<mlkem768::avx2::unpacked::MlKem768PublicKeyUnpacked>),
    #[cfg(not(target_arch = "aarch64"))]
    Portable(Box<mlkem768::portable::unpacked::MlKem768PublicKeyUnpacked>),
    #[cfg(target_arch = "aarch64")]
    Packed(Box<mlkem768::MlKem768PublicKey>),
}

/// `ek` unpacked in a box by `$api`, one of libcrux's unpacked modules.
#[cfg(not(target_arch = "aarch64"))]
macro_rules! unpack_public {
    ($api:path, $ek:expr) => {{
        use $api as api;
        let mut unpacked = Box::new(api::init_public_key());
        api::unpacked_public_key($ek, &mut unpacked);
        unpacked
    }};
}

impl MlKemEncapsulationKey {
    /// Checks and unpacks `mlkem_pub`.
    ///
    /// # Errors
    /// `Malformed` if the key fails the input check of FIPS 203 §7.2.
    pub(crate) fn new(mlkem_pub: &[u8; MLKEM_PUBLIC_LEN]) -> Result<Self> {
        let ek = mlkem768::MlKem768PublicKey::from(mlkem_pub);
        if !mlkem768::validate_public_key(&ek) {
            return Err(Error::malformed("ML-KEM-768+X25519: invalid ML-KEM public key"));
        }
        #[cfg(sixpgp_mlkem_avx2)]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Ok(Self(EncapsulationForm::Avx2(unpack_public!(mlkem768::avx2::unpacked, &ek))));
        }
        #[cfg(not(target_arch = "aarch64"))]
        {
            Ok(Self(EncapsulationForm::Portable(unpack_public!(mlkem768::portable::unpacked, &ek))))
        }
        #[cfg(target_arch = "aarch64")]
        {
            Ok(Self(EncapsulationForm::Packed(Box::new(ek))))
        }
    }

    /// `ML-KEM.Encaps_internal(ek, m)` (FIPS 203, Algorithm 17): the ciphertext and the shared
    /// secret.
    fn encapsulate(&self, m: [u8; 32]) -> (mlkem768::MlKem768Ciphertext, [u8; 32]) {
        match &self.0 {
            #[cfg(sixpgp_mlkem_avx2)]
            EncapsulationForm::Avx2(key) => mlkem768::avx2::unpacked::encapsulate(key, m),
            #[cfg(not(target_arch = "aarch64"))]
            EncapsulationForm::Portable(key) => mlkem768::portable::unpacked::encapsulate(key, m),
            #[cfg(target_arch = "aarch64")]
            EncapsulationForm::Packed(key) => mlkem768::encapsulate(key, m),
        }
    }
}

impl std::fmt::Debug for MlKemEncapsulationKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MlKemEncapsulationKey")
    }
}

/// What [`encapsulate`] returns: the two ciphertexts of the PKESK and the KEK.
#[derive(Debug)]
pub(crate) struct Encapsulated {
    pub(crate) ecdh_ciphertext: [u8; 32],
    pub(crate) mlkem_ciphertext: Box<[u8; MLKEM_CIPHERTEXT_LEN]>,
    /// Wipes itself on drop.
    pub(crate) kek: Secret32,
}

/// Generates the two component secret keys independently (§4.2.2): an X25519 secret and a
/// 64-octet ML-KEM seed `d ‖ z`.
///
/// # Errors
/// `Io` if the RNG fails.
pub(crate) fn generate(rng: &mut Rng) -> Result<(Curve25519Secret, MlKemSeed)> {
    let x = x25519::generate(rng)?;
    let mut seed = Zeroizing::new([0u8; 64]);
    rng.fill(seed.as_mut_slice())?;
    Ok((x, MlKemSeed::new(&seed)))
}

/// The composite public key: X25519 public key and ML-KEM-768 encapsulation key.
pub(crate) fn public_key(x: &Curve25519Secret, seed: &MlKemSeed) -> ([u8; 32], Box<[u8; 1184]>) {
    let mlkem_pub = Box::new(*seed.decapsulation_key().public().as_slice());
    (x25519::public_key(x), mlkem_pub)
}

/// The key combiner (§4.2.1):
///
/// ```text
/// KEK = SHA3-256(mlkemKeyShare ‖ ecdhKeyShare ‖ ecdhCipherText ‖ ecdhPublicKey ‖ algId
///                ‖ domSep ‖ len(domSep))
/// ```
fn combine(
    mlkem_share: &[u8; 32],
    ecdh_share: &[u8; 32],
    ecdh_ct: &[u8; 32],
    ecdh_pub: &[u8; 32],
    alg_id: u8,
) -> Secret32 {
    let mut h = sha3::Sha3_256::new();
    h.update(mlkem_share);
    h.update(ecdh_share);
    h.update(ecdh_ct);
    h.update(ecdh_pub);
    h.update([alg_id]);
    h.update(DOM_SEP);
    // len(domSep) is one octet, 21.
    h.update([0x15]);
    let mut out = Secret32::zeroed();
    out.0.copy_from_slice(h.finalize().as_slice());
    out
}

/// The algorithm ID octet fed to the combiner.
fn alg_id() -> u8 {
    u8::from(PublicKeyAlgorithm::MlKem768X25519)
}

/// The sender's half of the composite KEM (§4.2.3, steps 1-3): the ECDH ciphertext (ephemeral
/// X25519 public key), the ML-KEM ciphertext and the KEK that wraps the session key. `v` is a
/// fresh X25519 secret and `m` 32 fresh random octets, the randomness of ML-KEM.Encaps (FIPS 203
/// Algorithm 20, step 1), both drawn by the caller, so that the encapsulations for many
/// recipients can run on several threads with the randomness still drawn in order.
///
/// # Errors
/// `Malformed` if the X25519 public key has low order or the ML-KEM key fails the FIPS 203
/// §7.2 input check.
pub(crate) fn encapsulate(
    x_pub: &[u8; 32],
    mlkem_pub: &MlKemEncapsulationKey,
    v: &Curve25519Secret,
    m: &Secret32,
) -> Result<Encapsulated> {
    // 1. (ecdhCipherText, ecdhKeyShare) = ECDH-KEM.Encaps(ecdhPublicKey) (§4.1.1.1):
    //    V = X25519(v, 9), ecdhKeyShare = X25519(v, R).
    let ecdh_ciphertext = x25519::public_key(v);
    let ecdh_share = x25519::shared_point(v, x_pub)
        .ok_or(Error::malformed("ML-KEM-768+X25519: X25519 public key has low order"))?;
    // 2. (mlkemCipherText, mlkemKeyShare) = ML-KEM.Encaps(mlkemPublicKey) (FIPS 203 Alg. 20;
    //    the key passed the input check of §7.2 when it was made), with the caller's m: what
    //    `encapsulate_with_rng` does after drawing m itself.
    let (mlkem_ct, mlkem_share) = mlkem_pub.encapsulate(*m.as_bytes());
    let mlkem_share = Zeroizing::new(mlkem_share);
    // 3. KEK = multiKeyCombine(mlkemKeyShare, ecdhKeyShare, ecdhCipherText, ecdhPublicKey, algId).
    let kek = combine(&mlkem_share, &ecdh_share.0, &ecdh_ciphertext, x_pub, alg_id());
    let mlkem_ciphertext = Box::new(*mlkem_ct.as_slice());
    Ok(Encapsulated { ecdh_ciphertext, mlkem_ciphertext, kek })
}

/// Step 4 of §4.2.3: C = AESKeyWrap(KEK, sessionKey) with AES-256 (RFC 3394), the KEK from
/// [`encapsulate`].
///
/// # Errors
/// `InvalidArgument` if the session key is not 16, 24 or 32 octets.
pub(crate) fn wrap(kek: &Secret32, session_key: &[u8]) -> Result<Vec<u8>> {
    if !matches!(session_key.len(), 16 | 24 | 32) {
        return Err(Error::InvalidArgument("ML-KEM-768+X25519: session key length"));
    }
    aes_kw::wrap(kek.as_bytes(), session_key)
}

/// Encrypts `session_key` to a composite public key (§4.2.3: [`encapsulate`] with randomness
/// from `rng`, then [`wrap`]). Returns the ECDH ciphertext, the ML-KEM ciphertext and the
/// AES-256 key-wrapped session key.
///
/// # Errors
/// As [`encapsulate`] and [`wrap`]; `Io` if the RNG fails.
#[cfg(test)]
fn pkesk_encrypt(
    x_pub: &[u8; 32],
    mlkem_pub: &[u8; 1184],
    session_key: &[u8],
    rng: &mut Rng,
) -> Result<PkeskFields> {
    let v = x25519::generate(rng)?;
    let mut m = Secret32::zeroed();
    rng.fill(m.0.as_mut_slice())?;
    let e = encapsulate(x_pub, &MlKemEncapsulationKey::new(mlkem_pub)?, &v, &m)?;
    let wrapped = wrap(&e.kek, session_key)?;
    Ok((e.ecdh_ciphertext, e.mlkem_ciphertext, wrapped))
}

/// Decrypts the session key of a composite PKESK (§4.2.4), with the ML-KEM key `seed`
/// expands to (once per key: see [`MlKemSeed`]).
///
/// # Errors
/// `Decrypt` if the X25519 share is all zero or the key unwrap fails; `Malformed` if `wrapped`
/// has an impossible length.
pub(crate) fn pkesk_decrypt(
    x_secret: &Curve25519Secret,
    x_pub: &[u8; 32],
    seed: &MlKemSeed,
    ecdh_ct: &[u8; 32],
    mlkem_ct: &[u8; 1088],
    wrapped: &[u8],
) -> Result<SessionKey> {
    // 1. ecdhKeyShare = X25519(r, V); an all-zero value is rejected (RFC 7748 §6.1, §3.4).
    let ecdh_share = x25519::shared_point(x_secret, ecdh_ct).ok_or(Error::Decrypt)?;
    // 2. mlkemKeyShare = ML-KEM.Decaps(mlkemSecretKey, mlkemCipherText) (FIPS 203 Alg. 21;
    //    implicit rejection: a bad ciphertext gives a pseudorandom share, caught by step 4).
    let mlkem_share =
        Zeroizing::new(seed.decapsulation_key().decapsulate(&mlkem768::MlKem768Ciphertext::from(mlkem_ct)));
    // 3. KEK = multiKeyCombine(mlkemKeyShare, ecdhKeyShare, ecdhCipherText, ecdhPublicKey, algId).
    let kek = combine(&mlkem_share, &ecdh_share.0, ecdh_ct, x_pub, alg_id());
    // 4. sessionKey = AESKeyUnwrap(KEK, C); abort if the integrity check fails.
    let key = aes_kw::unwrap(kek.as_bytes(), wrapped)?;
    Ok(SessionKey::from_bytes(&key))
}

/// Helpers that dig key material and packets out of the armored sample files.
#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, reason = "test helper over trusted test vectors")]
pub(super) mod test_util {
    /// Base64 body of an ASCII-armored block (no CRC line in the samples).
    pub(crate) fn dearmor(text: &str) -> Vec<u8> {
        let body: String = text
            .lines()
            .skip_while(|l| !l.is_empty())
            .filter(|l| !l.starts_with("-----") && !l.starts_with('='))
            .collect();
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, body).unwrap()
    }

    /// `(tag, body)` of each packet with a fixed (OpenPGP format) length; stops at a partial
    /// length.
    fn packets(data: &[u8]) -> Vec<(u8, &[u8])> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < data.len() {
            let tag = data[i] & 0x3f;
            let first = usize::from(data[i + 1]);
            let (len, hdr) = match first {
                0..192 => (first, 2),
                192..224 => (((first - 192) << 8) + usize::from(data[i + 2]) + 192, 3),
                255 => {
                    (usize::try_from(u32::from_be_bytes(data[i + 2..i + 6].try_into().unwrap())).unwrap(), 6)
                }
                _ => break,
            };
            out.push((tag, &data[i + hdr..i + hdr + len]));
            i += hdr + len;
        }
        out
    }

    /// The first packet with `tag`.
    pub(crate) fn packet(data: &[u8], tag: u8) -> &[u8] {
        packets(data).into_iter().find(|(t, _)| *t == tag).unwrap().1
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::{dearmor, packet};
    use super::*;
    use crate::crypto::rng::test_util::deterministic;

    fn hex32(v: &serde_json::Value) -> [u8; 32] {
        hex::decode(v.as_str().unwrap()).unwrap().try_into().unwrap()
    }

    /// Decrypts the sample message's PKESK with the sample secret subkey and checks every
    /// published intermediate.
    fn check_sample(sk_asc: &str, msg_asc: &str, json: &str) {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        let inter = &v["published_intermediates"];
        let parsed = &v["parsed_from_packets_not_printed_in_draft"];

        // Secret subkey (tag 7), v6: version, created (4), algorithm, key material length (4),
        // public material (32 + 1184), S2K usage 0, secret material (32 + 64).
        let sk = dearmor(sk_asc);
        let sub = packet(&sk, 7);
        assert_eq!((sub[0], sub[5]), (6, 35));
        assert_eq!(&sub[6..10], &1216u32.to_be_bytes());
        let x_pub: [u8; 32] = sub[10..42].try_into().unwrap();
        let mlkem_pub: [u8; 1184] = sub[42..1226].try_into().unwrap();
        assert_eq!(sub[1226], 0);
        let x_secret = Curve25519Secret::new(sub[1227..1259].try_into().unwrap());
        let seed = MlKemSeed::new(sub[1259..1323].try_into().unwrap());
        assert_eq!(sub.len(), 1323);
        assert_eq!(x_pub, hex32(&parsed["ecdhPublicKey_of_recipient"]));

        // Both public halves are re-derived from the secret material.
        let (xp, mp) = public_key(&x_secret, &seed);
        assert_eq!(xp, x_pub);
        assert_eq!(*mp, mlkem_pub);

        // v6 PKESK (tag 1): version 6, 33, key version 6 ‖ fingerprint (32), algorithm 35,
        // ecdhCipherText (32), mlkemCipherText (1088), len(C), C.
        let msg = dearmor(msg_asc);
        let pkesk = packet(&msg, 1);
        assert_eq!((pkesk[0], pkesk[1], pkesk[2], pkesk[35]), (6, 33, 6, 35));
        let ecdh_ct: [u8; 32] = pkesk[36..68].try_into().unwrap();
        let mlkem_ct: [u8; 1088] = pkesk[68..1156].try_into().unwrap();
        assert_eq!(pkesk[1156], 40);
        let wrapped = &pkesk[1157..];
        assert_eq!(ecdh_ct, hex32(&parsed["ecdhCipherText"]));
        assert_eq!(hex::encode(wrapped), parsed["wrapped_session_key_C"].as_str().unwrap());

        // Each step against the published intermediates.
        let ecdh_share = x25519::shared_point(&x_secret, &ecdh_ct).unwrap();
        assert_eq!(*ecdh_share.as_bytes(), hex32(&inter["ecdhKeyShare"]));
        let mlkem_share = mlkem768::decapsulate(
            &seed.decapsulation_key().secret(),
            &mlkem768::MlKem768Ciphertext::from(mlkem_ct),
        );
        assert_eq!(mlkem_share, hex32(&inter["mlkemKeyShare"]));
        let kek = combine(&mlkem_share, ecdh_share.as_bytes(), &ecdh_ct, &x_pub, 35);
        assert_eq!(*kek.as_bytes(), hex32(&inter["multiKeyCombine_output_KEK"]));

        let session_key = pkesk_decrypt(&x_secret, &x_pub, &seed, &ecdh_ct, &mlkem_ct, wrapped).unwrap();
        assert_eq!(session_key.as_bytes(), hex32(&inter["session_key"]));

        // A modified ML-KEM ciphertext is implicitly rejected, then fails the unwrap.
        let mut bad = mlkem_ct;
        bad[100] ^= 1;
        let r = pkesk_decrypt(&x_secret, &x_pub, &seed, &ecdh_ct, &bad, wrapped);
        assert!(matches!(r, Err(Error::Decrypt)));
    }

    #[test]
    fn pqc_sample_eddsa_message() {
        check_sample(
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-eddsa-sample-sk.asc")),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-eddsa-sample-message.asc")),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-eddsa-sample-message.json")),
        );
    }

    #[test]
    fn pqc_sample_mldsa_message() {
        check_sample(
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-mldsa-65-sample-sk.asc")),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-mldsa-65-sample-message.asc")),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-mldsa-65-sample-message.json")),
        );
    }

    #[test]
    fn round_trip_and_failures() {
        let mut rng = deterministic(35);
        let (x, seed) = generate(&mut rng).unwrap();
        let (x_pub, mlkem_pub) = public_key(&x, &seed);
        let key = [7u8; 32];
        let (ecdh_ct, mlkem_ct, wrapped) = pkesk_encrypt(&x_pub, &mlkem_pub, &key, &mut rng).unwrap();
        assert_eq!(wrapped.len(), 40);
        let sk = pkesk_decrypt(&x, &x_pub, &seed, &ecdh_ct, &mlkem_ct, &wrapped).unwrap();
        assert_eq!(sk.as_bytes(), key);

        // The all-zero X25519 share is rejected in both directions.
        let zero = [0u8; 32];
        let r = pkesk_decrypt(&x, &x_pub, &seed, &zero, &mlkem_ct, &wrapped);
        assert!(matches!(r, Err(Error::Decrypt)));
        let r = pkesk_encrypt(&zero, &mlkem_pub, &key, &mut rng);
        assert!(matches!(r, Err(Error::Malformed(_))));
        // A wrong ECDH ciphertext (a different, valid point) changes the KEK.
        let other = x25519::public_key(&x25519::generate(&mut rng).unwrap());
        let r = pkesk_decrypt(&x, &x_pub, &seed, &other, &mlkem_ct, &wrapped);
        assert!(matches!(r, Err(Error::Decrypt)));
        // An ML-KEM public key with an out-of-range coefficient fails the FIPS 203 §7.2 check.
        let mut bad_pub = *mlkem_pub;
        bad_pub[0] = 0xff;
        bad_pub[1] = 0xff;
        let r = pkesk_encrypt(&x_pub, &bad_pub, &key, &mut rng);
        assert!(matches!(r, Err(Error::Malformed(_))));
        let r = pkesk_encrypt(&x_pub, &mlkem_pub, &[0u8; 20], &mut rng);
        assert!(matches!(r, Err(Error::InvalidArgument(_))));
    }

    /// Every form of a checked encapsulation key (the one this CPU gets, and the portable one
    /// that CPUs without AVX2 get) encapsulates as libcrux's packed key does, and the check
    /// refuses a key with a coefficient out of range.
    #[test]
    fn encapsulation_key_forms_agree() {
        let mut rng = deterministic(5);
        for round in 0u8..8 {
            let (x, seed) = generate(&mut rng).unwrap();
            let (_, mlkem_pub) = public_key(&x, &seed);
            let packed = mlkem768::MlKem768PublicKey::from(&*mlkem_pub);
            let m = [round; 32];
            let expected = mlkem768::encapsulate(&packed, m);
            let mut forms = vec![MlKemEncapsulationKey::new(&mlkem_pub).unwrap()];
            #[cfg(not(target_arch = "aarch64"))]
            forms.push(MlKemEncapsulationKey(EncapsulationForm::Portable(unpack_public!(
                mlkem768::portable::unpacked,
                &packed
            ))));
            for key in forms {
                let (ct, shared) = key.encapsulate(m);
                assert_eq!(ct.as_slice(), expected.0.as_slice());
                assert_eq!(shared, expected.1);
                assert_eq!(seed.decapsulation_key().decapsulate(&ct), shared);
            }
        }
        // The first coefficient 0xfff ≥ q.
        let (x, seed) = generate(&mut rng).unwrap();
        let (_, mut mlkem_pub) = public_key(&x, &seed);
        mlkem_pub[0] = 0xff;
        mlkem_pub[1] |= 0x0f;
        assert!(matches!(MlKemEncapsulationKey::new(&mlkem_pub), Err(Error::Malformed(_))));
    }

    /// The same seed gives the same encapsulation key in RustCrypto's `ml-kem`, each side
    /// decapsulates the other's ciphertext to the same shared secret (with the same randomness,
    /// the ciphertexts are equal), and a modified ciphertext is implicitly rejected to the same
    /// value on both sides.
    fn agrees_with_reference(seed: &[u8; 64], m: &[u8; 32], flip: usize) {
        use ml_kem::{Decapsulate, KeyExport};

        let ours = MlKemSeed::new(seed);
        let ours = ours.decapsulation_key().secret();
        let (x, _) = generate(&mut deterministic(1)).unwrap();
        let (_, mlkem_pub) = public_key(&x, &MlKemSeed::new(seed));
        let theirs = ml_kem::DecapsulationKey768::from_seed(ml_kem::Seed::from(*seed));
        let ek = theirs.encapsulation_key();
        assert_eq!(mlkem_pub.as_slice(), ek.to_bytes().as_slice());

        let (ct, ss) = mlkem768::encapsulate(&mlkem768::MlKem768PublicKey::from(&*mlkem_pub), *m);
        let (their_ct, their_ss) = ek.encapsulate_deterministic(&ml_kem::array::Array::from(*m));
        assert_eq!(ct.as_slice(), their_ct.as_slice());
        assert_eq!(ss.as_slice(), their_ss.as_slice());
        assert_eq!(theirs.decapsulate(&their_ct).as_slice(), ss.as_slice());
        assert_eq!(mlkem768::decapsulate(&ours, &ct), ss);

        let mut bad = *ct.as_slice();
        bad[flip % MLKEM_CIPHERTEXT_LEN] ^= 1;
        let rejected = mlkem768::decapsulate(&ours, &mlkem768::MlKem768Ciphertext::from(bad));
        assert_ne!(rejected, ss);
        assert_eq!(theirs.decapsulate(&ml_kem::array::Array::from(bad)).as_slice(), rejected.as_slice());
    }

    #[test]
    fn sample_key_agrees_with_reference() {
        let sk = dearmor(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/v6-mldsa-65-sample-sk.asc"
        )));
        let seed: [u8; 64] = packet(&sk, 7)[1259..1323].try_into().unwrap();
        agrees_with_reference(&seed, &[0x5c; 32], 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        #[test]
        fn random_keys_agree_with_reference(
            seed in proptest::prelude::any::<[u8; 64]>(),
            m in proptest::prelude::any::<[u8; 32]>(),
            flip in 0..MLKEM_CIPHERTEXT_LEN,
        ) {
            agrees_with_reference(&seed, &m, flip);
        }
    }
}
