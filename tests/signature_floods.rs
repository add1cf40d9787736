//! Messages with many signatures: copies of one signature share one hash of the data, at most
//! sixteen distinct hashes run, and signatures that start no hash (malformed, v4) take no hash
//! from those that do. Detached, cleartext and inline verification alike.
#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail by panicking")]

mod common;

use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{TestRng, dearmor};
use sixpgp::{
    ArmorKind, ArmorWriter, CleartextMessage, KeyBuilder, Profile, Signer, Tsk, UnverifiableReason,
    Verification, VerificationStatus, Verifier,
};

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

fn key() -> Tsk {
    KeyBuilder::new(Profile::Rfc9580)
        .user_id("Signer <signer@example.org>")
        .creation_time(at(1_750_000_000))
        .rng(TestRng(5))
        .generate()
        .unwrap()
}

fn verifier(key: &Tsk) -> Verifier {
    Verifier::new([key.to_cert()]).at(at(1_760_000_000))
}

/// A binary detached signature over `data`; each call draws a new salt.
fn sign(key: &Tsk, data: &[u8], seed: u64) -> Vec<u8> {
    Signer::new()
        .key(key.clone())
        .armor(false)
        .creation_time(at(1_755_000_000))
        .rng(TestRng(seed))
        .sign_bytes(data)
        .unwrap()
}

/// A Literal Data packet (binary, no name, no date) holding `data` (short).
fn literal(data: &[u8]) -> Vec<u8> {
    let mut packet = vec![0xcb, u8::try_from(data.len() + 6).unwrap(), b'b', 0, 0, 0, 0, 0];
    packet.extend_from_slice(data);
    packet
}

/// The verdicts, run-length encoded: `[(Good, 1024)]` for 1024 good ones.
fn statuses(results: &[Verification]) -> Vec<(VerificationStatus, usize)> {
    let mut runs: Vec<(VerificationStatus, usize)> = Vec::new();
    for status in results.iter().map(Verification::status) {
        match runs.last_mut() {
            Some((last, n)) if *last == status => *n += 1,
            _ => runs.push((status, 1)),
        }
    }
    runs
}

/// A packet in the legacy format (RFC 9580 §4.2.2) in the OpenPGP format, which messages use.
fn openpgp_format(legacy: &[u8]) -> Vec<u8> {
    let tag = (legacy[0] >> 2) & 0x0f;
    let body = match legacy[0] & 3 {
        0 => &legacy[2..],
        1 => &legacy[3..],
        _ => &legacy[5..],
    };
    let mut packet = vec![0xc0 | tag, u8::try_from(body.len()).unwrap()];
    packet.extend_from_slice(body);
    packet
}

const TOO_MANY: VerificationStatus = VerificationStatus::Unverifiable(UnverifiableReason::TooManySignatures);

#[test]
fn copies_of_one_signature_are_all_checked() {
    let key = key();
    let data = b"the signed data\n".repeat(64);
    let flood = sign(&key, &data, 1).repeat(1024);
    let expected = vec![(VerificationStatus::Good, 1024)];

    let detached = verifier(&key).verify_bytes(&flood, &data).unwrap();
    assert_eq!(statuses(&detached), expected);

    // The same signatures in front of the data, inline.
    let message = [flood.clone(), literal(b"inline")].concat();
    let inline_flood = sign(&key, b"inline", 2).repeat(1024);
    let message_ok = [inline_flood, literal(b"inline")].concat();
    let (_, results) = verifier(&key).verify_inline_bytes(&message_ok).unwrap();
    assert_eq!(statuses(&results), expected);
    // Over other data they are all bad, none unverifiable: they were all checked.
    let (_, results) = verifier(&key).verify_inline_bytes(&message).unwrap();
    assert_eq!(results.len(), 1024);
    assert!(results.iter().all(|v| matches!(v.status(), VerificationStatus::Bad(_))));
}

#[test]
fn a_cleartext_message_with_copies_of_its_signature_is_checked_once() {
    let key = key();
    let mut w = Signer::new()
        .key(key.clone())
        .creation_time(at(1_755_000_000))
        .rng(TestRng(3))
        .cleartext_writer(Vec::new())
        .unwrap();
    w.write_all(b"Hello,\nworld.\n").unwrap();
    let signed = w.finish().unwrap();
    let message = CleartextMessage::from_reader(&signed[..]).unwrap();
    let one = message.signatures().to_vec();
    let begin = std::str::from_utf8(&signed).unwrap().find("-----BEGIN PGP SIGNATURE-----").unwrap();
    let mut armor = ArmorWriter::new(Vec::new(), ArmorKind::Signature).unwrap();
    armor.write_all(&one.repeat(1024)).unwrap();
    let flood = [&signed[..begin], &armor.finish().unwrap()[..]].concat();
    let message = CleartextMessage::from_reader(&flood[..]).unwrap();
    let results = verifier(&key).verify_cleartext(&message).unwrap();
    assert_eq!(statuses(&results), [(VerificationStatus::Good, 1024)]);
}

#[test]
fn at_most_sixteen_distinct_hashes_run() {
    let key = key();
    let data = b"data";
    // Forty signatures, each with a salt of its own.
    let sigs: Vec<u8> = (0..40).flat_map(|seed| sign(&key, data, seed)).collect();
    let expected = [(VerificationStatus::Good, 16), (TOO_MANY, 24)];

    assert_eq!(statuses(&verifier(&key).verify_bytes(&sigs, data).unwrap()), expected);
    let message = [sigs, literal(data)].concat();
    let (_, results) = verifier(&key).verify_inline_bytes(&message).unwrap();
    assert_eq!(statuses(&results), expected);
}

#[test]
fn signatures_that_start_no_hash_take_no_hash() {
    // Sixteen malformed signature packets and sixteen v4 signatures (RFC 9580 A.2) in front of
    // sixteen good v6 ones: every v6 signature is checked.
    let key = key();
    let data = b"data";
    let malformed = [0xc2, 3, 6, 0, 0];
    let v4 = openpgp_format(&dearmor(&common::data("a02-v4-ed25519legacy-signature.asc")));
    let good: Vec<u8> = (0..16).flat_map(|seed| sign(&key, data, seed)).collect();
    let sigs = [malformed.repeat(16), v4.repeat(16), good].concat();

    let expected = [
        (VerificationStatus::Unverifiable(UnverifiableReason::Malformed), 16),
        (VerificationStatus::Unverifiable(UnverifiableReason::UnsupportedVersion), 16),
        (VerificationStatus::Good, 16),
    ];
    assert_eq!(statuses(&verifier(&key).verify_bytes(&sigs, data).unwrap()), expected);
    let message = [sigs, literal(data)].concat();
    let (_, results) = verifier(&key).verify_inline_bytes(&message).unwrap();
    assert_eq!(statuses(&results), expected);
}
