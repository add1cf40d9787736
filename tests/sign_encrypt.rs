//! Sign+encrypt in one pass ([`Encryptor::signer`]) and decrypt-and-verify in one pass
//! ([`Decryptor::verify_with`]) through the public API: round trips in both profiles and both
//! modes with several signers, signers whose certificate is missing, expired and locked keys,
//! the RFC 9980 sample messages, and 1-octet reads.

#![allow(clippy::unwrap_used, reason = "test helpers outside #[test] functions unwrap too")]

mod common;

use std::io::{BufRead, Read, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::data;
use sixpgp::{
    Cert, DataFormat, DecryptSummary, Decryptor, Encryptor, Error, KeyBuilder, Profile, SignatureMode, Tsk,
    UnverifiableReason, VerificationStatus,
};

const T0: u64 = 1_750_000_000;

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

fn key(profile: Profile, name: &str) -> Tsk {
    KeyBuilder::new(profile).user_id(name).creation_time(at(T0)).generate().unwrap()
}

/// Sign+encrypt `plain` to `recipient` by `signers` at `T0 + 100`.
fn sign_encrypt(recipient: &Cert, signers: &[&Tsk], format: DataFormat, plain: &[u8]) -> Vec<u8> {
    let mut e = Encryptor::new([recipient]).format(format).at(at(T0 + 100));
    for s in signers {
        e = e.signer(*s);
    }
    let mut w = e.writer(Vec::new()).unwrap();
    // Odd write sizes: the hash must not depend on them.
    for piece in plain.chunks(7) {
        w.write_all(piece).unwrap();
    }
    w.finish().unwrap()
}

/// Decrypts with 1-octet reads, verifying against `certs` at `T0 + 200`.
fn decrypt_verify(key: &Tsk, certs: &[Cert], msg: &[u8]) -> sixpgp::Result<(Vec<u8>, DecryptSummary)> {
    let mut r = Decryptor::new([key]).verify_with(certs).at(at(T0 + 200)).reader(msg)?;
    let mut out = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match r.read(&mut byte).map_err(Error::from_io)? {
            0 => break,
            _ => out.push(byte[0]),
        }
    }
    Ok((out, r.finish()?))
}

fn good(summary: &DecryptSummary) -> usize {
    summary.verifications.iter().filter(|v| v.is_good()).count()
}

#[test]
fn round_trips_both_profiles_both_modes_two_signers() {
    let text = b"line one\nline two\r\n\nlast line without newline";
    let binary: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
    for profile in [Profile::Rfc9580, Profile::Pqc] {
        let alice = key(profile, "Alice <alice@example.org>");
        let bob = key(profile, "Bob <bob@example.org>");
        let carol = key(profile, "Carol <carol@example.org>");
        let certs = [alice.to_cert(), bob.to_cert()];
        for (format, plain, mode) in [
            (DataFormat::Binary, &binary[..], SignatureMode::Binary),
            (DataFormat::Utf8, &text[..], SignatureMode::Text),
        ] {
            let msg = sign_encrypt(&carol.to_cert(), &[&alice, &bob], format, plain);
            let (out, summary) = decrypt_verify(&carol, &certs, &msg).unwrap();
            assert_eq!(out, plain, "{profile:?} {format:?}");
            assert_eq!(summary.literal.format(), format);
            assert_eq!(summary.verifications.len(), 2);
            assert_eq!(good(&summary), 2, "{profile:?} {format:?}: {:?}", summary.verifications);
            // One-Pass Signatures, outermost first: in the order the signers were given.
            let signers: Vec<_> = summary.verifications.iter().map(|v| v.cert()).collect();
            assert_eq!(signers, [Some(alice.fingerprint()), Some(bob.fingerprint())]);
            for v in &summary.verifications {
                assert_eq!(v.mode(), Some(mode));
                assert_eq!(v.creation_time(), Some(at(T0 + 100)));
            }
        }
    }
}

