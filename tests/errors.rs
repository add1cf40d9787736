//! Errors and verdicts say which certificate and why, as values a caller can match.
#![allow(clippy::unwrap_used, clippy::panic, reason = "test helpers fail loudly")]

use std::error::Error as _;
use std::io::Write;
use std::time::{Duration, SystemTime};

use sixpgp::{
    BadReason, Cert, Encryptor, Error, KeyBuilder, KeyProblem, Profile, ReasonForRevocation, Signer, Tsk,
    UnverifiableReason, VerificationStatus, Verifier,
};

const T0: u64 = 1_700_000_000;

fn at(seconds: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(T0 + seconds)
}

fn key(name: &str) -> Tsk {
    KeyBuilder::new(Profile::Rfc9580).user_id(name).creation_time(at(0)).generate().unwrap()
}

fn encrypt_to(certs: &[Cert], t: SystemTime) -> sixpgp::Result<Vec<u8>> {
    let mut w = Encryptor::new(certs).at(t).writer(Vec::new())?;
    w.write_all(b"x")?;
    w.finish()
}

fn unusable(result: sixpgp::Result<Vec<u8>>) -> (sixpgp::Fingerprint, KeyProblem) {
    match result {
        Err(Error::KeyUnusable { fingerprint, problem, .. }) => (fingerprint, problem),
        other => panic!("expected KeyUnusable, got {other:?}"),
    }
}

#[test]
fn encryption_names_the_certificate_and_the_reason() {
    let good = key("Good <good@example.org>");
    let expiring = KeyBuilder::new(Profile::Rfc9580)
        .user_id("Expiring <exp@example.org>")
        .creation_time(at(0))
        .validity(Duration::from_secs(100))
        .generate()
        .unwrap();
    let mut revoked = key("Revoked <rev@example.org>");
    revoked.revoke(ReasonForRevocation::Compromised, "", at(10)).unwrap();
    let signing_only = KeyBuilder::new(Profile::Rfc9580)
        .user_id("Sign <s@example.org>")
        .creation_time(at(0))
        .signing_only(true);
    let signing_only = signing_only.generate().unwrap();

    let cases = [
        (&expiring, KeyProblem::Expired),
        (&revoked, KeyProblem::Revoked),
        (&signing_only, KeyProblem::NoEncryptionKey),
    ];
    for (bad, problem) in cases {
        // Among several good recipients, the error names the one that failed.
        let certs = [good.to_cert(), bad.to_cert(), good.to_cert()];
        assert_eq!(unusable(encrypt_to(&certs, at(200))), (bad.fingerprint(), problem));
    }
    assert_eq!(
        unusable(encrypt_to(&[good.to_cert()], at(0) - Duration::from_secs(5))).1,
        KeyProblem::NotYetValid
    );
    assert!(encrypt_to(&[good.to_cert(), expiring.to_cert()], at(50)).is_ok());
}

#[test]
fn an_expired_encryption_subkey_is_named_as_expired() {
    let mut tsk = key("Sub <sub@example.org>");
    let sub = tsk.cert().encryption_keys_at(at(1))[0].0;
    tsk.set_expiration(&sub, Some(at(100)), at(5)).unwrap();
    let (fingerprint, problem) = unusable(encrypt_to(&[tsk.to_cert()], at(200)));
    assert_eq!((fingerprint, problem), (tsk.fingerprint(), KeyProblem::Expired));
}

#[test]
fn signing_with_a_revoked_key_names_it() {
    let mut tsk = key("Alice <alice@example.org>");
    tsk.revoke(ReasonForRevocation::NoReason, "", at(10)).unwrap();
    let err = Signer::new().key(&tsk).creation_time(at(20)).detached().map(|_| ()).unwrap_err();
    assert!(
        matches!(err, Error::KeyUnusable { fingerprint, problem: KeyProblem::Revoked, .. } if fingerprint == tsk.fingerprint()),
        "{err:?}"
    );
}

fn sign(tsk: &Tsk, t: SystemTime, data: &[u8]) -> Vec<u8> {
    let mut w = Signer::new().key(tsk).creation_time(t).detached().unwrap();
    w.write_all(data).unwrap();
    w.finish().unwrap()
}

