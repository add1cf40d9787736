//! Every limit reaches every parser: input that [`Limits::untrusted_input`] refuses and the
//! defaults accept, for certificates, secret keys, messages and signatures alike.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, reason = "test helpers fail loudly")]

use std::io::{Read, Write};
use std::time::{Duration, SystemTime};

use sixpgp::{
    Cert, Decryptor, Encryptor, Error, KeyBuilder, Limit, Limits, MessageInfo, Profile, Signer, Tsk, Verifier,
};

fn at(seconds: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + seconds)
}

fn key() -> Tsk {
    KeyBuilder::new(Profile::Rfc9580)
        .user_id("Limits <limits@example.org>")
        .creation_time(at(0))
        .generate()
        .unwrap()
}

/// An armor header section of 2000 octets: over the untrusted preset's 1024, under the
/// default 4096.
fn with_long_armor_header(armored: &str) -> Vec<u8> {
    let (begin, rest) = armored.split_once('\n').unwrap();
    let comment = format!("Comment: {}\n", "x".repeat(2000));
    format!("{begin}\n{comment}{rest}").into_bytes()
}

fn is_limit(result: Result<impl std::fmt::Debug, Error>, which: Limit) -> bool {
    matches!(result, Err(Error::LimitExceeded(l)) if l == which)
}

/// Splits a binary packet stream into (tag, body); new-format headers with definite lengths.
fn packets(mut bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        assert_eq!(bytes[0] & 0xC0, 0xC0, "new-format header");
        let tag = bytes[0] & 0x3F;
        let (len, header) = match bytes[1] {
            l @ 0..=191 => (usize::from(l), 2),
            l @ 192..=223 => ((usize::from(l) - 192) * 256 + usize::from(bytes[2]) + 192, 3),
            255 => (u32::from_be_bytes(bytes[2..6].try_into().unwrap()) as usize, 6),
            _ => panic!("partial length"),
        };
        out.push((tag, bytes[header..header + len].to_vec()));
        bytes = &bytes[header + len..];
    }
    out
}

fn write_packet(tag: u8, body: &[u8], out: &mut Vec<u8>) {
    out.push(0xC0 | tag);
    match body.len() {
        len @ 0..=191 => out.push(u8::try_from(len).unwrap()),
        len @ 192..=8383 => {
            let l = len - 192;
            out.extend_from_slice(&[u8::try_from(l / 256 + 192).unwrap(), u8::try_from(l % 256).unwrap()]);
        }
        len => {
            out.push(255);
            out.extend_from_slice(&u32::try_from(len).unwrap().to_be_bytes());
        }
    }
    out.extend_from_slice(body);
}

/// Adds 100 subpackets (over the untrusted preset's 64, under the default 512) of a private,
/// non-critical type to the unhashed area of every v6 signature in a packet stream. The
/// unhashed area is not signed, so every signature still verifies.
fn with_many_subpackets(bytes: &[u8]) -> Vec<u8> {
    const SIGNATURE: u8 = 2;
    let mut out = Vec::new();
    for (tag, body) in packets(bytes) {
        if tag != SIGNATURE {
            write_packet(tag, &body, &mut out);
            continue;
        }
        // version, type, public-key algorithm, hash algorithm, hashed area length and area.
        let hashed_len = u32::from_be_bytes(body[4..8].try_into().unwrap()) as usize;
        let unhashed_at = 8 + hashed_len;
        let unhashed_len =
            u32::from_be_bytes(body[unhashed_at..unhashed_at + 4].try_into().unwrap()) as usize;
        let mut unhashed = body[unhashed_at + 4..unhashed_at + 4 + unhashed_len].to_vec();
        for _ in 0..100 {
            unhashed.extend_from_slice(&[2, 101, 0]);
        }
        let mut new = body[..unhashed_at].to_vec();
        new.extend_from_slice(&u32::try_from(unhashed.len()).unwrap().to_be_bytes());
        new.extend_from_slice(&unhashed);
        new.extend_from_slice(&body[unhashed_at + 4 + unhashed_len..]);
        write_packet(tag, &new, &mut out);
    }
    out
}

#[test]
fn certificates_honour_the_armor_header_limit() {
    let cert = key().to_cert();
    let input = with_long_armor_header(&cert.to_armored());
    assert!(is_limit(
        Cert::read_all_with_limits(&input[..], &Limits::untrusted_input()),
        Limit::ArmorHeaders
    ));
    assert_eq!(Cert::read_all_with_limits(&input[..], &Limits::default()).unwrap(), [cert]);
}

