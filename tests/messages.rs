//! Encryption and decryption through the public API: RFC 9580 and PQC vectors, recipient
//! selection, passwords, session keys.
#![allow(
    clippy::unwrap_used,
    clippy::cast_possible_truncation,
    reason = "test helpers fail loudly; test data is generated from small counters"
)]

mod common;

use std::io::{Read, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{TestRng, data, dearmor, hex_field, json};
use sixpgp::{
    AeadAlgorithm, Cert, DataFormat, DecryptedWith, Decryptor, Encryptor, Error, KeyBuilder, KeyUpdate,
    Limits, Password, Profile, SessionKey, SymmetricAlgorithm, Tsk, Unsupported,
};

const T0: u64 = 1_700_000_000;

fn t0() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(T0)
}

fn key(profile: Profile, seed: u64) -> Tsk {
    KeyBuilder::new(profile)
        .user_id("Test <test@example.org>")
        .creation_time(t0())
        .rng(TestRng(seed))
        .generate()
        .unwrap()
}

fn decrypt(d: Decryptor, msg: &[u8]) -> sixpgp::Result<(Vec<u8>, sixpgp::DecryptSummary)> {
    let mut r = d.reader(msg)?;
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
    Ok((out, r.finish()?))
}

fn encrypt(e: Encryptor, plain: &[u8]) -> Vec<u8> {
    let mut w = e.at(t0() + Duration::from_secs(10)).writer(Vec::new()).unwrap();
    w.write_all(plain).unwrap();
    w.finish().unwrap()
}

#[test]
fn rfc9580_a8_decrypts_with_a4() {
    let tsk = Tsk::from_bytes(&data("a04-v6-secret-key.asc")).unwrap();
    let msg = data("a08-x25519-aead-ocb-message.asc");
    let (plain, summary) = decrypt(Decryptor::new([&tsk]), &msg).unwrap();
    assert_eq!(plain, b"Hello, world!");
    assert_eq!(summary.sym, SymmetricAlgorithm::Aes128);
    assert_eq!(summary.aead, AeadAlgorithm::Ocb);
    assert_eq!(hex::encode(summary.session_key.as_bytes()), "dd708f6fa1ed65114d68d2343e7c2f1d");
    assert_eq!(summary.literal.format(), DataFormat::Binary);
    let sub = tsk.cert().subkey_fingerprints().next().unwrap();
    assert_eq!(summary.decrypted_with, DecryptedWith::Key { cert: tsk.fingerprint(), key: sub });

    // The same with the session key alone, with and without its algorithm.
    let v = json("a08-x25519-aead-ocb.json");
    let sk = hex_field(&v, &["session_key"]);
    for alg in [None, Some(SymmetricAlgorithm::Aes128)] {
        let d = Decryptor::default().session_key(SessionKey::from_bytes(&sk), alg);
        let (plain, summary) = decrypt(d, &msg).unwrap();
        assert_eq!(plain, b"Hello, world!");
        assert_eq!(summary.decrypted_with, DecryptedWith::SessionKey(0));
    }
    // Binary input works too.
    let (plain, _) = decrypt(Decryptor::new([&tsk]), &dearmor(&msg)).unwrap();
    assert_eq!(plain, b"Hello, world!");
}

#[test]
fn rfc9580_a9_a10_a11_decrypt_with_password() {
    for (name, sk) in [
        ("a09-aead-eax-message.asc", "3881bafe985412459b86c36f98cb9a5e"),
        ("a10-aead-ocb-message.asc", "28e79ab82397d3c63de24ac217d7b791"),
        ("a11-aead-gcm-message.asc", "1936fc8568980274bb900d8319360c77"),
    ] {
        let msg = data(name);
        let d = Decryptor::default().password("wrong").password("password");
        let (plain, summary) = decrypt(d, &msg).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(plain, b"Hello, world!", "{name}");
        assert_eq!(hex::encode(summary.session_key.as_bytes()), sk, "{name}");
        assert_eq!(summary.decrypted_with, DecryptedWith::Password(1));
        let wrong = decrypt(Decryptor::default().password("wrong"), &msg);
        assert!(matches!(wrong, Err(Error::BadPassword)), "{name}: {wrong:?}");
    }
}

