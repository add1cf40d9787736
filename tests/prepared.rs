//! Recipients evaluated once and used for many messages.
#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use sixpgp::{
    Decryptor, Encryptor, Error, KeyBuilder, KeyProblem, MessageInfo, Profile, Purpose, Recipient, Recipients,
};

fn at(seconds: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + seconds)
}

#[test]
fn one_evaluation_many_messages() {
    let keys: Vec<_> = (0..10)
        .map(|i| {
            let profile = if i % 3 == 0 { Profile::PqcEncryption } else { Profile::Rfc9580 };
            KeyBuilder::new(profile)
                .user_id(format!("m{i} <m{i}@example.org>"))
                .creation_time(at(0))
                .generate()
                .unwrap()
        })
        .collect();
    let certs: Vec<_> = keys.iter().map(|k| k.to_cert()).collect();
    let list = Arc::new(Recipients::new(&certs, at(10), Purpose::Any).unwrap());
    assert_eq!(list.evaluated_at(), at(10));
    assert_eq!(list.certs().collect::<Vec<_>>(), certs.iter().map(|c| c.fingerprint()).collect::<Vec<_>>());

    for i in 0..3u8 {
        let text = [i; 300];
        let message =
            Encryptor::default().prepared(Arc::clone(&list)).at(at(20)).encrypt_bytes(&text).unwrap();
        // The same PKESKs as encrypting from the certificates.
        let named: Vec<Recipient> = MessageInfo::from_bytes(&message).unwrap().recipients;
        let expected: Vec<Recipient> = list.keys().map(|(_, k)| Recipient::Fingerprint(k)).collect();
        assert_eq!(named, expected);
        let direct = Encryptor::new(&certs).at(at(20)).encrypt_bytes(&text).unwrap();
        assert_eq!(MessageInfo::from_bytes(&direct).unwrap().recipients, expected);
        for key in &keys {
            assert_eq!(Decryptor::new([key]).decrypt_bytes(&message).unwrap().0, text);
        }
    }
}

#[test]
fn evaluation_names_the_unusable_certificate() {
    let good = KeyBuilder::new(Profile::Rfc9580)
        .user_id("g <g@example.org>")
        .creation_time(at(0))
        .generate()
        .unwrap();
    let short = KeyBuilder::new(Profile::Rfc9580)
        .user_id("s <s@example.org>")
        .creation_time(at(0))
        .validity(Duration::from_secs(100))
        .generate()
        .unwrap();
    let certs = [good.to_cert(), short.to_cert()];
    // Valid at the evaluation time: used until the first key it used expires.
    let list = Arc::new(Recipients::new(&certs, at(50), Purpose::Any).unwrap());
    assert_eq!(list.expiration_time(), Some(at(100)));
    let message = Encryptor::default().prepared(list.clone()).at(at(99)).encrypt_bytes(b"x").unwrap();
    assert!(Decryptor::new([&short]).decrypt_bytes(&message).is_ok());
    // A message made after that is refused, naming the certificate that expired.
    let err = Encryptor::default().prepared(list).at(at(100)).encrypt_bytes(b"x").unwrap_err();
    assert!(
        matches!(err, Error::KeyUnusable { fingerprint, subkey: None, problem: KeyProblem::Expired, .. } if fingerprint == short.fingerprint()),
        "{err:?}"
    );
    // Expired at the evaluation time: refused, naming it.
    let err = Recipients::new(&certs, at(500), Purpose::Any).unwrap_err();
    assert!(
        matches!(err, Error::KeyUnusable { fingerprint, problem: KeyProblem::Expired, .. } if fingerprint == short.fingerprint()),
        "{err:?}"
    );
}

/// A subkey (or its binding) that expires before its certificate ends the evaluation too, and
/// is named.
#[test]
fn evaluation_ends_when_a_subkey_expires() {
    let mut tsk = KeyBuilder::new(Profile::Rfc9580)
        .user_id("e <e@example.org>")
        .creation_time(at(0))
        .generate()
        .unwrap();
    let sub = tsk.cert().encryption_keys_at(at(1))[0].0;
    tsk.set_expiration(&sub, Some(at(300)), at(5)).unwrap();
    let list = Arc::new(Recipients::new([tsk.to_cert()], at(10), Purpose::Any).unwrap());
    assert_eq!(list.expiration_time(), Some(at(300)));
    assert!(Encryptor::default().prepared(list.clone()).at(at(299)).encrypt_bytes(b"x").is_ok());
    let err = Encryptor::default().prepared(list).at(at(300)).encrypt_bytes(b"x").unwrap_err();
    assert!(
        matches!(err, Error::KeyUnusable { fingerprint, subkey: Some(s), problem: KeyProblem::Expired, .. } if fingerprint == tsk.fingerprint() && s == sub),
        "{err:?}"
    );
    // A certificate that never expires gives an evaluation that never does.
    let forever = KeyBuilder::new(Profile::Rfc9580)
        .user_id("f <f@example.org>")
        .creation_time(at(0))
        .generate()
        .unwrap();
    assert_eq!(Recipients::new([forever.to_cert()], at(10), Purpose::Any).unwrap().expiration_time(), None);
}
