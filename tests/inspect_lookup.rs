//! Looking at certificates and messages, keys looked up on demand, and the one-call helpers.
#![allow(clippy::unwrap_used, clippy::panic, reason = "test helpers fail loudly")]

use std::convert::Infallible;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use sixpgp::{
    Cert, Decryptor, Encryptor, Error, Fingerprint, KeyBuilder, KeyProblem, KeyStore, Limit, Limits,
    MessageInfo, Profile, PublicKeyAlgorithm, ReasonForRevocation, Recipient, Signer, SkippedPacket, Tsk,
    Unsupported, UnverifiableReason, VerificationStatus, Verifier,
};

const T0: u64 = 1_700_000_000;

fn at(seconds: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(T0 + seconds)
}

fn key(profile: Profile, name: &str) -> Tsk {
    KeyBuilder::new(profile).user_id(name).creation_time(at(0)).generate().unwrap()
}

#[test]
fn a_certificate_can_be_looked_at() {
    let mut tsk = KeyBuilder::new(Profile::Pqc)
        .user_id("Alice <alice@example.org>")
        .creation_time(at(0))
        .validity(Duration::from_secs(1000))
        .generate()
        .unwrap();
    let cert = tsk.to_cert();
    assert_eq!(cert.primary_user_id(at(1)).as_deref(), Some("Alice <alice@example.org>"));
    assert_eq!(cert.user_id_strings().collect::<Vec<_>>(), ["Alice <alice@example.org>"]);
    assert_eq!(cert.expiration_time(at(1)), Some(at(1000)));
    assert!(!cert.is_revoked(at(1)));
    let keys: Vec<_> = cert.keys().collect();
    assert!(keys[0].is_primary() && keys[0].fingerprint() == cert.fingerprint());
    assert_eq!(keys[0].algorithm(), PublicKeyAlgorithm::MlDsa65Ed25519);
    assert!(keys[0].flags(at(1)).certify());
    let encryption: Vec<_> = keys.iter().filter(|k| k.flags(at(1)).encrypt_communications()).collect();
    assert_eq!(encryption.len(), 1);
    assert_eq!(encryption[0].algorithm(), PublicKeyAlgorithm::MlKem768X25519);
    assert_eq!(encryption[0].creation_time(), at(0));
    assert_eq!(encryption[0].validity(at(1)), Ok(()));
    assert_eq!(encryption[0].validity(at(2000)), Err(KeyProblem::Expired));

    let sub = encryption[0].fingerprint();
    tsk.revoke_subkey(&sub, ReasonForRevocation::Retired, "", at(10)).unwrap();
    let cert = tsk.to_cert();
    let revoked = cert.keys().find(|k| k.fingerprint() == sub).unwrap();
    assert!(revoked.is_revoked(at(20)));
    assert_eq!(revoked.validity(at(20)), Err(KeyProblem::Revoked));

    // Debug names the certificate, not its key octets.
    let debug = format!("{cert:?}");
    assert!(debug.contains("Alice <alice@example.org>") && debug.len() < 1000, "{debug}");
}

#[test]
fn a_message_can_be_looked_at_before_decrypting() {
    let alice = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let bob = key(Profile::Rfc9580, "Bob <bob@example.org>");
    let msg = Encryptor::new([alice.to_cert(), bob.to_cert()])
        .password("pw")
        .armor(true)
        .encrypt_bytes(b"hi")
        .unwrap();
    let info = MessageInfo::from_bytes(&msg).unwrap();
    assert!(info.encrypted);
    assert_eq!(info.passwords, 1);
    let expected: Vec<Recipient> = [&alice, &bob]
        .iter()
        .map(|k| Recipient::Fingerprint(k.cert().encryption_keys_at(at(1))[0].0))
        .collect();
    assert_eq!(info.recipients, expected);

    let hidden = Encryptor::new([alice.to_cert()]).hidden_recipients(true).encrypt_bytes(b"hi").unwrap();
    assert_eq!(MessageInfo::from_bytes(&hidden).unwrap().recipients, [Recipient::Anonymous]);

    let signed = Signer::new().key(&alice).armor(true);
    let mut w = signed.inline_writer(Vec::new()).unwrap();
    std::io::Write::write_all(&mut w, b"signed").unwrap();
    let signed = w.finish().unwrap();
    assert!(signed.starts_with(b"-----BEGIN PGP MESSAGE-----"));
    let info = MessageInfo::from_bytes(&signed).unwrap();
    assert!(!info.encrypted);
    assert_eq!(info.signers.len(), 1);
    assert!(alice.cert().keys().any(|k| k.fingerprint() == info.signers[0]));

    // The armored inline-signed message verifies directly.
    let (data, verdicts) = Verifier::new([alice.to_cert()]).verify_inline_bytes(&signed).unwrap();
    assert_eq!(data, b"signed");
    assert!(verdicts[0].is_good());
}