#[test]
fn verdicts_are_matchable() {
    let alice = key("Alice <alice@example.org>");
    let bob = key("Bob <bob@example.org>");
    let sig = sign(&alice, at(20), b"data");
    let verify = |certs: &[Cert], data: &[u8], t| {
        Verifier::new(certs).at(t).verify_detached(&sig, data).unwrap()[0].status()
    };
    assert_eq!(verify(&[alice.to_cert()], b"data", at(30)), VerificationStatus::Good);
    assert_eq!(verify(&[alice.to_cert()], b"date", at(30)), VerificationStatus::Bad(BadReason::Invalid));
    assert_eq!(
        verify(&[bob.to_cert()], b"data", at(30)),
        VerificationStatus::Unverifiable(UnverifiableReason::NoMatchingCert)
    );
    // Made after the evaluation time.
    assert_eq!(
        verify(&[alice.to_cert()], b"data", at(10)),
        VerificationStatus::Bad(BadReason::AfterNotAfter)
    );

    // A signature made when the key was already revoked.
    let mut revoked = alice.clone();
    revoked.revoke(ReasonForRevocation::Compromised, "", at(5)).unwrap();
    assert_eq!(
        verify(&[revoked.to_cert()], b"data", at(30)),
        VerificationStatus::Bad(BadReason::SigningKey(KeyProblem::Revoked))
    );
    let status = verify(&[revoked.to_cert()], b"data", at(30));
    assert!(status.to_string().contains("revoked"), "{status}");
}

#[test]
fn io_errors_keep_their_source() {
    #[derive(Debug)]
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe closed"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let alice = key("Alice <alice@example.org>");
    let err = Encryptor::new([alice.to_cert()]).writer(Broken).and_then(|w| w.finish()).unwrap_err();
    let Error::Io(ref io) = err else { panic!("expected Io, got {err:?}") };
    assert_eq!(io.kind(), std::io::ErrorKind::BrokenPipe);
    assert!(err.source().is_some());
}

#[test]
fn a_wrong_password_is_not_a_missing_key() {
    let alice = key("Alice <alice@example.org>");
    let bob = key("Bob <bob@example.org>");
    let mut w = Encryptor::new([alice.to_cert()]).password("right").writer(Vec::new()).unwrap();
    w.write_all(b"x").unwrap();
    let msg = w.finish().unwrap();
    let wrong = sixpgp::Decryptor::new([&bob]).password("wrong").decrypt_bytes(&msg);
    assert!(matches!(wrong, Err(Error::BadPassword)), "{wrong:?}");
    let no_key = sixpgp::Decryptor::new([&bob]).decrypt_bytes(&msg);
    assert!(matches!(no_key, Err(Error::NoDecryptionKey { .. })), "{no_key:?}");
    assert!(sixpgp::Decryptor::default().password("right").decrypt_bytes(&msg).is_ok());
}

#[test]
fn a_v4_key_is_named_as_such() {
    let v4 = include_bytes!("data/a01-v4-ed25519legacy-public-key.asc");
    let err = Cert::from_bytes(v4).unwrap_err();
    assert!(
        matches!(err, Error::Unsupported(sixpgp::Unsupported::PacketVersion { version: 4, .. })),
        "{err:?}"
    );
    assert!(err.to_string().contains("version 4 key"), "{err}");
}

#[test]
fn a_stream_used_after_an_error_reports_the_first_error_again() {
    use std::io::Read;
    let alice = key("Alice <alice@example.org>");
    let mut msg = Encryptor::new([alice.to_cert()]).chunk_size(64).encrypt_bytes(&[7u8; 1000]).unwrap();
    let at = msg.len() - 40;
    msg[at] ^= 1;
    let mut r = sixpgp::Decryptor::new([&alice]).reader(&msg[..]).unwrap();
    let mut out = Vec::new();
    let first = Error::from_io(r.read_to_end(&mut out).unwrap_err());
    assert!(matches!(first, Error::Decrypt), "{first:?}");
    for _ in 0..2 {
        let again = Error::from_io(r.read(&mut [0u8; 16]).unwrap_err());
        assert!(matches!(again, Error::Decrypt), "{again:?}");
    }
    assert!(matches!(r.finish(), Err(Error::Decrypt)));

    // Truncated inline-signed data: the same Truncated error each time.
    let signed = Signer::new().key(&alice).inline_writer(Vec::new()).unwrap().finish().unwrap();
    let cut = &signed[..signed.len() - 10];
    let mut r = Verifier::new([alice.to_cert()]).inline_reader(cut).unwrap();
    let first = Error::from_io(r.read_to_end(&mut Vec::new()).unwrap_err());
    let again = Error::from_io(r.read(&mut [0u8; 4]).unwrap_err());
    assert_eq!(std::mem::discriminant(&first), std::mem::discriminant(&again), "{first:?} {again:?}");
    assert!(!matches!(again, Error::InvalidArgument(_)), "{again:?}");
}