#[test]
fn rfc9580_a12_seipdv1_is_refused() {
    for name in [
        "a12-1-argon2-aes128-message.asc",
        "a12-2-argon2-aes192-message.asc",
        "a12-3-argon2-aes256-message.asc",
    ] {
        let msg = data(name);
        let r = Decryptor::default().password("password").reader(&msg[..]);
        assert!(matches!(r, Err(Error::Unsupported(Unsupported::Seipdv1))), "{name}: {r:?}");
    }
}

#[test]
fn pqc_sample_messages_decrypt() {
    for (sk, msg) in [
        ("v6-eddsa-sample-sk.asc", "v6-eddsa-sample-message.asc"),
        ("v6-mldsa-65-sample-sk.asc", "v6-mldsa-65-sample-message.asc"),
        ("v6-slhdsa-128s-sample-sk.asc", "v6-slhdsa-128s-sample-message.asc"),
    ] {
        let tsk = Tsk::from_bytes(&data(sk)).unwrap();
        let (plain, summary) =
            decrypt(Decryptor::new([&tsk]), &data(msg)).unwrap_or_else(|e| panic!("{msg}: {e}"));
        assert_eq!(plain, b"Testing\n", "{msg}");
        assert_eq!(summary.sym, SymmetricAlgorithm::Aes256, "{msg}");
        let json_name = msg.replace(".asc", ".json");
        let v = json(&json_name);
        let expected = hex_field(&v, &["published_intermediates", "session_key"]);
        assert_eq!(summary.session_key.as_bytes(), &expected[..], "{msg}");
    }
}

/// The body of a whole packet from [`packets`] (one- or two-octet new-format length).
fn packet_body(packet: &[u8]) -> &[u8] {
    if packet[1] < 192 { &packet[2..] } else { &packet[3..] }
}

/// A certificate whose only key can sign, not encrypt.
fn signing_only_cert() -> Cert {
    KeyBuilder::new(Profile::Rfc9580)
        .user_id("s")
        .creation_time(t0())
        .signing_only(true)
        .rng(TestRng(9))
        .generate()
        .unwrap()
        .to_cert()
}

/// Splits a binary message into whole packets (header + body), for splicing tests.
fn packets(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let len = match rest[1] {
            0..=191 => 2 + rest[1] as usize,
            192..=223 => 3 + (((rest[1] as usize - 192) << 8) + rest[2] as usize + 192),
            255 => 6 + u32::from_be_bytes(rest[2..6].try_into().unwrap()) as usize,
            _ => rest.len(), // partial lengths: the data packet runs to the end here
        };
        out.push(rest[..len].to_vec());
        rest = &rest[len..];
    }
    out
}

#[test]
fn unknown_co_recipient_pkesks_and_skesks_are_skipped() {
    let tsk = Tsk::from_bytes(&data("a04-v6-secret-key.asc")).unwrap();
    let msg = dearmor(&data("a08-x25519-aead-ocb-message.asc"));
    let pk = packets(&msg);
    assert_eq!(pk.len(), 2);
    let junk: Vec<Vec<u8>> = vec![
        // PKESK v7 (unknown version)
        vec![0xc1, 4, 7, 0, 25, 1],
        // PKESK v3
        vec![0xc1, 12, 3, 1, 2, 3, 4, 5, 6, 7, 8, 25, 0, 0],
        // PKESK v6, anonymous, unknown algorithm 99
        vec![0xc1, 6, 6, 0, 99, 1, 2, 3],
        // PKESK v6 to another key, algorithm 36 (ML-KEM-1024+X448, not implemented)
        [vec![0xc1, 40, 6, 33, 6], vec![0xaa; 32], vec![36, 1, 2, 3, 4]].concat(),
        // SKESK v4
        vec![0xc3, 4, 4, 7, 0, 0],
        // SKESK v6 with an unknown S2K and cipher
        [vec![0xc3, 26, 6, 7, 99, 99, 1, 99, 9, 9, 9, 9], vec![0; 16]].concat(),
        // marker and padding
        vec![0xca, 3, b'P', b'G', b'P'],
        vec![0xd5, 2, 0, 0],
    ];
    let spliced: Vec<u8> = junk.iter().chain(pk.iter()).flatten().copied().collect();
    let d = Decryptor::new([&tsk]).password("x");
    let (plain, _) = decrypt(d, &spliced).unwrap();
    assert_eq!(plain, b"Hello, world!");

    // Too many session-key packets for the limit.
    let limited = Decryptor::new([&tsk]).limits(Limits::default().with_max_session_key_packets(3));
    assert!(matches!(limited.reader(&spliced[..]), Err(Error::LimitExceeded(_))));
}