/// A new-format packet of fewer than 192 octets.
fn packet(tag: u8, body: &[u8]) -> Vec<u8> {
    let len = u8::try_from(body.len()).unwrap();
    assert!(len < 192);
    [&[0xc0 | tag, len][..], body].concat()
}

/// An SKESK whose Argon2 parameters exceed the limits is listed as skipped, with the limit, and
/// not counted as a password: decryption runs no password through it and reports that limit.
#[test]
fn message_info_lists_skesks_over_the_limits_as_skipped() {
    let message = Encryptor::default().password("pw").at(at(1)).encrypt_bytes(b"hello").unwrap();
    let info = MessageInfo::from_bytes(&message).unwrap();
    assert_eq!((info.passwords, &info.skipped[..]), (1, &[][..]));

    let small = Limits::default().with_max_argon2_memory_kib(8);
    let info = MessageInfo::from_reader(&message[..], &small).unwrap();
    assert_eq!(info.passwords, 0);
    assert_eq!(info.skipped, [SkippedPacket::SkeskOverLimit(Limit::Argon2Memory)]);
    let e = Decryptor::default().password("pw").limits(small).decrypt_bytes(&message).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::Argon2Memory)), "{e:?}");
    assert_eq!(Decryptor::default().password("pw").decrypt_bytes(&message).unwrap().0, b"hello");
}

/// Session-key packets this crate cannot use are skipped alike by `MessageInfo` (which lists
/// them) and by decryption; what `MessageInfo` counts is what decryption tries.
#[test]
fn message_info_and_decryption_skip_the_same_session_key_packets() {
    let bob = key(Profile::Rfc9580, "Bob <bob@example.org>");
    let message = Encryptor::new([bob.to_cert()]).at(at(1)).encrypt_bytes(b"hello").unwrap();
    let bob_recipients = MessageInfo::from_bytes(&message).unwrap().recipients;

    let stranger = [0x42; 32];
    // A v3 PKESK (for a v4 key), a v6 PKESK to an unknown public-key algorithm, and a v6 SKESK
    // with an unknown cipher (which parses, but no password can open).
    let v3 = [3, 1, 2, 3, 4, 5, 6, 7, 8, 18, 0, 1];
    let unknown_algorithm = [&[6, 33, 6][..], &stranger, &[99, 1, 2, 3]].concat();
    let s2k = [&[3, 8][..], &[0x5a; 8], &[0x60]].concat();
    let unknown_cipher = [&[6, 3 + 11 + 15, 99, 2, 11][..], &s2k, &[1; 15], &[2; 16], &[3; 16]].concat();
    let preamble = [packet(1, &v3), packet(1, &unknown_algorithm), packet(3, &unknown_cipher)].concat();
    let skipped = [
        SkippedPacket::Pkesk(Unsupported::PkeskV3),
        SkippedPacket::Pkesk(Unsupported::PublicKeyAlgorithm(99)),
        SkippedPacket::Skesk(Some(Unsupported::SymmetricAlgorithm(99))),
    ];

    let with_bob = [&preamble[..], &message].concat();
    let info = MessageInfo::from_bytes(&with_bob).unwrap();
    assert!(info.encrypted);
    let mut recipients = vec![Recipient::Fingerprint(Fingerprint::from_bytes(stranger))];
    recipients.extend(bob_recipients);
    assert_eq!(info.recipients, recipients);
    assert_eq!(info.passwords, 0);
    assert_eq!(info.skipped, skipped);
    assert_eq!(Decryptor::new([&bob]).decrypt_bytes(&with_bob).unwrap().0, b"hello");

    // Without Bob's PKESK nothing is left to try: the password is not tried on the SKESK that
    // `MessageInfo` does not count, and the missing key is reported for the recipients it names.
    let pkesk_len = 2 + usize::from(message[1]);
    let without_bob = [&preamble[..], &message[pkesk_len..]].concat();
    let info = MessageInfo::from_bytes(&without_bob).unwrap();
    assert_eq!((info.passwords, &info.skipped[..]), (0, &skipped[..]));
    match Decryptor::new([&bob]).password("pw").reader(&without_bob[..]) {
        Err(Error::NoDecryptionKey { recipients, .. }) => assert_eq!(recipients, info.recipients),
        other => panic!("{other:?}"),
    }

    // A broken PKESK, or a packet with no place among the session-key packets, fails both.
    for bad in [packet(1, &[6, 33, 6]), packet(13, b"Bob <bob@example.org>")] {
        let message = [&message[..pkesk_len], &bad, &message[pkesk_len..]].concat();
        let inspected = MessageInfo::from_bytes(&message).unwrap_err();
        let decrypted = Decryptor::new([&bob]).reader(&message[..]).unwrap_err();
        assert_eq!(inspected.to_string(), decrypted.to_string());
    }
}

