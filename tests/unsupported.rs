//! Input that uses what this crate does not implement gets an error that names it, so that a
//! user can tell it from a wrong key or broken input.
#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail by panicking")]

mod common;

use std::io::Write;

use common::{data, dearmor, packet};
use sixpgp::{Decryptor, Encryptor, Error, KeyBuilder, Profile, Tsk, Unsupported};

/// The sample key of RFC 9980 with an ML-DSA-87+Ed448 primary key and an ML-KEM-1024+X448
/// subkey, and the sample message encrypted to it.
fn mldsa87() -> (Tsk, Vec<u8>) {
    (Tsk::from_bytes(&data("v6-mldsa-87-sample-sk.asc")).unwrap(), data("v6-mldsa-87-sample-message.asc"))
}

#[test]
fn a_message_only_for_an_unsupported_key_names_its_algorithm() {
    let (tsk, message) = mldsa87();
    let e = Decryptor::new([tsk]).decrypt_bytes(&message).unwrap_err();
    assert!(matches!(e, Error::Unsupported(Unsupported::PublicKeyAlgorithm(36))), "{e:?}");
    assert!(e.to_string().contains("ML-KEM-1024+X448"), "{e}");

    // Another key the message is not for: not an algorithm problem.
    let other = KeyBuilder::new(Profile::Rfc9580).user_id("Other <o@example.org>").generate().unwrap();
    let e = Decryptor::new([other]).decrypt_bytes(&message).unwrap_err();
    assert!(matches!(e, Error::NoDecryptionKey { .. }), "{e:?}");
}

#[test]
fn an_unsupported_key_does_not_hide_a_usable_one() {
    // The same message also encrypted to a usable key: the PKESK for the ML-KEM-1024 key is
    // skipped and the usable key decrypts. Built by putting the sample's PKESK before ours.
    let (tsk87, sample) = mldsa87();
    let sample = dearmor(&sample);
    let alice = KeyBuilder::new(Profile::Rfc9580).user_id("Alice <a@example.org>").generate().unwrap();
    let mut w = Encryptor::new([alice.to_cert()]).writer(Vec::new()).unwrap();
    w.write_all(b"hello").unwrap();
    let ours = w.finish().unwrap();
    // The sample starts with its PKESK (new format, type 1).
    assert_eq!(sample[0], 0xc1);
    let pkesk_len = match sample[1] {
        l @ 0..192 => usize::from(l) + 2,
        l @ 192..224 => ((usize::from(l) - 192) << 8) + usize::from(sample[2]) + 192 + 3,
        _ => panic!("unexpected PKESK length form"),
    };
    let message = [&sample[..pkesk_len], &ours[..]].concat();
    let (plaintext, _) = Decryptor::new([tsk87.clone(), alice]).decrypt_bytes(&message).unwrap();
    assert_eq!(plaintext, b"hello");
    // With only the unsupported key: its algorithm is named.
    let e = Decryptor::new([tsk87]).decrypt_bytes(&message).unwrap_err();
    assert!(matches!(e, Error::Unsupported(Unsupported::PublicKeyAlgorithm(36))), "{e:?}");
}

#[test]
fn an_aead_encrypted_data_packet_is_unsupported_not_malformed() {
    // An AEAD Encrypted Data packet (type 20) of the abandoned draft: version 1, AES-128, OCB,
    // chunk octet, then a nonce and ciphertext; after a SKESK or alone, with a fixed or a
    // partial length.
    let mut body = vec![1, 7, 2, 6];
    body.extend_from_slice(&[0x5a; 15 + 40]);
    // A v4 SKESK (AES-128, simple S2K with SHA2-256), as such messages carry.
    let skesk = packet(3, &[4, 7, 0, 8]);
    let mut partial = vec![0xc0 | 20, 0xe9];
    partial.extend_from_slice(&[0x77; 512]);
    partial.push(4);
    partial.extend_from_slice(&[0x77; 4]);
    for message in [[skesk.clone(), packet(20, &body)].concat(), packet(20, &body), partial] {
        let e = Decryptor::default().password("password").decrypt_bytes(&message).unwrap_err();
        assert!(matches!(e, Error::Unsupported(Unsupported::AeadEncryptedData)), "{e:?}");
        assert!(e.to_string().contains("type 20"), "{e}");
    }
}