#[test]
fn wrong_key_and_locked_key() {
    let msg = data("a08-x25519-aead-ocb-message.asc");
    let other = key(Profile::Rfc9580, 1);
    assert!(matches!(Decryptor::new([&other]).reader(&msg[..]), Err(Error::NoDecryptionKey { .. })));
    let locked = Tsk::from_bytes(&data("a05-v6-secret-key-locked.asc")).unwrap();
    assert!(matches!(Decryptor::new([&locked]).reader(&msg[..]), Err(Error::KeyLocked { .. })));
    // A locked key does not mask a working one.
    let tsk = Tsk::from_bytes(&data("a04-v6-secret-key.asc")).unwrap();
    let (plain, _) = decrypt(Decryptor::new([&locked, &tsk]), &msg).unwrap();
    assert_eq!(plain, b"Hello, world!");
    // Trailing garbage after the message is refused.
    let mut bin = dearmor(&msg);
    bin.push(0);
    assert!(decrypt(Decryptor::new([&tsk]), &bin).is_err());
}

#[test]
fn round_trips_every_profile_and_mix() {
    let plain: Vec<u8> = (0..70_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let keys: Vec<Tsk> = Profile::ALL.iter().enumerate().map(|(i, p)| key(*p, i as u64 + 10)).collect();
    let certs: Vec<Cert> = keys.iter().map(Tsk::to_cert).collect();
    for ((tsk, cert), profile) in keys.iter().zip(&certs).zip(Profile::ALL) {
        let msg = encrypt(Encryptor::new([cert]).rng(TestRng(5)), &plain);
        let (out, summary) = decrypt(Decryptor::new([tsk]), &msg).unwrap();
        assert_eq!(out, plain);
        let expected =
            if profile == Profile::Rfc9580 { SymmetricAlgorithm::Aes128 } else { SymmetricAlgorithm::Aes256 };
        assert_eq!(summary.sym, expected, "{profile:?}");
        assert_eq!(summary.aead, AeadAlgorithm::Ocb);
    }
    // Several recipients, each decrypts; mixed classic + PQC negotiates AES-128 (common prefs).
    let msg = encrypt(Encryptor::new(&certs).armor(true), &plain);
    assert!(msg.starts_with(b"-----BEGIN PGP MESSAGE-----"));
    for tsk in &keys {
        let (out, summary) = decrypt(Decryptor::new([tsk]), &msg).unwrap();
        assert_eq!(out, plain);
        assert_eq!(summary.sym, SymmetricAlgorithm::Aes128);
    }
    // Hidden recipients: anonymous PKESKs, each key still finds its own.
    let msg = encrypt(Encryptor::new(&certs).hidden_recipients(true), &plain);
    for tsk in &keys {
        let (out, _) = decrypt(Decryptor::new([tsk]), &msg).unwrap();
        assert_eq!(out, plain);
    }
    // The PQC profile forces AES-256.
    let msg = encrypt(Encryptor::new([&certs[0]]).profile(Profile::Pqc), &plain);
    let (_, summary) = decrypt(Decryptor::new([&keys[0]]), &msg).unwrap();
    assert_eq!(summary.sym, SymmetricAlgorithm::Aes256);
}

#[test]
fn passwords_mixed_with_keys_and_session_key_out_in() {
    let tsk = key(Profile::Rfc9580, 3);
    let cert = tsk.to_cert();
    let mut w = Encryptor::new([&cert])
        .password("hunter2")
        .format(DataFormat::Utf8)
        .filename("notes.txt")
        .date(t0())
        .padding(100)
        .at(t0() + Duration::from_secs(1))
        .writer(Vec::new())
        .unwrap();
    w.write_all(b"some text\n").unwrap();
    let (sym, sk) = w.session_key();
    let (sym, sk) = (sym, SessionKey::from_bytes(sk.as_bytes()));
    let msg = w.finish().unwrap();

    let (out, s) = decrypt(Decryptor::new([&tsk]), &msg).unwrap();
    assert_eq!(out, b"some text\n");
    assert_eq!(s.literal.format(), DataFormat::Utf8);
    assert_eq!(s.literal.filename(), b"notes.txt");
    assert_eq!(s.literal.date(), Some(t0()));
    let (out, s) = decrypt(Decryptor::default().password(Password::from("hunter2")), &msg).unwrap();
    assert_eq!(out, b"some text\n");
    assert_eq!(s.decrypted_with, DecryptedWith::Password(0));
    assert_eq!(s.session_key.as_bytes(), sk.as_bytes());
    let (out, _) = decrypt(Decryptor::default().session_key(sk, Some(sym)), &msg).unwrap();
    assert_eq!(out, b"some text\n");
    // A wrong session key of the right length fails authentication.
    let wrong = SessionKey::from_bytes(&vec![0; sym.key_len().unwrap()]);
    assert!(matches!(Decryptor::default().session_key(wrong, None).reader(&msg[..]), Err(Error::Decrypt)));
}

#[test]
fn password_only_uses_aes256() {
    let msg = encrypt(Encryptor::default().password("pw"), b"x");
    let (out, s) = decrypt(Decryptor::default().password("pw"), &msg).unwrap();
    assert_eq!(out, b"x");
    assert_eq!(s.sym, SymmetricAlgorithm::Aes256);
}

#[test]
fn unusable_certs_and_bad_arguments() {
    // A signing-only key cannot be encrypted to.
    let signing = signing_only_cert();
    assert!(matches!(Encryptor::new([&signing]).at(t0()).writer(Vec::new()), Err(Error::KeyUnusable { .. })));
    // Before its creation, a key is not valid either.
    let cert = key(Profile::Rfc9580, 4).to_cert();
    let before = t0() - Duration::from_secs(100);
    assert!(matches!(Encryptor::new([&cert]).at(before).writer(Vec::new()), Err(Error::KeyUnusable { .. })));
    assert!(matches!(Encryptor::default().writer(Vec::new()), Err(Error::InvalidArgument(_))));
    for size in [0, 32, 100, 1 << 23] {
        let r = Encryptor::new([&cert]).at(t0()).chunk_size(size).writer(Vec::new());
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{size}");
    }
    let r = Encryptor::new([&cert]).at(t0()).filename(vec![b'a'; 256]).writer(Vec::new());
    assert!(matches!(r, Err(Error::InvalidArgument(_))));
    // The storage/communications purposes both find the generated subkey.
    for purpose in [sixpgp::Purpose::Storage, sixpgp::Purpose::Communications] {
        assert!(Encryptor::new([&cert]).at(t0()).purpose(purpose).writer(Vec::new()).is_ok());
    }
}

#[test]
fn reader_finish_checks_the_unread_rest() {
    let tsk = key(Profile::Rfc9580, 6);
    let cert = tsk.to_cert();
    let plain = vec![7u8; 5000];
    let msg = encrypt(Encryptor::new([&cert]).chunk_size(64), &plain);
    let mut r = Decryptor::new([&tsk]).reader(&msg[..]).unwrap();
    let mut head = [0u8; 10];
    r.read_exact(&mut head).unwrap();
    assert!(r.finish().is_ok());
    let mut bad = msg.clone();
    let n = bad.len();
    bad[n - 20] ^= 1;
    let mut r = Decryptor::new([&tsk]).reader(&bad[..]).unwrap();
    r.read_exact(&mut head).unwrap();
    assert!(r.finish().is_err());
}

#[test]
fn many_recipients_same_message_on_every_thread_count() {
    let plain = b"to many".repeat(1000);
    // Enough recipients for the per-recipient work to be spread over threads; one is PQC.
    let keys: Vec<Tsk> =
        (0..11u64).map(|i| key(if i == 7 { Profile::Pqc } else { Profile::Rfc9580 }, 100 + i)).collect();
    let certs: Vec<Cert> = keys.iter().map(Tsk::to_cert).collect();
    let reference = encrypt(Encryptor::new(&certs).threads(1).rng(TestRng(42)), &plain);
    for threads in [2, 3, 16] {
        let msg = encrypt(Encryptor::new(&certs).threads(threads).rng(TestRng(42)), &plain);
        assert_eq!(msg, reference, "{threads} threads");
    }
    let msg = encrypt(Encryptor::new(&certs).rng(TestRng(42)), &plain);
    assert_eq!(msg, reference, "default thread count");
    // One PKESK per recipient, in recipient order (v6 PKESK: version 6, length 33, key version
    // 6, the fingerprint), then the SEIPD packet.
    let pk = packets(&reference);
    assert_eq!(pk.len(), certs.len() + 1);
    for (packet, cert) in pk.iter().zip(&certs) {
        let body = packet_body(packet);
        let fp = cert.subkey_fingerprints().next().unwrap();
        assert_eq!(&body[..3], &[6, 33, 6]);
        assert_eq!(&body[3..35], fp.as_bytes());
    }
    for tsk in &keys {
        let (out, _) = decrypt(Decryptor::new([tsk]), &reference).unwrap();
        assert_eq!(out, plain);
    }
    // An unusable certificate among many is still reported.
    let mut with_bad = certs.clone();
    with_bad[5] = signing_only_cert();
    for threads in [1, 2] {
        let r = Encryptor::new(&with_bad).threads(threads).at(t0()).writer(Vec::new());
        assert!(matches!(r, Err(Error::KeyUnusable { .. })), "{threads} threads");
    }
}

/// Certificates with several encryption subkeys, some no longer valid: every valid one gets a
/// PKESK, the same whatever the thread count (each key agreement uses the randomness drawn for
/// its own key), and only the valid ones.
#[test]
fn recipients_with_several_encryption_subkeys() {
    let plain = b"subkeys".repeat(100);
    let mut keys: Vec<Tsk> = (0..9u64).map(|i| key(Profile::Rfc9580, 200 + i)).collect();
    let t1 = t0() + Duration::from_secs(5);
    // keys[1]: an X25519 and an ML-KEM-768+X25519 subkey, both valid.
    keys[1].update(KeyUpdate::new().profile(Profile::Pqc).at(t1)).unwrap();
    // keys[4]: the same, with the X25519 subkey revoked as superseded.
    keys[4].update(KeyUpdate::new().profile(Profile::Pqc).revoke_deprecated_keys(true).at(t1)).unwrap();
    let certs: Vec<Cert> = keys.iter().map(Tsk::to_cert).collect();
    let at = t0() + Duration::from_secs(10);
    assert_eq!(certs[1].encryption_keys_at(at).len(), 2);
    assert_eq!(certs[4].encryption_keys_at(at).len(), 1);
    let reference = encrypt(Encryptor::new(&certs).threads(1).rng(TestRng(7)), &plain);
    let msg = encrypt(Encryptor::new(&certs).threads(2).rng(TestRng(7)), &plain);
    assert_eq!(msg, reference);
    let pk = packets(&reference);
    assert_eq!(pk.len(), 10 + 1, "one PKESK per valid key, then the SEIPD");
    // v6 PKESK: version 6, length 33, key version 6, the fingerprint.
    let recipients: Vec<Vec<u8>> = pk[..10].iter().map(|p| packet_body(p)[3..35].to_vec()).collect();
    let mut want = Vec::new();
    for cert in &certs {
        for (fp, _) in cert.encryption_keys_at(at) {
            want.push(fp.as_bytes().to_vec());
        }
    }
    assert_eq!(recipients, want);
    // Every recipient decrypts, and each PKESK is a fresh key agreement.
    for tsk in &keys {
        assert_eq!(decrypt(Decryptor::new([tsk]), &reference).unwrap().0, plain);
    }
    // The key agreements (algorithm octet on: ephemeral keys, ciphertexts) all differ.
    let mut agreements: Vec<Vec<u8>> = pk[..10].iter().map(|p| packet_body(p)[35..].to_vec()).collect();
    agreements.sort();
    agreements.dedup();
    assert_eq!(agreements.len(), 10);
}

/// The same certificate many times over, hidden (PKESKs without fingerprints): each copy gets a
/// key agreement of its own (no randomness reused across slots), the same on 1 and 2 threads,
/// and the key decrypts.
#[test]
fn one_certificate_many_times_gets_fresh_key_agreements() {
    let plain = b"again".repeat(50);
    for profile in [Profile::Rfc9580, Profile::PqcEncryption] {
        let tsk = key(profile, 300);
        let cert = tsk.to_cert();
        let certs = vec![&cert; 12];
        let one =
            encrypt(Encryptor::new(certs.clone()).hidden_recipients(true).threads(1).rng(TestRng(3)), &plain);
        let two = encrypt(Encryptor::new(certs).hidden_recipients(true).threads(2).rng(TestRng(3)), &plain);
        assert_eq!(one, two, "{profile:?}");
        let pk = packets(&one);
        assert_eq!(pk.len(), 12 + 1);
        let mut bodies: Vec<&Vec<u8>> = pk[..12].iter().collect();
        bodies.sort();
        bodies.dedup();
        assert_eq!(bodies.len(), 12, "{profile:?}");
        assert_eq!(decrypt(Decryptor::new([&tsk]), &one).unwrap().0, plain);
    }
}

/// `cipher_suite` overrides the negotiation; every supported suite round-trips and is what
/// the message says; unsupported ones are refused before any output.
#[test]
fn a_forced_cipher_suite_is_used() {
    use AeadAlgorithm::{Eax, Gcm, Ocb};
    use SymmetricAlgorithm::{Aes128, Aes192, Aes256};
    let tsk = key(Profile::Rfc9580, 40);
    let cert = tsk.to_cert();
    for sym in [Aes128, Aes192, Aes256] {
        for aead in [Ocb, Gcm, Eax] {
            let plain: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
            let msg = encrypt(Encryptor::new([&cert]).cipher_suite(sym, aead), &plain);
            let (out, s) = decrypt(Decryptor::new([&tsk]), &msg).unwrap();
            assert_eq!(out, plain);
            assert_eq!((s.sym, s.aead), (sym, aead));
        }
    }
    let refused = Encryptor::new([&cert]).cipher_suite(Aes128, AeadAlgorithm::Unknown(9)).writer(Vec::new());
    assert!(matches!(refused, Err(Error::Unsupported(Unsupported::AeadAlgorithm(9)))), "{refused:?}");
}

/// `decrypt_all` gives, in order, exactly what `decrypt_bytes` gives for each message, with any
/// thread count: good classic and post-quantum messages, a multi-chunk one, a tampered one and
/// one for another key.
#[test]
fn decrypt_all_matches_decrypt_bytes_in_order() {
    let classic = key(Profile::Rfc9580, 50);
    let pqc = key(Profile::Pqc, 51);
    let other = key(Profile::Rfc9580, 52);
    let mut messages = Vec::new();
    for i in 0..40u32 {
        let to = match i % 3 {
            0 => classic.to_cert(),
            1 => pqc.to_cert(),
            _ => other.to_cert(),
        };
        let len = if i == 7 { 300_000 } else { 50 + i as usize };
        let plain: Vec<u8> = (0..len).map(|j| (j as u32).wrapping_mul(i + 1) as u8).collect();
        let mut msg = encrypt(Encryptor::new([&to]), &plain);
        if i == 11 {
            let n = msg.len();
            msg[n - 20] ^= 1;
        }
        messages.push(msg);
    }
    let d = Decryptor::new([&classic, &pqc]);
    let expected: Vec<_> = messages.iter().map(|m| d.decrypt_bytes(m).map(|(p, _)| p)).collect();
    assert!(expected.iter().filter(|r| r.is_ok()).count() > 20);
    assert!(expected[11].is_err() && expected[2].is_err());
    for threads in [1, 2, 5] {
        let got = Decryptor::new([&classic, &pqc]).threads(threads).decrypt_all(&messages);
        assert_eq!(got.len(), messages.len());
        for (i, (g, e)) in got.into_iter().zip(&expected).enumerate() {
            match (g, e) {
                (Ok((p, _)), Ok(q)) => assert_eq!(&p, q, "message {i}, {threads} threads"),
                (Err(a), Err(b)) => {
                    assert_eq!(std::mem::discriminant(&a), std::mem::discriminant(b), "message {i}")
                }
                (g, e) => panic!("message {i}, {threads} threads: {g:?} vs {e:?}"),
            }
        }
    }
    assert!(Decryptor::new([&classic]).decrypt_all::<Vec<u8>>(&[]).is_empty());
}
