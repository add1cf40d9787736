//! Certificates and secret keys: RFC 9580 A.3-A.5 and RFC 9980 sample keys, generation, locking.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{TestRng, data, dearmor, json, packet, split_packets};
use sixpgp::{Cert, Error, KeyBuilder, Limits, Password, Profile, PublicKeyAlgorithm, Tsk, Unsupported};

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

/// 2026-01-01, after every sample key's creation.
fn now() -> SystemTime {
    at(1_767_225_600)
}

#[test]
fn a03_certificate_parses_verifies_and_round_trips() {
    let bytes = data("a03-v6-certificate.asc");
    let cert = Cert::from_bytes(&bytes).unwrap();
    let v = json("a03-v6-certificate.json");
    assert_eq!(cert.fingerprint().to_string().to_lowercase(), v["primary_fingerprint"].as_str().unwrap());
    let subs: Vec<_> = cert.subkey_fingerprints().map(|f| f.to_string().to_lowercase()).collect();
    assert_eq!(subs, vec![v["subkey_fingerprint"].as_str().unwrap().to_string()]);
    assert_eq!(cert.algorithm(), PublicKeyAlgorithm::Ed25519);
    // Both self-signatures verify: the primary is valid and the X25519 subkey can encrypt.
    cert.check_valid_at(now()).unwrap();
    assert!(cert.can_encrypt_at(now()));
    assert!(cert.can_sign_at(now()));
    // Serializing gives identical bytes.
    assert_eq!(cert.to_vec(), dearmor(&bytes));
    // Armored output parses back to the same certificate.
    assert_eq!(Cert::from_bytes(cert.to_armored().as_bytes()).unwrap(), cert);
    // Key ID is the first 8 octets of the v6 fingerprint.
    assert_eq!(cert.key_id().as_bytes()[..], cert.fingerprint().as_bytes()[..8]);
}

#[test]
fn a03_is_not_valid_before_its_creation() {
    let cert = Cert::from_bytes(&data("a03-v6-certificate.asc")).unwrap();
    assert!(matches!(cert.check_valid_at(at(1_600_000_000)), Err(Error::KeyUnusable { .. })));
    assert!(!cert.can_encrypt_at(at(1_600_000_000)));
}

#[test]
fn a04_secret_key_extracts_to_a03() {
    let tsk = Tsk::from_bytes(&data("a04-v6-secret-key.asc")).unwrap();
    assert!(!tsk.is_locked());
    assert_eq!(tsk.to_cert().to_vec(), dearmor(&data("a03-v6-certificate.asc")));
    assert_eq!(&tsk.to_vec()[..], &dearmor(&data("a04-v6-secret-key.asc"))[..]);
    // Allocated once at its length: no reallocation left a copy of the secret key behind.
    assert_eq!(tsk.to_vec().capacity(), tsk.to_vec().len());
    // A secret key is also accepted where a certificate is expected.
    assert_eq!(Cert::from_bytes(&data("a04-v6-secret-key.asc")).unwrap(), tsk.to_cert());
    // A certificate is not a secret key.
    assert!(matches!(Tsk::from_bytes(&data("a03-v6-certificate.asc")), Err(Error::InvalidArgument(_))));
}

#[test]
fn a05_locked_key_unlocks_with_its_passphrase() {
    let mut tsk = Tsk::from_bytes(&data("a05-v6-secret-key-locked.asc")).unwrap();
    assert!(tsk.is_locked());
    assert_eq!(&tsk.to_vec()[..], &dearmor(&data("a05-v6-secret-key-locked.asc"))[..]);
    // A wrong password opens nothing and leaves the key locked.
    assert!(matches!(tsk.unlock(&Password::from("wrong")), Err(Error::BadPassword)));
    assert!(tsk.is_locked());
    // The right one opens both packets, giving A.4's material.
    assert_eq!(tsk.unlock(&Password::from("correct horse battery staple")).unwrap(), 2);
    assert!(!tsk.is_locked());
    assert_eq!(&tsk.to_vec()[..], &dearmor(&data("a04-v6-secret-key.asc"))[..]);
}

/// The S2K usage octet of each secret key packet (after the 42 octets of a v6 Ed25519 or
/// X25519 public key).
fn usages(tsk_bytes: &[u8]) -> Vec<u8> {
    split_packets(tsk_bytes)
        .iter()
        .filter(|(tag, _)| matches!(tag, 5 | 7))
        .map(|(_, body)| body[42])
        .collect()
}

