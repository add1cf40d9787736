//! Every limit reaches every parser: input that [`Limits::untrusted_input`] refuses and the
//! defaults accept, for certificates, secret keys, messages and signatures alike.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, reason = "test helpers fail loudly")]

use std::io::{Read, Write};
use std::time::{Duration, SystemTime};

use sixpgp::{
    Cert, CleartextMessage, Decryptor, Encryptor, Error, KeyBuilder, Limit, Limits, MessageInfo, Profile,
    Signer, Tsk, Verifier,
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

/// The tag, body length and header length of the packet at the start of `bytes` (a new-format
/// header with a definite length).
fn header(bytes: &[u8]) -> (u8, usize, usize) {
    assert_eq!(bytes[0] & 0xC0, 0xC0, "new-format header");
    let (len, header) = match bytes[1] {
        l @ 0..=191 => (usize::from(l), 2),
        l @ 192..=223 => ((usize::from(l) - 192) * 256 + usize::from(bytes[2]) + 192, 3),
        255 => (u32::from_be_bytes(bytes[2..6].try_into().unwrap()) as usize, 6),
        _ => panic!("partial length"),
    };
    (bytes[0] & 0x3F, len, header)
}

/// Splits a binary packet stream into (tag, body); new-format headers with definite lengths.
fn packets(mut bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let (tag, len, header) = header(bytes);
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

/// `parse` under the untrusted preset fails with `which`; under the defaults it succeeds.
fn refused_then_accepted<T>(which: Limit, parse: impl Fn(Limits) -> Result<T, Error>) -> T {
    match parse(Limits::untrusted_input()) {
        Err(Error::LimitExceeded(l)) if l == which => {}
        Err(e) => panic!("expected LimitExceeded({which:?}), got {e:?}"),
        Ok(_) => panic!("expected LimitExceeded({which:?}), got a result"),
    }
    parse(Limits::default()).unwrap()
}

const PADDING: u8 = 21;

/// `bytes` followed by `count` Padding packets of `len` octets each.
fn padded(bytes: &[u8], count: usize, len: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for _ in 0..count {
        write_packet(PADDING, &vec![0; len], &mut out);
    }
    out
}

/// The packets of `bytes` with every signature packet repeated `times` times.
fn repeated_signatures(bytes: &[u8], times: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for (tag, body) in packets(bytes) {
        for _ in 0..if tag == 2 { times } else { 1 } {
            write_packet(tag, &body, &mut out);
        }
    }
    out
}

/// A packet of 300 KiB: over the untrusted preset's 256 KiB, under the default 1 MiB.
const LONG_PACKET: usize = 300 << 10;

#[test]
fn every_parser_honours_the_packet_length_limit() {
    let tsk = key();
    let cert = padded(&tsk.to_cert().to_vec(), 1, LONG_PACKET);
    assert_eq!(
        refused_then_accepted(Limit::PacketLength, |l| Cert::read_all_with_limits(&cert[..], &l)).len(),
        1
    );
    let key_bytes = padded(&tsk.to_vec(), 1, LONG_PACKET);
    assert_eq!(
        refused_then_accepted(Limit::PacketLength, |l| Tsk::read_all_with_limits(&key_bytes[..], &l)).len(),
        1
    );
    // A Padding packet before the session-key packets is read whole, as they are.
    let message = Encryptor::new([tsk.to_cert()]).at(at(10)).encrypt_bytes(b"hello").unwrap();
    let message = [padded(&[], 1, LONG_PACKET), message].concat();
    let (plain, _) = refused_then_accepted(Limit::PacketLength, |l| {
        Decryptor::new([&tsk]).limits(l).decrypt_bytes(&message)
    });
    assert_eq!(plain, b"hello");
    let info = refused_then_accepted(Limit::PacketLength, |l| MessageInfo::from_reader(&message[..], &l));
    assert!(info.encrypted);
    let signature = Signer::new().key(&tsk).creation_time(at(10)).sign_bytes(b"doc").unwrap();
    let signature = padded(&signature, 1, LONG_PACKET);
    let verifier = Verifier::new([tsk.to_cert()]).at(at(20));
    let verdicts = refused_then_accepted(Limit::PacketLength, |l| {
        verifier.clone().limits(l).verify_bytes(&signature, b"doc")
    });
    assert!(verdicts[0].is_good());
}

#[test]
fn every_parser_honours_the_signature_limit() {
    // 300 signatures: over the untrusted preset's 256, under the default 1024.
    let tsk = key();
    let cert = repeated_signatures(&tsk.to_cert().to_vec(), 300);
    assert_eq!(
        refused_then_accepted(Limit::Signatures, |l| Cert::read_all_with_limits(&cert[..], &l)).len(),
        1
    );
    let key_bytes = repeated_signatures(&tsk.to_vec(), 300);
    assert_eq!(
        refused_then_accepted(Limit::Signatures, |l| Tsk::read_all_with_limits(&key_bytes[..], &l)).len(),
        1
    );
    let signature = Signer::new().key(&tsk).creation_time(at(10)).sign_bytes(b"doc").unwrap();
    let signatures = repeated_signatures(&signature, 300);
    let verifier = Verifier::new([tsk.to_cert()]).at(at(20));
    let verdicts = refused_then_accepted(Limit::Signatures, |l| {
        verifier.clone().limits(l).verify_bytes(&signatures, b"doc")
    });
    assert!(verdicts[0].is_good());
    // An inline-signed message with 300 signatures before its literal data.
    let mut w = Signer::new().key(&tsk).creation_time(at(10)).inline_writer(Vec::new()).unwrap();
    w.write_all(b"signed text").unwrap();
    let inline = w.finish().unwrap();
    let mut message = Vec::new();
    for _ in 0..300 {
        write_packet(2, &packets(&signature)[0].1, &mut message);
    }
    for (tag, body) in packets(&inline) {
        if tag == 11 {
            write_packet(tag, &body, &mut message);
        }
    }
    let (data, verdicts) = refused_then_accepted(Limit::Signatures, |l| {
        verifier.clone().limits(l).verify_inline_bytes(&message)
    });
    assert_eq!(data, b"signed text");
    assert_eq!(verdicts.len(), 300);
}

#[test]
fn certificates_and_keys_honour_the_packet_count_limit() {
    // 5000 packets: over the untrusted preset's 4096, under the default 100000.
    let tsk = key();
    let cert = padded(&tsk.to_cert().to_vec(), 5000, 1);
    assert_eq!(
        refused_then_accepted(Limit::CertPackets, |l| Cert::read_all_with_limits(&cert[..], &l)).len(),
        1
    );
    let key_bytes = padded(&tsk.to_vec(), 5000, 1);
    assert_eq!(
        refused_then_accepted(Limit::CertPackets, |l| Tsk::read_all_with_limits(&key_bytes[..], &l)).len(),
        1
    );
}

#[test]
fn certificates_and_keys_honour_the_keyring_size_limit() {
    // 40 packets of 240 KiB (each under both packet limits): 9.4 MiB, over the untrusted
    // preset's 8 MiB, under the default 128 MiB.
    let tsk = key();
    let cert = padded(&tsk.to_cert().to_vec(), 40, 240 << 10);
    assert_eq!(
        refused_then_accepted(Limit::KeyringLength, |l| Cert::read_all_with_limits(&cert[..], &l)).len(),
        1
    );
    let key_bytes = padded(&tsk.to_vec(), 40, 240 << 10);
    assert_eq!(
        refused_then_accepted(Limit::KeyringLength, |l| Tsk::read_all_with_limits(&key_bytes[..], &l)).len(),
        1
    );
}

#[test]
fn messages_honour_the_session_key_packet_limit() {
    // 100 PKESKs: over the untrusted preset's 64, under the default 1024.
    let tsk = key();
    let message = Encryptor::new([tsk.to_cert()]).at(at(10)).encrypt_bytes(b"hello").unwrap();
    let mut many = Vec::new();
    for (tag, body) in packets_until_seipd(&message) {
        for _ in 0..if tag == 1 { 100 } else { 1 } {
            write_packet(tag, &body, &mut many);
        }
    }
    many.extend_from_slice(seipd_and_rest(&message));
    let (plain, _) = refused_then_accepted(Limit::SessionKeyPackets, |l| {
        Decryptor::new([&tsk]).limits(l).decrypt_bytes(&many)
    });
    assert_eq!(plain, b"hello");
}

#[test]
fn messages_honour_the_password_derivation_limit() {
    // Three SKESKs and the password of the last: three derivations, over the untrusted
    // preset's 2, under the default 8.
    let message = Encryptor::default()
        .password("first")
        .password("second")
        .password("third")
        .at(at(10))
        .encrypt_bytes(b"hello")
        .unwrap();
    let (plain, _) = refused_then_accepted(Limit::S2kDerivations, |l| {
        Decryptor::default().password("third").limits(l).decrypt_bytes(&message)
    });
    assert_eq!(plain, b"hello");
}

#[test]
fn cleartext_signed_messages_honour_the_text_limit() {
    // 9 MiB of text: over the untrusted preset's 8 MiB, under the default 64 MiB.
    let tsk = key();
    let text = "a line of text\n".repeat((9 << 20) / 15);
    let mut w = Signer::new().key(&tsk).creation_time(at(10)).cleartext_writer(Vec::new()).unwrap();
    w.write_all(text.as_bytes()).unwrap();
    let signed = w.finish().unwrap();
    let message = refused_then_accepted(Limit::CleartextLength, |l| {
        CleartextMessage::from_reader_with_limits(&signed[..], &l)
    });
    assert_eq!(message.text().len(), text.len());
}

/// The packets of an encrypted message before its SEIPD packet.
fn packets_until_seipd(message: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let at = message.len() - seipd_and_rest(message).len();
    packets(&message[..at])
}

/// The SEIPD packet of an encrypted message (tag 18) and what follows, as written.
fn seipd_and_rest(message: &[u8]) -> &[u8] {
    let mut rest = message;
    loop {
        let (tag, len, header) = header(rest);
        if tag == 18 {
            return rest;
        }
        rest = &rest[header + len..];
    }
}
