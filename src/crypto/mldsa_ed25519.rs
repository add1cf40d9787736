//! ML-DSA-65+Ed25519 (public-key algorithm 30), the composite signature of RFC 9980.
//!
//! Section numbers are those of draft-ietf-openpgp-pqc-17 (published as RFC 9980), §5:
//! <https://www.rfc-editor.org/rfc/rfc9980#section-5>
//!
//! Both components sign the v6 signature *digest* (RFC 9580 §5.2.4): Ed25519 as PureEdDSA
//! (§5.1.1) and ML-DSA-65 as pure, hedged `ML-DSA.Sign` with an empty context (§5.1.2, FIPS 204
//! Algorithm 2). A signature is valid only if both components verify (§5.2.3).
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use libcrux_ml_dsa::ml_dsa_65::{self, MLDSA65Signature, MLDSA65VerificationKey};
use zeroize::Zeroizing;

use crate::crypto::ed25519;
use crate::crypto::rng::Rng;
#[cfg(test)]
use crate::crypto::secret::MlDsaSigningKey;
use crate::crypto::secret::{Ed25519Secret, MlDsaSeed};
use crate::error::{Error, Result};

/// Length of an ML-DSA-65 public key.
const MLDSA_PUBLIC_LEN: usize = 1952;
/// Length of an ML-DSA-65 signature.
const MLDSA_SIGNATURE_LEN: usize = 3309;

/// The ML-DSA context string: empty (§5.1.2, §9.1.1).
const CONTEXT: &[u8] = &[];

/// Generates the two component secret keys independently (§5.2.1): an Ed25519 secret key and
/// a 32-octet ML-DSA seed ξ.
///
/// # Errors
/// `Io` if the RNG fails.
pub(crate) fn generate(rng: &mut Rng) -> Result<(Ed25519Secret, MlDsaSeed)> {
    let ed = ed25519::generate(rng)?;
    let mut seed = zeroize::Zeroizing::new([0u8; 32]);
    rng.fill(&mut *seed)?;
    Ok((ed, MlDsaSeed::new(&seed)))
}

/// The composite public key: Ed25519 public key and ML-DSA-65 public key.
pub(crate) fn public_key(ed: &Ed25519Secret, seed: &MlDsaSeed) -> ([u8; 32], Box<[u8; MLDSA_PUBLIC_LEN]>) {
    (ed25519::public_key(ed), Box::new(*MLDSA65VerificationKey::as_ref(seed.signing_key().public())))
}

/// Signs the v6 signature digest with both components (§5.2.2).
///
/// # Errors
/// `Io` if the RNG fails; `InvalidArgument` if ML-DSA signing fails (its rejection loop has a
/// bound that is, in practice, never reached).
pub(crate) fn sign(
    ed: &Ed25519Secret,
    seed: &MlDsaSeed,
    digest: &[u8],
    rng: &mut Rng,
) -> Result<([u8; 64], Box<[u8; MLDSA_SIGNATURE_LEN]>)> {
    // 1. edSig = Ed25519.Sign(edSecret, dataDigest) (PureEdDSA, §5.1.1).
    let ed_sig = ed25519::sign(ed, digest);
    // 2. mldsaSig = ML-DSA.Sign(mldsaSecret, dataDigest, ctx = "") (hedged, FIPS 204 Alg. 2).
    let mut rnd = Zeroizing::new([0u8; 32]);
    rng.fill(rnd.as_mut_slice())?;
    let sig = ml_dsa_65::sign(seed.signing_key().secret(), digest, CONTEXT, *rnd)
        .map_err(|_| Error::InvalidArgument("ML-DSA-65: signing failed"))?;
    Ok((ed_sig, Box::new(*sig.as_ref())))
}

/// Verifies both components over the v6 signature digest (§5.2.3).
///
/// # Errors
/// `BadSignature("Ed25519")` or `BadSignature("ML-DSA-65")` naming the first component that does
/// not verify.
pub(crate) fn verify(
    ed_pub: &[u8; 32],
    mldsa_pub: &[u8; 1952],
    digest: &[u8],
    ed_sig: &[u8; 64],
    mldsa_sig: &[u8; 3309],
) -> Result<()> {
    // 1. Ed25519.Verify(edPublic, dataDigest, edSig).
    ed25519::verify(ed_pub, digest, ed_sig)?;
    // 2. ML-DSA.Verify(mldsaPublic, dataDigest, mldsaSig, ctx = "").
    let vk = MLDSA65VerificationKey::new(*mldsa_pub);
    let sig = MLDSA65Signature::new(*mldsa_sig);
    ml_dsa_65::verify(&vk, digest, CONTEXT, &sig).map_err(|_| Error::BadSignature("ML-DSA-65"))
}