#[test]
fn cfb_protected_v6_key_unlocks_with_its_passphrase() {
    // A.4 under S2K usage 254 (AES-128 CFB, SHA-1 check, iterated and salted SHA2-256), as
    // other implementations write v6 keys; made by scripts/protected-keys.py.
    let bytes = data("a04-locked-cfb-254.asc");
    let mut tsk = Tsk::from_bytes(&bytes).unwrap();
    assert!(tsk.is_locked());
    assert_eq!(usages(&tsk.to_vec()), [254, 254]);
    assert_eq!(&tsk.to_vec()[..], &dearmor(&bytes)[..]);
    assert_eq!(tsk.to_cert().to_vec(), dearmor(&data("a03-v6-certificate.asc")));
    // A wrong password opens nothing.
    assert!(matches!(tsk.unlock(&Password::from("wrong")), Err(Error::BadPassword)));
    assert!(tsk.is_locked());
    // The right one opens both packets, giving A.4's material.
    assert_eq!(tsk.unlock(&Password::from("correct horse battery staple")).unwrap(), 2);
    assert!(!tsk.is_locked());
    assert_eq!(&tsk.to_vec()[..], &dearmor(&data("a04-v6-secret-key.asc"))[..]);
    // A.8's message, to A.3's subkey, decrypts with it.
    let (plain, _) = sixpgp::Decryptor::new([tsk.clone()])
        .decrypt_bytes(&data("a08-x25519-aead-ocb-message.asc"))
        .unwrap();
    assert_eq!(plain, b"Hello, world!");
    // Locked again, it is AEAD-protected (usage 253), never CFB.
    tsk.lock(&Password::from("new")).unwrap();
    assert_eq!(usages(&tsk.to_vec()), [253, 253]);
    let mut again = Tsk::from_bytes(&tsk.to_vec()).unwrap();
    assert_eq!(again.unlock(&Password::from("new")).unwrap(), 2);
}

#[test]
fn unsupported_protections_are_named_and_the_certificate_stays_readable() {
    // A.4 under S2K usage 255 (MalleableCFB) and a bare cipher ID (7), which v6 keys must not
    // use: the key reads and round-trips, its certificate is A.3's, and any use of the secret
    // names the protection; it is never taken for a wrong password.
    for (file, usage) in [("a04-locked-malleable-cfb-255.asc", 255), ("a04-locked-cipher-id-7.asc", 7)] {
        let bytes = data(file);
        let mut tsk = Tsk::from_bytes(&bytes).unwrap();
        assert_eq!(&tsk.to_vec()[..], &dearmor(&bytes)[..], "{file}");
        assert_eq!(usages(&tsk.to_vec()), [usage, usage]);
        assert_eq!(Cert::from_bytes(&bytes).unwrap().to_vec(), dearmor(&data("a03-v6-certificate.asc")));
        // Not locked: no password opens it.
        assert!(!tsk.is_locked(), "{file}");
        for password in ["correct horse battery staple", "wrong"] {
            let e = tsk.unlock(&Password::from(password)).unwrap_err();
            assert!(
                matches!(e, Error::Unsupported(Unsupported::SecretKeyProtection(u)) if u == usage),
                "{file}: {e:?}"
            );
        }
        let e = sixpgp::Signer::new().key(tsk.clone()).sign_bytes(b"x").unwrap_err();
        assert!(matches!(e, Error::Unsupported(Unsupported::SecretKeyProtection(u)) if u == usage), "{e:?}");
        // A message for it says why the key cannot open it, not that no key was given for it.
        let e = sixpgp::Decryptor::new([tsk.clone()])
            .decrypt_bytes(&data("a08-x25519-aead-ocb-message.asc"))
            .unwrap_err();
        assert!(matches!(e, Error::Unsupported(Unsupported::SecretKeyProtection(u)) if u == usage), "{e:?}");
    }
}

#[test]
fn a05_argon2_parameters_are_checked_against_limits_first() {
    let mut tsk = Tsk::from_bytes(&data("a05-v6-secret-key-locked.asc")).unwrap();
    let small = Limits::default().with_max_argon2_memory_kib(1 << 16);
    let err = tsk.unlock_with_limits(&Password::from("correct horse battery staple"), &small).unwrap_err();
    assert!(matches!(err, Error::LimitExceeded(sixpgp::Limit::Argon2Memory)), "{err:?}");
    assert!(tsk.is_locked());
}