#[test]
fn whole_reads_and_bufread_consumption_give_the_same_verdicts() {
    let alice = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let carol = key(Profile::Rfc9580, "Carol <carol@example.org>");
    let plain: Vec<u8> = (0..300_000u32).map(|i| (i % 13) as u8).collect();
    let msg = sign_encrypt(&carol.to_cert(), &[&alice], DataFormat::Binary, &plain);
    let certs = [alice.to_cert()];

    let mut r = Decryptor::new([&carol]).verify_with(&certs).at(at(T0 + 200)).reader(&msg[..]).unwrap();
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).unwrap();
    assert_eq!(out, plain);
    assert_eq!(good(&r.finish().unwrap()), 1);

    // fill_buf/consume in uneven steps (consuming less than offered).
    let mut r = Decryptor::new([&carol]).verify_with(&certs).at(at(T0 + 200)).reader(&msg[..]).unwrap();
    let mut out = Vec::new();
    let mut step = 1;
    loop {
        let buf = r.fill_buf().unwrap();
        if buf.is_empty() {
            break;
        }
        let n = buf.len().min(step);
        out.extend_from_slice(&buf[..n]);
        r.consume(n);
        step = step % 1000 + 333;
    }
    assert_eq!(out, plain);
    assert_eq!(good(&r.finish().unwrap()), 1);

    // finish() without reading still hashes everything.
    let r = Decryptor::new([&carol]).verify_with(&certs).at(at(T0 + 200)).reader(&msg[..]).unwrap();
    assert_eq!(good(&r.finish().unwrap()), 1);
}

#[test]
fn signer_without_certificate_is_unverifiable_and_the_other_still_good() {
    let alice = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let bob = key(Profile::Pqc, "Bob <bob@example.org>");
    let carol = key(Profile::Rfc9580, "Carol <carol@example.org>");
    let msg = sign_encrypt(&carol.to_cert(), &[&alice, &bob], DataFormat::Binary, b"hello");
    let (out, summary) = decrypt_verify(&carol, &[alice.to_cert()], &msg).unwrap();
    assert_eq!(out, b"hello");
    assert_eq!(good(&summary), 1);
    assert!(summary.verifications[0].is_good());
    assert!(matches!(summary.verifications[1].status(), VerificationStatus::Unverifiable(_)));
    // The unverifiable one still names the key it claims.
    assert_eq!(summary.verifications[1].signing_key(), Some(bob.fingerprint()));
    assert_eq!(summary.verifications[1].cert(), None);

    // A certificate for someone else: still unverifiable, not bad.
    let (_, summary) = decrypt_verify(&carol, &[carol.to_cert()], &msg).unwrap();
    assert_eq!(good(&summary), 0);
    assert!(summary.verifications.iter().all(|v| matches!(v.status(), VerificationStatus::Unverifiable(_))));
}

#[test]
fn without_verify_with_signatures_are_listed_unchecked_and_unsigned_messages_have_no_verdict() {
    let alice = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let carol = key(Profile::Rfc9580, "Carol <carol@example.org>");
    let signed = sign_encrypt(&carol.to_cert(), &[&alice], DataFormat::Binary, b"hello");
    let mut r = Decryptor::new([&carol]).reader(&signed[..]).unwrap();
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).unwrap();
    assert_eq!(out, b"hello");
    let verifications = r.finish().unwrap().verifications;
    assert_eq!(verifications.len(), 1);
    assert_eq!(verifications[0].status(), VerificationStatus::Unverifiable(UnverifiableReason::NotRequested));
    // The issuer the signature names is one of Alice's keys.
    let issuer = verifications[0].signing_key().unwrap();
    assert!(issuer == alice.fingerprint() || alice.cert().subkey_fingerprints().any(|f| f == issuer));

    let unsigned = sign_encrypt(&carol.to_cert(), &[], DataFormat::Binary, b"hello");
    let (out, summary) = decrypt_verify(&carol, &[alice.to_cert()], &unsigned).unwrap();
    assert_eq!(out, b"hello");
    assert!(summary.verifications.is_empty());
}

#[test]
fn time_window_expired_and_locked_signers() {
    let carol = key(Profile::Rfc9580, "Carol <carol@example.org>");
    let carol_cert = carol.to_cert();
    // A signing key valid for 1000 s from T0.
    let expiring = KeyBuilder::new(Profile::Rfc9580)
        .user_id("E <e@example.org>")
        .creation_time(at(T0))
        .validity(Duration::from_secs(1000))
        .generate()
        .unwrap();
    let certs = [expiring.to_cert()];
    let msg = sign_encrypt(&carol_cert, &[&expiring], DataFormat::Binary, b"data");
    // Verified long after the key expired: the signature was made while it was valid.
    let mut r = Decryptor::new([&carol]).verify_with(&certs).at(at(T0 + 5000)).reader(&msg[..]).unwrap();
    let _ = r.read_to_end(&mut Vec::new()).unwrap();
    assert_eq!(good(&r.finish().unwrap()), 1);
    // The window excludes the creation time (T0 + 100): bad, but the message still decrypts.
    for d in [
        Decryptor::new([&carol]).verify_with(&certs).at(at(T0 + 200)).not_before(at(T0 + 101)),
        Decryptor::new([&carol]).verify_with(&certs).at(at(T0 + 200)).not_after(at(T0 + 99)),
        // Evaluated before the signature was made: from the future.
        Decryptor::new([&carol]).verify_with(&certs).at(at(T0 + 50)),
    ] {
        let mut r = d.reader(&msg[..]).unwrap();
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"data");
        let summary = r.finish().unwrap();
        assert!(matches!(summary.verifications[0].status(), VerificationStatus::Bad(_)));
    }
    // Signing with the expired key is refused before anything is written.
    let e = Encryptor::new([&carol_cert]).signer(&expiring).at(at(T0 + 2000));
    assert!(matches!(e.writer(Vec::new()), Err(Error::KeyUnusable { .. })));

    // A locked signing key.
    let locked = KeyBuilder::new(Profile::Rfc9580)
        .user_id("L <l@example.org>")
        .password(sixpgp::Password::from(b"pw".to_vec()))
        .generate()
        .unwrap();
    let e = Encryptor::new([&carol_cert]).signer(&locked);
    assert!(matches!(e.writer(Vec::new()), Err(Error::KeyLocked { .. })));
}

