//! Document signatures through the public API: RFC 9580 A.6/A.7, RFC 9980 samples, round trips
//! in each profile and mode, several signers, unverifiable signatures, time windows.

#![allow(clippy::unwrap_used, reason = "test helpers outside #[test] functions unwrap too")]

mod common;

use std::io::{Read, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{data, dearmor, json};
use sixpgp::{
    ArmorReader, Cert, CleartextMessage, KeyBuilder, Profile, SignatureMode, Signer, Tsk, Verification,
    VerificationStatus, Verifier, is_cleartext_signed,
};

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

/// 2026-01-01, after every sample's creation.
fn now() -> SystemTime {
    at(1_767_225_600)
}

const T0: u64 = 1_750_000_000;

fn key(profile: Profile, name: &str) -> Tsk {
    KeyBuilder::new(profile).user_id(name).creation_time(at(T0)).generate().unwrap()
}

fn good(results: &[Verification]) -> usize {
    results.iter().filter(|v| v.is_good()).count()
}

fn a03() -> Cert {
    Cert::from_bytes(&data("a03-v6-certificate.asc")).unwrap()
}

#[test]
fn rfc9580_a6_cleartext_verifies() {
    let bytes = data("a06-cleartext-signed-message.asc");
    assert!(is_cleartext_signed(&bytes));
    let msg = CleartextMessage::from_reader(&bytes[..]).unwrap();
    let v = json("a06-a07-signature.json");
    assert_eq!(msg.text(), v["signed_text_after_dash_unescaping_lf"].as_str().unwrap().as_bytes());
    let certs = [a03()];
    let results = Verifier::new(&certs).at(now()).verify_cleartext(&msg).unwrap();
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert_eq!(r.status(), VerificationStatus::Good);
    assert_eq!(r.mode(), Some(SignatureMode::Text));
    assert_eq!(r.cert(), Some(certs[0].fingerprint()));
    assert_eq!(r.signing_key(), Some(certs[0].fingerprint()));
    assert_eq!(r.creation_time(), Some(at(0x6398_a363)));

    // Tampered text: a changed word, or an added line, fails.
    let text = String::from_utf8(bytes.clone()).unwrap();
    for tampered in [text.replace("tofu", "tofU"), text.replace("- - noodles\n", "- - noodles\nrice\n")] {
        let msg = CleartextMessage::from_reader(tampered.as_bytes()).unwrap();
        let results = Verifier::new(&certs).at(now()).verify_cleartext(&msg).unwrap();
        assert!(matches!(results[0].status(), VerificationStatus::Bad(_)), "{tampered}");
    }
    // Trailing whitespace and CRLF line endings do not matter.
    let crlf = text.replace("tofu\n", "tofu  \t\n").replace('\n', "\r\n");
    let msg = CleartextMessage::from_reader(crlf.as_bytes()).unwrap();
    assert_eq!(good(&Verifier::new(&certs).at(now()).verify_cleartext(&msg).unwrap()), 1);

    // A Hash header that names the signature's algorithm (SHA2-512) is fine; one that names
    // only another algorithm misleads the reader, so the signature counts as bad.
    let begin = "-----BEGIN PGP SIGNED MESSAGE-----\n";
    for (header, expect_good) in [("Hash: SHA512\n", 1), ("Hash: SHA256, SHA512\n", 1), ("Hash: SHA256\n", 0)]
    {
        let with = text.replacen(begin, &format!("{begin}{header}"), 1);
        let msg = CleartextMessage::from_reader(with.as_bytes()).unwrap();
        let results = Verifier::new(&certs).at(now()).verify_cleartext(&msg).unwrap();
        assert_eq!(good(&results), expect_good, "{header}");
    }
}

#[test]
fn rfc9580_a7_inline_verifies_with_any_read_size() {
    let bytes = dearmor(&data("a07-inline-signed-message.asc"));
    let v = json("a06-a07-signature.json");
    let want = v["signed_text_after_dash_unescaping_lf"].as_str().unwrap().as_bytes();
    let certs = [a03()];
    for step in [1usize, 3, 4096] {
        let mut r = Verifier::new(&certs).at(now()).inline_reader(&bytes[..]).unwrap();
        let mut out = Vec::new();
        let mut buf = vec![0u8; step];
        loop {
            let n = r.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        assert_eq!(out, want);
        let results = r.finish().unwrap();
        assert_eq!(good(&results), 1, "step {step}");
        assert_eq!(results[0].mode(), Some(SignatureMode::Text));
    }
    // A flipped literal octet gives a bad signature; truncation is an error, never EOF.
    let body_at = bytes.windows(5).position(|w| w == b"tofu\n").unwrap();
    let mut tampered = bytes.clone();
    tampered[body_at] ^= 0x20;
    let results = Verifier::new(&certs).at(now()).inline_reader(&tampered[..]).unwrap().finish().unwrap();
    assert!(matches!(results[0].status(), VerificationStatus::Bad(_)));
    for cut in 0..bytes.len() {
        let r = Verifier::new(&certs).at(now()).inline_reader(&bytes[..cut]);
        assert!(r.and_then(|r| r.finish()).is_err(), "cut {cut}");
    }
}

#[test]
fn rfc9980_mldsa65_detached_text_signature() {
    let certs = [Cert::from_bytes(&data("v6-mldsa-65-sample-pk.asc")).unwrap()];
    let sig = data("v6-mldsa-65-sample-signature.asc");
    let verify = |data: &[u8]| Verifier::new(&certs).at(now()).verify_detached(&sig, data).unwrap();
    let results = verify(b"Testing\n");
    assert_eq!(good(&results), 1);
    assert_eq!(results[0].mode(), Some(SignatureMode::Text));
    // Canonical text: CR LF is the same document; other data is not.
    assert_eq!(good(&verify(b"Testing\r\n")), 1);
    assert!(matches!(verify(b"Testing")[0].status(), VerificationStatus::Bad(_)));
    assert!(matches!(verify(b"testing\n")[0].status(), VerificationStatus::Bad(_)));
    // A flipped octet in the ML-DSA half (the end of the packet) fails.
    let mut binary = dearmor(&sig);
    let last = binary.len() - 10;
    binary[last] ^= 1;
    let results = Verifier::new(&certs).at(now()).verify_detached(&binary, &b"Testing\n"[..]).unwrap();
    assert!(matches!(results[0].status(), VerificationStatus::Bad(_)));
    // Unknown certificate: unverifiable, not an error.
    let other = [a03()];
    let results = Verifier::new(&other).at(now()).verify_detached(&sig, &b"Testing\n"[..]).unwrap();
    assert!(matches!(results[0].status(), VerificationStatus::Unverifiable(_)));
}

#[test]
fn unverifiable_signature_does_not_hide_a_good_one() {
    let mut certs = vec![Cert::from_bytes(&data("v6-mldsa-65-sample-pk.asc")).unwrap()];
    if let Ok(c) = Cert::from_bytes(&data("v6-slhdsa-128s-sample-pk.asc")) {
        certs.push(c);
    }
    let slh = dearmor(&data("v6-slhdsa-128s-sample-signature.asc"));
    let alone = Verifier::new(&certs).at(now()).verify_detached(&slh, &b"Testing\n"[..]).unwrap();
    assert_eq!(alone.len(), 1);
    assert!(matches!(alone[0].status(), VerificationStatus::Unverifiable(_)), "{alone:?}");
    let mut both = dearmor(&data("v6-mldsa-65-sample-signature.asc"));
    both.extend_from_slice(&slh);
    let results = Verifier::new(&certs).at(now()).verify_detached(&both, &b"Testing\n"[..]).unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(good(&results), 1);
    // A garbage signature packet body is reported, not an error.
    let mut garbage = vec![0xc2, 3, 6, 0, 0];
    garbage.extend_from_slice(&both);
    let results = Verifier::new(&certs).at(now()).verify_detached(&garbage, &b"Testing\n"[..]).unwrap();
    assert_eq!(results.len(), 3);
    assert!(matches!(results[0].status(), VerificationStatus::Unverifiable(_)));
    assert_eq!(good(&results), 1);
}

#[test]
fn round_trips_in_each_profile_and_mode_with_several_signers() {
    let data = b"first line\r\nsecond line\n- dashed\nFrom me  \n\nno newline at end".to_vec();
    for profile in [Profile::Rfc9580, Profile::Pqc] {
        let alice = key(profile, "Alice <alice@example.org>");
        let bob = key(Profile::Rfc9580, "Bob <bob@example.org>");
        let certs = [alice.to_cert(), bob.to_cert()];
        for mode in [SignatureMode::Binary, SignatureMode::Text] {
            let signer = || Signer::new().key(&alice).key(&bob).mode(mode).creation_time(at(T0 + 100));
            let verifier = || Verifier::new(&certs).at(at(T0 + 200));

            // Detached.
            let mut w = signer().detached().unwrap();
            for piece in data.chunks(7) {
                w.write_all(piece).unwrap();
            }
            let sigs = w.finish().unwrap();
            let results = verifier().verify_detached(&sigs, &data[..]).unwrap();
            assert_eq!(good(&results), 2, "{profile:?} {mode:?}");
            assert!(
                results.iter().all(|r| r.mode() == Some(mode) && r.creation_time() == Some(at(T0 + 100)))
            );
            let mut other = data.clone();
            other[0] ^= 1;
            assert_eq!(good(&verifier().verify_detached(&sigs, &other[..]).unwrap()), 0);
            // Only Alice's certificate: Bob's signature is unverifiable.
            let only_alice = [alice.to_cert()];
            let results =
                Verifier::new(&only_alice).at(at(T0 + 200)).verify_detached(&sigs, &data[..]).unwrap();
            assert_eq!(good(&results), 1);

            // Inline, read back one octet at a time.
            let mut w = signer().inline_writer(Vec::new()).unwrap();
            w.write_all(&data).unwrap();
            let message = w.finish().unwrap();
            let mut r = verifier().inline_reader(&message[..]).unwrap();
            let mut out = Vec::new();
            let mut byte = [0u8; 1];
            while r.read(&mut byte).unwrap() == 1 {
                out.push(byte[0]);
            }
            assert_eq!(out, data);
            assert!(!r.signature_packets().is_empty());
            let results = r.finish().unwrap();
            assert_eq!(good(&results), 2, "inline {profile:?} {mode:?}");

            // Cleartext: always text signatures; the text is what a verifier sees.
            let mut w = signer().cleartext_writer(Vec::new()).unwrap();
            w.write_all(&data).unwrap();
            let armored = w.finish().unwrap();
            assert!(is_cleartext_signed(&armored));
            assert!(!armored.windows(5).any(|w| w == b"Hash:"));
            let msg = CleartextMessage::from_reader(&armored[..]).unwrap();
            assert_eq!(msg.text(), b"first line\nsecond line\n- dashed\nFrom me\n\nno newline at end");
            let results = verifier().verify_cleartext(&msg).unwrap();
            assert_eq!(good(&results), 2, "cleartext {profile:?}");
            assert!(results.iter().all(|r| r.mode() == Some(SignatureMode::Text)));
        }
    }
}

#[test]
fn time_windows_and_expired_keys() {
    let alice = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let certs = [alice.to_cert()];
    let mut w = Signer::new().key(&alice).creation_time(at(T0 + 100)).detached().unwrap();
    w.write_all(b"data").unwrap();
    let sigs = w.finish().unwrap();
    let verify = |v: Verifier| v.verify_detached(&sigs, &b"data"[..]).unwrap();
    assert_eq!(good(&verify(Verifier::new(&certs).at(at(T0 + 200)))), 1);
    assert_eq!(good(&verify(Verifier::new(&certs).at(at(T0 + 200)).not_before(at(T0 + 101)))), 0);
    assert_eq!(good(&verify(Verifier::new(&certs).at(at(T0 + 200)).not_after(at(T0 + 99)))), 0);
    // A signature from the future (after the evaluation time) is not accepted by default.
    assert_eq!(good(&verify(Verifier::new(&certs).at(at(T0 + 50)))), 0);

    // A key that expires after 1000 s: signatures made while it was valid stay good.
    let expiring = KeyBuilder::new(Profile::Rfc9580)
        .user_id("E <e@example.org>")
        .creation_time(at(T0))
        .validity(Duration::from_secs(1000))
        .generate()
        .unwrap();
    let certs = [expiring.to_cert()];
    let mut w = Signer::new().key(&expiring).creation_time(at(T0 + 500)).detached().unwrap();
    w.write_all(b"data").unwrap();
    let sigs = w.finish().unwrap();
    let results = Verifier::new(&certs).at(at(T0 + 5000)).verify_detached(&sigs, &b"data"[..]).unwrap();
    assert_eq!(good(&results), 1);
    // Signing after expiry is refused.
    assert!(matches!(
        Signer::new().key(&expiring).creation_time(at(T0 + 2000)).detached(),
        Err(sixpgp::Error::KeyUnusable { .. })
    ));
    // A signature claiming a time after expiry does not verify (made with a forged clock: the
    // key is used at a time it is valid, then the certificate's expiry is what is checked).
    assert!(Signer::new().key(&expiring).creation_time(at(T0 - 10)).detached().is_err());
}

#[test]
fn locked_key_cannot_sign() {
    let locked = KeyBuilder::new(Profile::Rfc9580)
        .user_id("L <l@example.org>")
        .password(sixpgp::Password::from(b"pw".to_vec()))
        .generate()
        .unwrap();
    assert!(matches!(Signer::new().key(&locked).detached(), Err(sixpgp::Error::KeyLocked { .. })));
    assert!(matches!(Signer::new().detached(), Err(sixpgp::Error::InvalidArgument(_))));
}

#[test]
fn armored_inline_message_reads_through_armor() {
    let alice = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let certs = [alice.to_cert()];
    let armor = sixpgp::ArmorWriter::new(Vec::new(), sixpgp::ArmorKind::Message).unwrap();
    let mut w = Signer::new().key(&alice).creation_time(at(T0 + 1)).inline_writer(armor).unwrap();
    w.write_all(b"hello").unwrap();
    let armored = w.finish().unwrap().finish().unwrap();
    let r = Verifier::new(&certs)
        .at(at(T0 + 2))
        .inline_reader(std::io::BufReader::new(ArmorReader::new(&armored[..])));
    let mut r = r.unwrap();
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).unwrap();
    assert_eq!(out, b"hello");
    assert_eq!(good(&r.finish().unwrap()), 1);
}

#[test]
fn detached_signatures_in_several_armored_blocks_are_all_read() {
    let (alice, bob) = (key(Profile::Rfc9580, "Alice"), key(Profile::Pqc, "Bob"));
    let certs = [alice.to_cert(), bob.to_cert()];
    let data = b"signed by two, in two files";
    let sign =
        |k: &Tsk| Signer::new().key(k).armor(true).creation_time(at(T0 + 10)).sign_bytes(data).unwrap();
    // As `cat alice.sig bob.sig` gives them: two blocks, whitespace between.
    let mut both = sign(&alice);
    both.extend_from_slice(b"\n\n");
    both.extend_from_slice(&sign(&bob));
    let results = Verifier::new(&certs).at(now()).verify_bytes(&both, data).unwrap();
    assert_eq!((results.len(), good(&results)), (2, 2), "{results:?}");
    // Anything but whitespace after a block is read as another block, and must be one.
    let mut trailing = sign(&alice);
    trailing.extend_from_slice(b"not a signature");
    assert!(matches!(
        Verifier::new(&certs).at(now()).verify_bytes(&trailing, data),
        Err(sixpgp::Error::Malformed(_) | sixpgp::Error::Truncated(_))
    ));
}
