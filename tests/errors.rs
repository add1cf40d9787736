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
        Err(Error::KeyUnusable { fingerprint, problem }) => (fingerprint, problem),
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
        matches!(err, Error::KeyUnusable { fingerprint, problem: KeyProblem::Revoked } if fingerprint == tsk.fingerprint()),
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
    assert!(matches!(no_key, Err(Error::NoDecryptionKey)), "{no_key:?}");
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