#[test]
fn secret_keys_honour_the_armor_header_limit() {
    let tsk = key();
    let input = with_long_armor_header(&tsk.to_armored());
    assert!(is_limit(Tsk::read_all_with_limits(&input[..], &Limits::untrusted_input()), Limit::ArmorHeaders));
    assert_eq!(
        Tsk::read_all_with_limits(&input[..], &Limits::default()).unwrap()[0].fingerprint(),
        tsk.fingerprint()
    );
}

#[test]
fn messages_honour_the_armor_header_limit() {
    let tsk = key();
    let message = Encryptor::new([tsk.to_cert()]).armor(true).at(at(10)).encrypt_bytes(b"hello").unwrap();
    let input = with_long_armor_header(std::str::from_utf8(&message).unwrap());
    let untrusted = Decryptor::new([&tsk]).limits(Limits::untrusted_input());
    assert!(is_limit(untrusted.decrypt_bytes(&input), Limit::ArmorHeaders));
    assert!(is_limit(MessageInfo::from_reader(&input[..], &Limits::untrusted_input()), Limit::ArmorHeaders));
    assert_eq!(Decryptor::new([&tsk]).decrypt_bytes(&input).unwrap().0, b"hello");
}

#[test]
fn signatures_honour_the_armor_header_limit() {
    let tsk = key();
    let signature = Signer::new().key(&tsk).armor(true).creation_time(at(10)).sign_bytes(b"doc").unwrap();
    let input = with_long_armor_header(std::str::from_utf8(&signature).unwrap());
    let verifier = Verifier::new([tsk.to_cert()]).at(at(20));
    let refused = verifier.clone().limits(Limits::untrusted_input()).verify_bytes(&input, b"doc");
    assert!(is_limit(refused, Limit::ArmorHeaders));
    assert!(verifier.verify_bytes(&input, b"doc").unwrap()[0].is_good());
}

#[test]
fn certificates_honour_the_subpacket_limit() {
    let cert = key().to_cert();
    let input = with_many_subpackets(&cert.to_vec());
    assert!(is_limit(Cert::read_all_with_limits(&input[..], &Limits::untrusted_input()), Limit::Subpackets));
    let parsed = Cert::read_all_with_limits(&input[..], &Limits::default()).unwrap();
    assert_eq!(parsed.len(), 1);
    assert!(parsed[0].can_encrypt_at(at(10)), "the self-signatures still verify");
}

#[test]
fn secret_keys_honour_the_subpacket_limit() {
    let tsk = key();
    let input = with_many_subpackets(&tsk.to_vec());
    assert!(is_limit(Tsk::read_all_with_limits(&input[..], &Limits::untrusted_input()), Limit::Subpackets));
    let parsed = Tsk::read_all_with_limits(&input[..], &Limits::default()).unwrap();
    assert!(parsed[0].cert().can_encrypt_at(at(10)));
}

#[test]
fn signatures_honour_the_subpacket_limit() {
    let tsk = key();
    let signature = Signer::new().key(&tsk).creation_time(at(10)).sign_bytes(b"doc").unwrap();
    let input = with_many_subpackets(&signature);
    let verifier = Verifier::new([tsk.to_cert()]).at(at(20));
    let refused = verifier.clone().limits(Limits::untrusted_input()).verify_bytes(&input, b"doc");
    assert!(is_limit(refused, Limit::Subpackets));
    assert!(verifier.verify_bytes(&input, b"doc").unwrap()[0].is_good());
}

#[test]
fn inline_signed_messages_honour_the_subpacket_limit() {
    let tsk = key();
    let mut w = Signer::new().key(&tsk).creation_time(at(10)).inline_writer(Vec::new()).unwrap();
    w.write_all(b"signed text").unwrap();
    let message = w.finish().unwrap();
    let input = with_many_subpackets(&message);
    let verifier = Verifier::new([tsk.to_cert()]).at(at(20));
    let mut r = verifier.clone().limits(Limits::untrusted_input()).inline_reader(&input[..]).unwrap();
    let mut data = Vec::new();
    let read = r.read_to_end(&mut data).map_err(Error::from_io).and_then(|_| r.finish());
    assert!(is_limit(read, Limit::Subpackets));
    let (data, verdicts) = verifier.verify_inline_bytes(&input).unwrap();
    assert_eq!(data, b"signed text");
    assert!(verdicts[0].is_good());
}