#[test]
fn v4_key_is_refused() {
    let err = Cert::from_bytes(&data("a01-v4-ed25519legacy-public-key.asc")).unwrap_err();
    assert!(matches!(err, Error::Unsupported(Unsupported::PacketVersion { version: 4, .. })), "{err:?}");
}

#[test]
fn pqc_sample_keys_behave() {
    let fps = json("pqc-fingerprints.json");
    let _ = fps;
    for (pk, sk, primary_fp, sub_fp, primary_alg) in [
        (
            "v6-eddsa-sample-pk.asc",
            "v6-eddsa-sample-sk.asc",
            "c789e17d9dbdca7b3c833a3c063feb0353f80ad911fe27868fb0645df803e947",
            "dafe0eebb2675ecfcdc20a23fe89ca5d12e83f527dfa354b6dcf662131a48b9d",
            PublicKeyAlgorithm::Ed25519,
        ),
        (
            "v6-mldsa-65-sample-pk.asc",
            "v6-mldsa-65-sample-sk.asc",
            "a3e2e14b6a493ff930fb27321f125e9a6880338be9fb7da3ae065ea65793242f",
            "7dae8fbce23022607167af72a002e774e0ca379a2d7ae072384e1e8fde3265e4",
            PublicKeyAlgorithm::MlDsa65Ed25519,
        ),
    ] {
        let cert = Cert::from_bytes(&data(pk)).unwrap();
        assert_eq!(cert.fingerprint().to_string().to_lowercase(), primary_fp, "{pk}");
        assert_eq!(cert.algorithm(), primary_alg);
        let subs: Vec<_> = cert.subkey_fingerprints().map(|f| f.to_string().to_lowercase()).collect();
        assert_eq!(subs, vec![sub_fp.to_string()], "{pk}");
        // Every self-signature verifies (both components for ML-DSA-65+Ed25519).
        cert.check_valid_at(now()).unwrap();
        assert!(cert.can_encrypt_at(now()), "{pk}");
        assert_eq!(
            cert.valid_user_ids_at(now()),
            vec![&b"PQC user (Test Key) <pqc-test-key@example.com>"[..]],
            "{pk}"
        );
        assert_eq!(cert.to_vec(), dearmor(&data(pk)), "{pk}");
        // The secret key's seeds expand to the published public keys (checked on parse use) and
        // extract to the certificate.
        let tsk = Tsk::from_bytes(&data(sk)).unwrap();
        assert_eq!(tsk.to_cert(), cert, "{sk}");
        assert_eq!(&tsk.to_vec()[..], &dearmor(&data(sk))[..], "{sk}");
    }
}

#[test]
fn unsupported_algorithm_samples_are_refused_cleanly() {
    for name in [
        "v6-mldsa-87-sample-pk.asc",
        "v6-slhdsa-128s-sample-pk.asc",
        "v6-slhdsa-128f-sample-pk.asc",
        "v6-slhdsa-256s-sample-pk.asc",
    ] {
        // They parse (the packets are well formed) but nothing about them can be verified, so
        // the certificate is not usable.
        let cert = Cert::from_bytes(&data(name)).unwrap();
        assert!(cert.check_valid_at(now()).is_err(), "{name}");
        assert!(!cert.can_encrypt_at(now()), "{name}");
        assert_eq!(cert.to_vec(), dearmor(&data(name)), "{name}");
    }
}

#[test]
fn generated_keys_in_every_profile_are_valid_and_round_trip() {
    let created = at(1_750_000_000);
    for profile in Profile::ALL {
        let tsk = KeyBuilder::new(profile)
            .user_id("Alice <alice@example.org>")
            .user_id("Alice (work) <alice@work.example>")
            .creation_time(created)
            .rng(TestRng(7))
            .generate()
            .unwrap();
        let cert = tsk.to_cert();
        cert.check_valid_at(now()).unwrap();
        assert!(cert.can_encrypt_at(now()), "{profile:?}");
        assert!(cert.can_sign_at(now()), "{profile:?}");
        assert_eq!(cert.valid_user_ids_at(now()).len(), 2);
        assert_eq!(cert.creation_time(), created);
        let again = Tsk::from_bytes(&tsk.to_vec()).unwrap();
        assert_eq!(again.to_cert(), cert);
        assert_eq!(Cert::from_bytes(&cert.to_vec()).unwrap(), cert);
        // Not valid before it was made.
        assert!(cert.check_valid_at(at(1_700_000_000)).is_err());
    }
}