#[cfg(test)]
mod tests {
    use sha2::Digest;

    use super::*;
    use crate::crypto::mlkem_x25519::test_util::{dearmor, packet};
    use crate::crypto::rng::test_util::deterministic;

    const SK: &str =
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-mldsa-65-sample-sk.asc"));
    const PK: &str =
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-mldsa-65-sample-pk.asc"));
    const SIG: &str =
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-mldsa-65-sample-signature.asc"));

    /// The public key halves of the sample primary key (tag 6): version, created (4),
    /// algorithm 30, key material length (4), Ed25519 public (32), ML-DSA-65 public (1952).
    fn sample_public() -> ([u8; 32], [u8; 1952]) {
        let pk = dearmor(PK);
        let primary = packet(&pk, 6);
        assert_eq!((primary[0], primary[5]), (6, 30));
        assert_eq!(&primary[6..10], &1984u32.to_be_bytes());
        (primary[10..42].try_into().unwrap(), primary[42..1994].try_into().unwrap())
    }

    /// The secret key halves of the sample primary key (tag 5): public part, S2K usage 0,
    /// Ed25519 secret (32), ML-DSA seed (32).
    #[test]
    fn sample_secret_key_expands_to_the_public_key() {
        let sk = dearmor(SK);
        let primary = packet(&sk, 5);
        assert_eq!((primary.len(), primary[1994]), (2059, 0));
        let ed = Ed25519Secret::new(primary[1995..2027].try_into().unwrap());
        let seed = MlDsaSeed::new(primary[2027..2059].try_into().unwrap());
        let (ed_pub, mldsa_pub) = public_key(&ed, &seed);
        let (want_ed, want_mldsa) = sample_public();
        assert_eq!(ed_pub, want_ed);
        assert_eq!(*mldsa_pub, want_mldsa);
    }

    /// The detached text signature over "Testing\n" (draft -17 A.3.4): recompute the v6 digest
    /// (RFC 9580 §5.2.4: salt ‖ canonical data ‖ hashed part ‖ 0x06 0xFF ‖ length) and verify.
    #[test]
    fn sample_detached_signature_verifies() {
        let (ed_pub, mldsa_pub) = sample_public();
        let sig = dearmor(SIG);
        let body = packet(&sig, 2);
        // version 6, type 0x01, algorithm 30, hash 8 (SHA2-256), hashed length (4).
        assert_eq!(&body[..4], &[6, 1, 30, 8]);
        let hashed_len = u32::from_be_bytes(body[4..8].try_into().unwrap()) as usize;
        let hashed_end = 8 + hashed_len;
        let unhashed_len = u32::from_be_bytes(body[hashed_end..hashed_end + 4].try_into().unwrap()) as usize;
        let mut i = hashed_end + 4 + unhashed_len;
        let left16 = &body[i..i + 2];
        let salt_len = usize::from(body[i + 2]);
        let salt = &body[i + 3..i + 3 + salt_len];
        i += 3 + salt_len;
        let ed_sig: [u8; 64] = body[i..i + 64].try_into().unwrap();
        let mldsa_sig: [u8; 3309] = body[i + 64..].try_into().unwrap();

        let mut h = sha2::Sha256::new();
        h.update(salt);
        h.update(b"Testing\r\n");
        h.update(&body[..hashed_end]);
        h.update([6, 0xff]);
        h.update(u32::try_from(hashed_end).unwrap().to_be_bytes());
        let digest = h.finalize();
        assert_eq!(&digest[..2], left16);

        verify(&ed_pub, &mldsa_pub, &digest, &ed_sig, &mldsa_sig).unwrap();

        // Each component alone is not enough.
        let mut bad_ed = ed_sig;
        bad_ed[0] ^= 1;
        let r = verify(&ed_pub, &mldsa_pub, &digest, &bad_ed, &mldsa_sig);
        assert!(matches!(r, Err(Error::BadSignature("Ed25519"))));
        let mut bad_mldsa = mldsa_sig;
        bad_mldsa[0] ^= 1;
        let r = verify(&ed_pub, &mldsa_pub, &digest, &ed_sig, &bad_mldsa);
        assert!(matches!(r, Err(Error::BadSignature("ML-DSA-65"))));
        // Hashing the raw "Testing\n" (not canonical text) fails.
        let mut h = sha2::Sha256::new();
        h.update(salt);
        h.update(b"Testing\n");
        h.update(&body[..hashed_end]);
        h.update([6, 0xff]);
        h.update(u32::try_from(hashed_end).unwrap().to_be_bytes());
        let raw = h.finalize();
        assert!(verify(&ed_pub, &mldsa_pub, &raw, &ed_sig, &mldsa_sig).is_err());
    }

