//! Batches of plaintexts encrypted on several threads (`Encryptor::encrypt_all`).
#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

mod common;

use std::time::{Duration, SystemTime};

use common::TestRng;
use sixpgp::{Decryptor, Encryptor, Error, KeyBuilder, MessageInfo, Profile, Purpose, Recipients, Tsk};

fn key(profile: Profile) -> Tsk {
    KeyBuilder::new(profile).user_id("Batch <batch@example.org>").generate().unwrap()
}

fn values(count: usize) -> Vec<Vec<u8>> {
    (0..count).map(|i| format!("value {i}").into_bytes()).collect()
}

#[test]
fn round_trips_in_order_on_any_thread_count() {
    let (classic, pqc) = (key(Profile::Rfc9580), key(Profile::Pqc));
    let values = values(50);
    for threads in [1, 2, 5] {
        let encryptor = Encryptor::new([classic.to_cert(), pqc.to_cert()]).threads(threads);
        let messages = encryptor.encrypt_all(&values).unwrap();
        assert_eq!(messages.len(), values.len());
        for k in [&classic, &pqc] {
            let decrypted = Decryptor::new([k]).decrypt_all(&messages);
            for (value, result) in values.iter().zip(decrypted) {
                assert_eq!(&result.unwrap().0, value);
            }
        }
    }
}

#[test]
fn each_message_is_fresh_and_follows_the_builder() {
    let k = key(Profile::Rfc9580);
    let values = vec![b"same".to_vec(); 3];
    let encryptor = || Encryptor::new([k.to_cert()]).armor(true).password("pw");
    let messages = encryptor().encrypt_all(&values).unwrap();
    assert!(messages.iter().all(|m| m.starts_with(b"-----BEGIN PGP MESSAGE-----")));
    assert_ne!(messages[0], messages[1]);
    let one = MessageInfo::from_bytes(&encryptor().encrypt_bytes(b"same").unwrap()).unwrap();
    let info = MessageInfo::from_bytes(&messages[0]).unwrap();
    assert_eq!((&info.recipients, info.passwords), (&one.recipients, 1));
    let by_password = Decryptor::new(Vec::<Tsk>::new()).password("pw").decrypt_bytes(&messages[2]).unwrap();
    assert_eq!(by_password.0, b"same");
}

#[test]
fn takes_prepared_recipients_and_an_empty_batch() {
    let k = key(Profile::Rfc9580);
    let prepared = Recipients::new([k.to_cert()], SystemTime::now(), Purpose::Any).unwrap();
    let encryptor = Encryptor::default().prepared(prepared);
    assert!(encryptor.encrypt_all(&Vec::<Vec<u8>>::new()).unwrap().is_empty());
    let messages = encryptor.encrypt_all(&values(3)).unwrap();
    assert_eq!(Decryptor::new([&k]).decrypt_bytes(&messages[1]).unwrap().0, b"value 1");
}

#[test]
fn refuses_once_what_cannot_serve_the_batch() {
    let none = Encryptor::default().encrypt_all(&values(2));
    assert!(matches!(none, Err(Error::InvalidArgument(_))));
    let k = key(Profile::Rfc9580);
    let injected = Encryptor::new([k.to_cert()]).rng(TestRng(7)).encrypt_all(&values(2));
    assert!(matches!(injected, Err(Error::InvalidArgument(_))));
    // Before the key was made: no valid key at the batch's time.
    let past = SystemTime::now() - Duration::from_secs(10 * 365 * 86_400);
    let early = Encryptor::new([k.to_cert()]).at(past).encrypt_all(&values(2));
    assert!(matches!(early, Err(Error::KeyUnusable { .. })));
}