/// A keyring that records what it was asked for.
struct Ring {
    keys: Vec<Arc<Tsk>>,
    certs: Vec<Arc<Cert>>,
    asked: Mutex<Vec<String>>,
}

impl KeyStore for Ring {
    type Error = Infallible;

    fn secret_keys(&self, recipients: &[Recipient]) -> Result<Vec<Arc<Tsk>>, Infallible> {
        self.asked.lock().unwrap().push(format!("keys for {}", recipients.len()));
        let named = |k: &Tsk| recipients.iter().any(|r| r.matches(k.cert()));
        Ok(self.keys.iter().filter(|k| named(k)).cloned().collect())
    }

    fn certs(&self, issuers: &[Fingerprint]) -> Result<Vec<Arc<Cert>>, Infallible> {
        self.asked.lock().unwrap().push(format!("certs for {}", issuers.len()));
        Ok(self.certs.iter().filter(|c| issuers.iter().any(|i| c.has_key(i))).cloned().collect())
    }
}

#[test]
fn keys_and_certificates_are_looked_up_as_the_message_names_them() {
    let alice = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let bob = key(Profile::Rfc9580, "Bob <bob@example.org>");
    let carol = key(Profile::Rfc9580, "Carol <carol@example.org>");
    let msg = Encryptor::new([bob.to_cert()]).signer(&alice).encrypt_bytes(b"from alice").unwrap();
    let ring = Ring {
        keys: vec![Arc::new(carol.clone()), Arc::new(bob.clone())],
        certs: vec![Arc::new(carol.to_cert()), Arc::new(alice.to_cert())],
        asked: Mutex::new(Vec::new()),
    };
    let ring = Arc::new(ring);
    // An `Arc` of a store is a store: the test keeps its own handle to read `asked`.
    let decryptor = Decryptor::default().key_store(Arc::clone(&ring));
    let (plain, summary) = decryptor.decrypt_bytes(&msg).unwrap();
    assert_eq!(plain, b"from alice");
    assert_eq!(summary.verifications.len(), 1);
    assert!(summary.verifications[0].is_good());
    assert_eq!(summary.verifications[0].cert(), Some(alice.fingerprint()));
    assert_eq!(*ring.asked.lock().unwrap(), ["keys for 1", "certs for 1"]);

    // Detached verification with a store.
    let sig = Signer::new().key(&alice).sign_bytes(b"doc").unwrap();
    let verdicts = Verifier::new(Vec::<Cert>::new()).key_store(Arc::clone(&ring)).verify_bytes(&sig, b"doc");
    assert!(verdicts.unwrap()[0].is_good());
    // Without the store, the signer is unknown.
    let verdicts = Verifier::new(Vec::<Cert>::new()).verify_bytes(&sig, b"doc").unwrap();
    assert_eq!(verdicts[0].status(), VerificationStatus::Unverifiable(UnverifiableReason::NoMatchingCert));
}

#[test]
fn one_call_helpers_and_armor_options() {
    let alice = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let msg = Encryptor::new([alice.to_cert()]).armor(true).encrypt_bytes(b"hello").unwrap();
    assert!(msg.starts_with(b"-----BEGIN PGP MESSAGE-----"));
    assert_eq!(Decryptor::new([&alice]).decrypt_bytes(&msg).unwrap().0, b"hello");

    let sig = Signer::new().key(&alice).armor(true).sign_bytes(b"doc").unwrap();
    assert!(sig.starts_with(b"-----BEGIN PGP SIGNATURE-----"));
    assert!(Verifier::new([alice.to_cert()]).verify_bytes(&sig, b"doc").unwrap()[0].is_good());

    // The streaming reader takes armored input too.
    let mut w = Signer::new().key(&alice).armor(true).inline_writer(Vec::new()).unwrap();
    std::io::Write::write_all(&mut w, b"streamed").unwrap();
    let signed = w.finish().unwrap();
    let mut r = Verifier::new([alice.to_cert()]).inline_reader(&signed[..]).unwrap();
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).unwrap();
    assert_eq!(out, b"streamed");
    assert!(r.finish().unwrap()[0].is_good());
}