    #[test]
    fn round_trip_is_hedged() {
        let mut rng = deterministic(30);
        let (ed, seed) = generate(&mut rng).unwrap();
        let (ed_pub, mldsa_pub) = public_key(&ed, &seed);
        let digest = [0x5a; 32];
        let (s1, m1) = sign(&ed, &seed, &digest, &mut rng).unwrap();
        let (s2, m2) = sign(&ed, &seed, &digest, &mut rng).unwrap();
        verify(&ed_pub, &mldsa_pub, &digest, &s1, &m1).unwrap();
        verify(&ed_pub, &mldsa_pub, &digest, &s2, &m2).unwrap();
        // Ed25519 is deterministic; hedged ML-DSA draws fresh randomness each time.
        assert_eq!(s1, s2);
        assert_ne!(m1, m2);
        // Recombining with another key's component fails.
        let (ed2, seed2) = generate(&mut rng).unwrap();
        let (_, m3) = sign(&ed2, &seed2, &digest, &mut rng).unwrap();
        assert!(matches!(
            verify(&ed_pub, &mldsa_pub, &digest, &s1, &m3),
            Err(Error::BadSignature("ML-DSA-65"))
        ));
        assert!(verify(&ed_pub, &mldsa_pub, &[0x5b; 32], &s1, &m1).is_err());
    }

    /// RustCrypto's `ml-dsa` signing key from the same seed.
    fn reference_key(seed: &[u8; 32]) -> ml_dsa::ExpandedSigningKey<ml_dsa::MlDsa65> {
        ml_dsa::ExpandedSigningKey::from_seed(&ml_dsa::Seed::from(*seed))
    }

    /// The sample key's seed gives the same public key in both implementations, and each
    /// verifies the other's signatures.
    fn agrees_with_reference(seed: &[u8; 32], digest: &[u8], rnd: &[u8; 32]) {
        let ours = MlDsaSigningKey::from_seed(seed);
        let theirs = reference_key(seed);
        let vk = theirs.verifying_key();
        assert_eq!(MLDSA65VerificationKey::as_ref(ours.public()), vk.encode().as_slice());
        let ed = Ed25519Secret::new(&[1; 32]);
        let ed_pub = ed25519::public_key(&ed);
        let ed_sig = ed25519::sign(&ed, digest);
        let mldsa_pub: [u8; MLDSA_PUBLIC_LEN] = *MLDSA65VerificationKey::as_ref(ours.public());

        // Ours, hedged with `rnd`, is exactly FIPS 204's ML-DSA.Sign_internal over
        // M' = 0 ‖ |ctx| ‖ ctx ‖ M with the same rnd, and verifies on both sides.
        let sig = ml_dsa_65::sign(ours.secret(), digest, CONTEXT, *rnd).unwrap();
        let want = theirs.sign_internal(&[&[0, 0], CONTEXT, digest], &ml_dsa::B32::from(*rnd));
        assert_eq!(sig.as_slice(), want.encode().as_slice());
        let decoded = ml_dsa::Signature::decode(&want.encode()).unwrap();
        assert!(vk.verify_with_context(digest, CONTEXT, &decoded));
        verify(&ed_pub, &mldsa_pub, digest, &ed_sig, sig.as_ref()).unwrap();

        // Theirs, deterministic, verifies with ours; a flipped bit in it does not.
        let det = theirs.sign_deterministic(digest, CONTEXT).unwrap().encode();
        let mut det: [u8; MLDSA_SIGNATURE_LEN] = det.as_slice().try_into().unwrap();
        verify(&ed_pub, &mldsa_pub, digest, &ed_sig, &det).unwrap();
        det[7] ^= 0x10;
        assert!(matches!(
            verify(&ed_pub, &mldsa_pub, digest, &ed_sig, &det),
            Err(Error::BadSignature("ML-DSA-65"))
        ));
    }

    #[test]
    fn sample_key_agrees_with_reference() {
        let sk = dearmor(SK);
        let primary = packet(&sk, 5);
        let seed: [u8; 32] = primary[2027..2059].try_into().unwrap();
        agrees_with_reference(&seed, &[0x33; 32], &[0x44; 32]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        #[test]
        fn random_keys_agree_with_reference(
            seed in proptest::prelude::any::<[u8; 32]>(),
            rnd in proptest::prelude::any::<[u8; 32]>(),
            digest in proptest::collection::vec(proptest::prelude::any::<u8>(), 32..=64),
        ) {
            agrees_with_reference(&seed, &digest, &rnd);
        }
    }
}