#[test]
fn generation_is_deterministic_with_an_injected_rng() {
    let make = || {
        KeyBuilder::new(Profile::Pqc)
            .user_id("Det <det@example.org>")
            .creation_time(at(1_750_000_000))
            .rng(TestRng(42))
            .generate()
            .unwrap()
            .to_vec()
    };
    // ML-DSA signing is hedged, but with the randomness injected it is deterministic.
    assert_eq!(make(), make());
}

#[test]
fn signing_only_and_expiring_keys() {
    let created = at(1_750_000_000);
    let tsk = KeyBuilder::new(Profile::Rfc9580).signing_only(true).creation_time(created).generate().unwrap();
    assert!(!tsk.cert().can_encrypt_at(now()));
    assert!(tsk.cert().can_sign_at(now()));

    let tsk = KeyBuilder::new(Profile::Rfc9580)
        .creation_time(created)
        .validity(Duration::from_secs(86_400))
        .generate()
        .unwrap();
    assert!(tsk.cert().can_encrypt_at(created + Duration::from_secs(3600)));
    assert!(!tsk.cert().can_encrypt_at(created + Duration::from_secs(86_400 * 2)));
    assert!(matches!(
        tsk.cert().check_valid_at(created + Duration::from_secs(86_400 * 2)),
        Err(Error::KeyUnusable { .. })
    ));
}

#[test]
fn lock_unlock_and_change_password() {
    let mut tsk =
        KeyBuilder::new(Profile::PqcEncryption).password(Password::from("first")).generate().unwrap();
    assert!(tsk.is_locked());
    let locked = tsk.to_vec();
    assert!(matches!(tsk.lock(&Password::from("second")), Err(Error::KeyLocked { .. })));
    assert!(matches!(tsk.unlock(&Password::from("nope")), Err(Error::BadPassword)));
    assert_eq!(tsk.unlock(&Password::from("first")).unwrap(), 2);
    let plain = tsk.to_vec();
    tsk.lock(&Password::from("second")).unwrap();
    let mut again = Tsk::from_bytes(&tsk.to_vec()).unwrap();
    assert!(again.is_locked());
    assert!(matches!(again.unlock(&Password::from("first")), Err(Error::BadPassword)));
    assert_eq!(again.unlock(&Password::from("second")).unwrap(), 2);
    assert_eq!(&again.to_vec()[..], &plain[..]);
    assert_ne!(&locked[..], &plain[..]);
}

#[test]
fn debug_never_shows_secret_material() {
    let tsk = Tsk::from_bytes(&data("a04-v6-secret-key.asc")).unwrap();
    let shown = format!("{tsk:?}");
    // The X25519 secret of A.4 starts 4d600a4f.
    assert!(!shown.to_lowercase().contains("4d600a4f"), "{shown}");
    assert!(!shown.contains("77, 96, 10, 79"), "{shown}");
}

#[test]
fn debug_of_a_locked_key_hides_what_an_offline_attack_needs() {
    // RFC 9580 A.5: the primary key's Argon2 salt starts 5d6fd71c, its OCB IV b4a8a927, and
    // the encrypted secret 78258fa4. With those, a log line would be enough to attack the
    // password offline.
    let tsk = Tsk::from_bytes(&data("a05-v6-secret-key-locked.asc")).unwrap();
    let shown = format!("{tsk:?}");
    for (what, decimal, hex) in [
        ("salt", "93, 111, 215, 28", "5d6fd71c"),
        ("IV", "180, 168, 169, 39", "b4a8a927"),
        ("encrypted secret", "120, 37, 143, 164", "78258fa4"),
    ] {
        assert!(!shown.contains(decimal) && !shown.to_lowercase().contains(hex), "{what} in {shown}");
    }
    // What is shown still says how the key is protected.
    assert!(shown.contains("Argon2") && shown.contains("redacted"), "{shown}");
}

#[test]
fn a_malformed_appended_signature_does_not_break_the_certificate() {
    // Anyone can append a third-party signature to a certificate: one that does not parse
    // (here a v6 signature whose salt has the wrong size) is skipped, not fatal.
    let mut bytes = dearmor(&data("a03-v6-certificate.asc"));
    let mut body = vec![6, 0x10, 27, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0xab, 0xcd, 3, 1, 2, 3];
    body.extend_from_slice(&[0u8; 64]);
    bytes.push(0xc2);
    bytes.push(u8::try_from(body.len()).unwrap());
    bytes.extend_from_slice(&body);
    let cert = Cert::from_bytes(&bytes).unwrap();
    cert.check_valid_at(now()).unwrap();
    assert!(cert.can_encrypt_at(now()));
    assert_eq!(cert.to_vec(), dearmor(&data("a03-v6-certificate.asc")));
}

