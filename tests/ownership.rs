//! The builders own what they use: built from owned keys and certificates they are `'static`,
#![allow(clippy::unwrap_used, clippy::panic, reason = "test helpers fail loudly")]
//! and a decryptor is shared by threads behind an `Arc`.

use std::io::{Read, Write};
use std::sync::Arc;
use std::thread;

use sixpgp::{
    BufferPool, Cert, DecryptReader, Decryptor, EncryptWriter, Encryptor, KeyBuilder, Password, Profile,
    SignWriter, Signer, Tsk, Verifier,
};

fn is_static_send<T: Send + 'static>() {}
fn is_static_send_sync<T: Send + Sync + 'static>() {}

#[test]
fn handles_are_static() {
    is_static_send_sync::<Decryptor>();
    is_static_send_sync::<Verifier>();
    is_static_send_sync::<Tsk>();
    is_static_send_sync::<Cert>();
    is_static_send_sync::<BufferPool>();
    is_static_send::<Encryptor>();
    is_static_send::<Signer>();
    is_static_send::<EncryptWriter<Vec<u8>>>();
    is_static_send::<DecryptReader<std::io::Cursor<Vec<u8>>>>();
    is_static_send::<SignWriter>();
}

/// A decryptor built from an owned key outlives the scope that made it and serves threads.
#[test]
fn one_decryptor_shared_by_threads() {
    let key = KeyBuilder::new(Profile::Rfc9580).user_id("Service <svc@example.org>").generate().unwrap();
    let cert = key.to_cert();
    let decryptor: Arc<Decryptor> = {
        let owned = key.clone();
        Arc::new(Decryptor::new([owned]))
    };
    drop(key);
    let handles: Vec<_> = (0..4u8)
        .map(|i| {
            let decryptor = Arc::clone(&decryptor);
            let cert = cert.clone();
            thread::spawn(move || {
                let mut w = Encryptor::new([cert]).writer(Vec::new()).unwrap();
                w.write_all(&[i; 1000]).unwrap();
                let msg = w.finish().unwrap();
                let mut r = decryptor.reader(std::io::Cursor::new(msg)).unwrap();
                let mut out = Vec::new();
                let _ = r.read_to_end(&mut out).unwrap();
                let _ = r.finish().unwrap();
                assert_eq!(out, [i; 1000]);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// `Arc`s, owned values and references are all accepted, and a password is `Clone`.
#[test]
fn arcs_owned_and_borrowed() {
    let key = Arc::new(KeyBuilder::new(Profile::Rfc9580).user_id("A <a@example.org>").generate().unwrap());
    let cert = Arc::new(key.to_cert());
    let password = Password::from("correct horse");
    let mut w = Encryptor::new([Arc::clone(&cert)])
        .password(password.clone())
        .signer(Arc::clone(&key))
        .writer(Vec::new())
        .unwrap();
    w.write_all(b"hello").unwrap();
    let msg = w.finish().unwrap();
    for d in [
        Decryptor::new([Arc::clone(&key)]),
        Decryptor::new([&*key]),
        Decryptor::default().password(password.clone()),
    ] {
        let d = d.verify_with([&*cert]);
        let (plain, summary) = d.decrypt_bytes(&msg).unwrap();
        assert_eq!(plain, b"hello");
        assert!(summary.verifications.iter().all(|v| v.is_good()));
        assert_eq!(summary.verifications.len(), 1);
    }
    // The same decryptor, reused for a second message.
    let d = Decryptor::new([Arc::clone(&key)]);
    for _ in 0..2 {
        assert_eq!(d.decrypt_bytes(&msg).unwrap().0, b"hello");
    }
}

/// A pool belongs to the handles given it: one shared by encryptors and a decryptor, a
/// decryptor's own, or none kept; the messages are the same either way.
#[test]
fn buffer_pools_are_the_handles_own() {
    let key = KeyBuilder::new(Profile::Rfc9580).user_id("P <p@example.org>").generate().unwrap();
    let data = vec![0x42u8; 3 << 20];
    let shared = BufferPool::default();
    for pool in [Some(BufferPool::new(0)), Some(shared.clone()), Some(shared), None] {
        let (e, d) = match pool {
            Some(pool) => (
                Encryptor::new([key.to_cert()]).buffer_pool(pool.clone()),
                Decryptor::new([&key]).buffer_pool(pool),
            ),
            None => (Encryptor::new([key.to_cert()]), Decryptor::new([&key])),
        };
        let msg = e.encrypt_bytes(&data).unwrap();
        for _ in 0..2 {
            assert_eq!(d.decrypt_bytes(&msg).unwrap().0, data);
        }
    }
}
