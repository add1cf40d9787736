//! Keyrings: every certificate and key of a keyring is read, whatever its framing (binary,
//! several armored blocks one after the other, or a mix), and an encryption to the
//! certificates read has every one of them as a recipient.
#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail by panicking")]

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::TestRng;
use sixpgp::{Cert, Decryptor, Encryptor, Error, KeyBuilder, MessageInfo, Profile, Recipient, Tsk};

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

fn keys() -> [Tsk; 2] {
    let make = |name: &str, seed| {
        KeyBuilder::new(Profile::Rfc9580)
            .user_id(name)
            .creation_time(at(1_750_000_000))
            .rng(TestRng(seed))
            .generate()
            .unwrap()
    };
    [make("Alice <alice@example.org>", 1), make("Bob <bob@example.org>", 2)]
}

/// The ways two objects are put into one input: what `cat` of two files, a key server or an
/// export gives.
fn forms(a: &[u8], b: &[u8], a_armored: &[u8], b_armored: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("binary", [a, b].concat()),
        ("armored", [a_armored, b_armored].concat()),
        ("armored, blank lines between", [a_armored, b"\n\r\n  \n", b_armored].concat()),
        (
            "armored, CRLF",
            [a_armored, b_armored].concat().iter().fold(Vec::new(), |mut v, &c| {
                if c == b'\n' {
                    v.push(b'\r');
                }
                v.push(c);
                v
            }),
        ),
        ("armored, then binary", [a_armored, b].concat()),
        ("armored, no final newline", [a_armored, b_armored.trim_ascii_end()].concat()),
    ]
}

#[test]
fn every_certificate_of_a_keyring_is_read_and_encrypted_to() {
    let [alice, bob] = keys();
    let (a, b) = (alice.to_cert(), bob.to_cert());
    let now = at(1_760_000_000);
    for (form, ring) in forms(&a.to_vec(), &b.to_vec(), a.to_armored().as_bytes(), b.to_armored().as_bytes())
    {
        let certs = Cert::read_all(&ring[..]).unwrap();
        assert_eq!(certs, [a.clone(), b.clone()], "{form}");
        // Exactly one expected: the second is refused, never dropped.
        assert!(matches!(Cert::from_bytes(&ring), Err(Error::InvalidArgument(_))), "{form}");

        let message = Encryptor::new(certs).at(now).rng(TestRng(3)).encrypt_bytes(b"to both").unwrap();
        let info = MessageInfo::from_bytes(&message).unwrap();
        assert_eq!(info.recipients.len(), 2, "{form}");
        for key in [&alice, &bob] {
            let named = info.recipients.iter().any(|r| match r {
                Recipient::Fingerprint(f) => key.to_cert().subkey_fingerprints().any(|s| s == *f),
                _ => false,
            });
            assert!(named, "{form}");
            let (plain, _) = Decryptor::new([key.clone()]).at(now).decrypt_bytes(&message).unwrap();
            assert_eq!(plain, b"to both", "{form}");
        }
    }
}

#[test]
fn every_key_of_a_keyring_is_read() {
    let [alice, bob] = keys();
    let (a_armored, b_armored) = (alice.to_armored(), bob.to_armored());
    for (form, ring) in forms(&alice.to_vec(), &bob.to_vec(), a_armored.as_bytes(), b_armored.as_bytes()) {
        let read = Tsk::read_all(&ring[..]).unwrap();
        let fingerprints: Vec<_> = read.iter().map(Tsk::fingerprint).collect();
        assert_eq!(fingerprints, [alice.fingerprint(), bob.fingerprint()], "{form}");
        assert!(matches!(Tsk::from_bytes(&ring), Err(Error::InvalidArgument(_))), "{form}");
        // A secret key is a certificate too.
        assert_eq!(Cert::read_all(&ring[..]).unwrap().len(), 2, "{form}");
    }
}

#[test]
fn text_after_an_armored_block_is_refused() {
    let [alice, _] = keys();
    let armored = alice.to_cert().to_armored();
    for trailer in [&b"trailing text\n"[..], b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n"] {
        let ring = [armored.as_bytes(), trailer].concat();
        let e = Cert::read_all(&ring[..]).unwrap_err();
        assert!(matches!(e, Error::Malformed(_) | Error::Truncated(_)), "{e:?}");
    }
    // Whitespace alone after the block is fine.
    assert_eq!(Cert::read_all([armored.as_bytes(), b"\n \r\n\t"].concat().as_slice()).unwrap().len(), 1);
}