/// A v6 key packet body (2023-01-01) of `algorithm` whose material is a curve OID, a 263-bit
/// point MPI (0x40 ‖ 32 octets), and for ECDH the KDF parameters (SHA2-256, AES-128); with
/// `secret`, S2K usage 0 and a 255-bit MPI.
#[allow(clippy::unwrap_used, reason = "a test helper; the lengths are small")]
fn legacy_key(algorithm: u8, oid: &[u8], secret: bool) -> Vec<u8> {
    let mut material = vec![u8::try_from(oid.len()).unwrap()];
    material.extend_from_slice(oid);
    material.extend_from_slice(&[0x01, 0x07, 0x40]);
    material.extend_from_slice(&[0x42; 32]);
    if algorithm == 18 {
        material.extend_from_slice(&[3, 1, 8, 7]);
    }
    let mut body = vec![6, 0x63, 0xb0, 0xd0, 0x80, algorithm];
    body.extend_from_slice(&u32::try_from(material.len()).unwrap().to_be_bytes());
    body.extend_from_slice(&material);
    if secret {
        body.extend_from_slice(&[0, 0x00, 0xff]);
        body.extend_from_slice(&[0x24; 32]);
    }
    body
}

#[test]
fn v6_keys_with_deprecated_curve_oids_are_refused() {
    // RFC 9580 §9.2: no v6 key material on the Ed25519Legacy or Curve25519Legacy OIDs.
    const ED25519_LEGACY: &[u8] = &[0x2b, 0x06, 0x01, 0x04, 0x01, 0xda, 0x47, 0x0f, 0x01];
    const CURVE25519_LEGACY: &[u8] = &[0x2b, 0x06, 0x01, 0x04, 0x01, 0x97, 0x55, 0x01, 0x05, 0x01];
    const NIST_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
    let refused = |e: Error| matches!(&e, Error::Malformed(m) if m.context().contains("Legacy curve OID"));

    // An EdDSALegacy primary key with a Curve25519Legacy ECDH subkey, secret and public.
    let tsk = [
        packet(5, &legacy_key(22, ED25519_LEGACY, true)),
        packet(13, b"Legacy <legacy@example.org>"),
        packet(7, &legacy_key(18, CURVE25519_LEGACY, true)),
    ]
    .concat();
    assert!(refused(Tsk::from_bytes(&tsk).unwrap_err()));
    let cert = [
        packet(6, &legacy_key(22, ED25519_LEGACY, false)),
        packet(13, b"Legacy <legacy@example.org>"),
        packet(14, &legacy_key(18, CURVE25519_LEGACY, false)),
    ]
    .concat();
    assert!(refused(Cert::from_bytes(&cert).unwrap_err()));

    // A valid v6 key with such a subkey is refused whole, not used through its other keys.
    let a03 = dearmor(&data("a03-v6-certificate.asc"));
    let a04 = dearmor(&data("a04-v6-secret-key.asc"));
    let legacy_sub = packet(14, &legacy_key(18, CURVE25519_LEGACY, false));
    assert!(refused(Cert::from_bytes(&[a03.clone(), legacy_sub].concat()).unwrap_err()));
    let legacy_secret_sub = packet(7, &legacy_key(18, CURVE25519_LEGACY, true));
    assert!(refused(Tsk::from_bytes(&[a04.clone(), legacy_secret_sub].concat()).unwrap_err()));

    // ECDH on another curve is an algorithm this crate does not implement: passed through.
    let nist_sub = packet(14, &legacy_key(18, NIST_P256, false));
    let cert = Cert::from_bytes(&[a03.clone(), nist_sub.clone()].concat()).unwrap();
    assert_eq!(cert.subkey_fingerprints().count(), 2);
    assert_eq!(cert.to_vec(), [a03, nist_sub].concat());
    let nist_secret_sub = packet(7, &legacy_key(18, NIST_P256, true));
    assert!(Tsk::from_bytes(&[a04, nist_secret_sub].concat()).is_ok());
}