#[test]
fn a_writer_used_after_an_error_reports_the_first_error_again() {
    /// Takes `room` octets, then reports a full disk.
    #[derive(Debug)]
    struct Filling {
        room: usize,
    }
    impl std::io::Write for Filling {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 {
                return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "disk full"));
            }
            let n = data.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let alice = key("Alice <alice@example.org>");
    let mut w = Encryptor::new([alice.to_cert()]).chunk_size(64).writer(Filling { room: 1000 }).unwrap();
    // More than a partial-body part: data reaches the sink.
    let first = w.write_all(&vec![0u8; 4 << 20]).unwrap_err();
    assert_eq!(first.kind(), std::io::ErrorKind::StorageFull);
    for _ in 0..2 {
        assert_eq!(w.write(&[0u8; 1]).unwrap_err().kind(), std::io::ErrorKind::StorageFull);
    }
    assert!(matches!(w.finish(), Err(Error::Io(e)) if e.kind() == std::io::ErrorKind::StorageFull));
}

/// The subkey of a certificate's problem is reported as the subkey's, not as if the whole
/// certificate were revoked or expired.
#[test]
fn an_unusable_encryption_subkey_is_named() {
    let mut revoked = key("Sub <sub@example.org>");
    let sub = revoked.cert().encryption_keys_at(at(1))[0].0;
    let mut expired = revoked.clone();
    revoked.revoke_subkey(&sub, ReasonForRevocation::Retired, "rotated", at(10)).unwrap();
    expired.set_expiration(&sub, Some(at(100)), at(5)).unwrap();
    for (tsk, problem, text) in
        [(&revoked, KeyProblem::Revoked, "revoked"), (&expired, KeyProblem::Expired, "expired")]
    {
        let err = encrypt_to(&[tsk.to_cert()], at(200)).unwrap_err();
        let Error::KeyUnusable { fingerprint, subkey, problem: got, .. } = &err else { panic!("{err:?}") };
        assert_eq!((*fingerprint, *subkey, *got), (tsk.fingerprint(), Some(sub), problem));
        assert_eq!(
            err.to_string(),
            format!("certificate {}: subkey {sub} not usable: {text}", tsk.fingerprint())
        );
    }
    // The certificate's own revocation is still the certificate's.
    let mut whole = key("Whole <whole@example.org>");
    whole.revoke(ReasonForRevocation::Compromised, "", at(10)).unwrap();
    let err = encrypt_to(&[whole.to_cert()], at(200)).unwrap_err();
    assert!(matches!(err, Error::KeyUnusable { subkey: None, problem: KeyProblem::Revoked, .. }), "{err:?}");
}

#[test]
fn a_missing_key_names_the_recipients() {
    let (alice, bob, carol) = (key("A <a@example.org>"), key("B <b@example.org>"), key("C <c@example.org>"));
    let msg = Encryptor::new([alice.to_cert(), bob.to_cert()]).at(at(10)).encrypt_bytes(b"x").unwrap();
    let err = sixpgp::Decryptor::new([&carol]).decrypt_bytes(&msg).unwrap_err();
    let Error::NoDecryptionKey { recipients, .. } = &err else { panic!("{err:?}") };
    assert_eq!(*recipients, sixpgp::MessageInfo::from_bytes(&msg).unwrap().recipients);
    assert!(recipients.iter().any(|r| r.matches(alice.cert())));
    assert!(recipients.iter().any(|r| r.matches(bob.cert())));
    let text = err.to_string();
    for r in recipients {
        let sixpgp::Recipient::Fingerprint(fp) = r else { panic!("{r:?}") };
        assert!(text.contains(&fp.to_string()), "{text}");
    }
}

#[test]
fn a_locked_key_is_named() {
    let mut alice = key("A <a@example.org>");
    let sub = alice.cert().encryption_keys_at(at(1))[0].0;
    let msg = Encryptor::new([alice.to_cert()]).at(at(10)).encrypt_bytes(b"x").unwrap();
    alice.lock(&sixpgp::Password::from("pw")).unwrap();
    let err = sixpgp::Decryptor::new([&alice]).decrypt_bytes(&msg).unwrap_err();
    assert!(matches!(err, Error::KeyLocked { fingerprint, .. } if fingerprint == sub), "{err:?}");
    assert!(err.to_string().contains(&sub.to_string()), "{err}");
    // Signing needs a signing key: the locked one is named.
    let err = Signer::new().key(&alice).creation_time(at(20)).sign_bytes(b"x").unwrap_err();
    let Error::KeyLocked { fingerprint, .. } = err else { panic!("{err:?}") };
    assert!(alice.cert().key(&fingerprint).unwrap().flags(at(20)).sign());
    let err = alice.lock(&sixpgp::Password::from("again")).unwrap_err();
    assert!(matches!(err, Error::KeyLocked { fingerprint, .. } if fingerprint == alice.fingerprint()));
}