#[test]
fn password_encrypted_signed_message() {
    let alice = key(Profile::Pqc, "Alice <alice@example.org>");
    let mut w = Encryptor::default()
        .password(b"secret".to_vec())
        .signer(&alice)
        .at(at(T0 + 100))
        .armor(true)
        .writer(Vec::new())
        .unwrap();
    w.write_all(b"by password").unwrap();
    let msg = w.finish().unwrap();
    let certs = [alice.to_cert()];
    let mut r = Decryptor::default()
        .password(b"secret".to_vec())
        .verify_with(&certs)
        .at(at(T0 + 200))
        .reader(&msg[..])
        .unwrap();
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).unwrap();
    assert_eq!(out, b"by password");
    assert_eq!(good(&r.finish().unwrap()), 1);
}

/// RFC 9980's encrypted and signed sample messages: they decrypt, and the Ed25519 and
/// ML-DSA-65+Ed25519 signatures verify; the SLH-DSA one (an algorithm this crate does not
/// implement) is reported unverifiable, and the message still decrypts.
#[test]
fn rfc9980_sample_messages_decrypt_and_verify() {
    for (sk, pk, msg, verifies) in [
        ("v6-eddsa-sample-sk.asc", "v6-eddsa-sample-pk.asc", "v6-eddsa-sample-message.asc", true),
        ("v6-mldsa-65-sample-sk.asc", "v6-mldsa-65-sample-pk.asc", "v6-mldsa-65-sample-message.asc", true),
        (
            "v6-slhdsa-128s-sample-sk.asc",
            "v6-slhdsa-128s-sample-pk.asc",
            "v6-slhdsa-128s-sample-message.asc",
            false,
        ),
    ] {
        let tsk = Tsk::from_bytes(&data(sk)).unwrap();
        // The SLH-DSA certificate may not parse; its TSK's certificate does.
        let cert = Cert::from_bytes(&data(pk)).unwrap_or_else(|_| tsk.to_cert());
        let certs = [cert];
        let msg_bytes = data(msg);
        let mut r = Decryptor::new([&tsk])
            .verify_with(&certs)
            .at(at(1_767_225_600))
            .reader(&msg_bytes[..])
            .unwrap_or_else(|e| panic!("{msg}: {e}"));
        let mut out = Vec::new();
        let mut byte = [0u8; 1];
        while r.read(&mut byte).unwrap() == 1 {
            out.push(byte[0]);
        }
        assert_eq!(out, b"Testing\n", "{msg}");
        let summary = r.finish().unwrap();
        assert_eq!(summary.verifications.len(), 1, "{msg}");
        let v = &summary.verifications[0];
        if verifies {
            assert!(v.is_good(), "{msg}: {:?}", v.status());
            assert_eq!(v.cert(), Some(certs[0].fingerprint()), "{msg}");
        } else {
            assert!(matches!(v.status(), VerificationStatus::Unverifiable(_)), "{msg}: {:?}", v.status());
        }
    }
    // With the wrong certificate the ML-DSA sample's signature is not good.
    let tsk = Tsk::from_bytes(&data("v6-mldsa-65-sample-sk.asc")).unwrap();
    let other = [Cert::from_bytes(&data("v6-eddsa-sample-pk.asc")).unwrap()];
    let msg_bytes = data("v6-mldsa-65-sample-message.asc");
    let r = Decryptor::new([&tsk]).verify_with(&other).reader(&msg_bytes[..]).unwrap();
    assert_eq!(good(&r.finish().unwrap()), 0);
}