#[test]
fn io_errors_print_their_text_once() {
    let err = Error::Io(std::io::Error::other("disk on fire"));
    let mut chain = vec![err.to_string()];
    let mut source = err.source();
    while let Some(s) = source {
        chain.push(s.to_string());
        source = s.source();
    }
    assert_eq!(chain.iter().filter(|t| t.contains("disk on fire")).count(), 1, "{chain:?}");
}

#[test]
fn verdicts_name_the_signing_certificate() {
    let alice = key("Alice <alice@example.org>");
    let mallory = key("Mallory <mallory@example.org>");
    let (alice_cert, mallory_cert) = (alice.to_cert(), mallory.to_cert());
    let signature = sign(&alice, at(10), b"doc");
    let verdicts =
        Verifier::new([&mallory_cert, &alice_cert]).at(at(20)).verify_bytes(&signature, b"doc").unwrap();
    assert!(verdicts[0].is_good());
    assert_eq!(**verdicts[0].signer().unwrap(), alice_cert);
    assert!(verdicts[0].is_signed_by(&alice_cert));
    assert!(!verdicts[0].is_signed_by(&mallory_cert));
    // A bad signature is not "signed by" anyone, though the certificate it was checked against
    // is known.
    let bad = Verifier::new([&alice_cert]).at(at(20)).verify_bytes(&signature, b"other").unwrap();
    assert!(!bad[0].is_good() && !bad[0].is_signed_by(&alice_cert));

    let bob = key("Bob <bob@example.org>");
    let msg = Encryptor::new([bob.to_cert()]).signer(&alice).at(at(10)).encrypt_bytes(b"x").unwrap();
    let decryptor = sixpgp::Decryptor::new([&bob]).at(at(20));
    let (_, summary) = decryptor.verify_with([&alice_cert, &mallory_cert]).decrypt_bytes(&msg).unwrap();
    assert!(summary.is_signed_by(&alice_cert));
    assert!(!summary.is_signed_by(&mallory_cert));
    // Without verification nothing counts as signed.
    let (_, unchecked) = sixpgp::Decryptor::new([&bob]).decrypt_bytes(&msg).unwrap();
    assert!(!unchecked.is_signed_by(&alice_cert));
}

#[test]
fn revocations_are_described() {
    let mut tsk = key("R <r@example.org>");
    let sub = tsk.cert().encryption_keys_at(at(1))[0].0;
    assert_eq!(tsk.cert().revocation(at(5)), None);
    tsk.revoke_subkey(&sub, ReasonForRevocation::Superseded, "new subkey", at(10)).unwrap();
    let cert = tsk.to_cert();
    let subkey = cert.key(&sub).unwrap();
    assert_eq!(subkey.revocation(at(5)), None, "a soft revocation applies from its creation on");
    let revocation = subkey.revocation(at(20)).unwrap();
    assert_eq!(revocation.reason, Some(ReasonForRevocation::Superseded));
    assert_eq!(revocation.code, Some(1));
    assert_eq!(revocation.text, "new subkey");
    assert_eq!(revocation.creation_time, at(10));
    assert!(!revocation.hard);
    assert_eq!(cert.revocation(at(20)), None, "the certificate itself is not revoked");

    tsk.revoke(ReasonForRevocation::Compromised, "leaked", at(30)).unwrap();
    let revocation = tsk.cert().revocation(at(5)).unwrap();
    assert_eq!(revocation.reason, Some(ReasonForRevocation::Compromised));
    assert_eq!(revocation.text, "leaked");
    assert!(revocation.hard, "a hard revocation applies at any time");
}

#[test]
fn algorithms_display_their_names() {
    use sixpgp::{AeadAlgorithm, HashAlgorithm, PublicKeyAlgorithm, SymmetricAlgorithm};
    assert_eq!(PublicKeyAlgorithm::MlKem768X25519.to_string(), "ML-KEM-768+X25519");
    assert_eq!(PublicKeyAlgorithm::MlDsa65Ed25519.to_string(), "ML-DSA-65+Ed25519");
    assert_eq!(PublicKeyAlgorithm::Ed25519.to_string(), "Ed25519");
    assert_eq!(PublicKeyAlgorithm::from(22).to_string(), "unknown public-key algorithm 22");
    assert_eq!(SymmetricAlgorithm::Aes256.to_string(), "AES-256");
    assert_eq!(AeadAlgorithm::Ocb.to_string(), "OCB");
    assert_eq!(HashAlgorithm::Sha3_512.to_string(), "SHA3-512");
    assert_eq!(HashAlgorithm::from(2).to_string(), "unknown hash algorithm 2");
}
