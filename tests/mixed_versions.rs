//! Messages signed with a v4 key besides a v6 key (as during a key migration): the v4
//! signature and its v3 One-Pass Signature are read as RFC 9580 §5.4 and §10.3 allow and the
//! v4 signature is reported as unverifiable for its version, while the v6 signature is
//! checked. Inline, inside encryption, detached and cleartext; then broken variants.
#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail by panicking")]

mod common;

use std::io::{Read, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{packet, seal, session_key, split_packets};
use sixpgp::{
    ArmorKind, ArmorWriter, BadReason, CleartextMessage, Decryptor, Error, KeyBuilder, Limit, Limits,
    MessageInfo, Profile, SignatureMode, Signer, SymmetricAlgorithm, Tsk, UnverifiableReason, Verification,
    VerificationStatus, Verifier,
};

const T0: u32 = 1_750_000_000;
/// The key ID of the (fictitious) v4 signing key.
const V4_KEY_ID: [u8; 8] = [0x4b, 0x45, 0x59, 0x2d, 0x49, 0x44, 0x2d, 0x34];

fn at(t: u32) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(u64::from(t))
}

fn v6_key() -> Tsk {
    KeyBuilder::new(Profile::Rfc9580)
        .user_id("New <new@example.org>")
        .creation_time(at(T0))
        .generate()
        .unwrap()
}

fn verifier(tsk: &Tsk) -> Verifier {
    Verifier::new([tsk.to_cert()]).at(at(T0 + 1000))
}

/// A v4 Ed25519 signature packet body of `sig_type` with SHA2-256, made at `T0 + 10` by
/// [`V4_KEY_ID`]: the layout of RFC 9580 §5.2.3 (creation time and a v4 issuer fingerprint
/// hashed, the issuer key ID unhashed). Its material is not a valid signature: it is never
/// verified.
fn v4_signature(sig_type: u8) -> Vec<u8> {
    v4_signature_by(sig_type, V4_KEY_ID)
}

/// [`v4_signature`] by the key `key_id`.
fn v4_signature_by(sig_type: u8, key_id: [u8; 8]) -> Vec<u8> {
    let mut hashed = vec![5, 2];
    hashed.extend_from_slice(&(T0 + 10).to_be_bytes());
    hashed.extend_from_slice(&[22, 33, 4]);
    hashed.extend_from_slice(&[0x46; 12]);
    hashed.extend_from_slice(&key_id);
    let mut unhashed = vec![9, 16];
    unhashed.extend_from_slice(&key_id);
    let mut body = vec![4, sig_type, 27, 8];
    body.extend_from_slice(&u16::try_from(hashed.len()).unwrap().to_be_bytes());
    body.extend_from_slice(&hashed);
    body.extend_from_slice(&u16::try_from(unhashed.len()).unwrap().to_be_bytes());
    body.extend_from_slice(&unhashed);
    body.extend_from_slice(&[0xab, 0xcd]);
    body.extend_from_slice(&[0x5c; 64]);
    body
}

/// A v3 One-Pass Signature packet body announcing [`v4_signature`] (RFC 9580 §5.4).
fn v3_one_pass(sig_type: u8, last: u8) -> Vec<u8> {
    [&[3, sig_type, 8, 27][..], &V4_KEY_ID, &[last]].concat()
}

/// The packets of a v6 inline-signed message over `data`: (One-Pass Signature, Literal Data,
/// Signature) bodies.
fn v6_inline(tsk: &Tsk, data: &[u8]) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut w = Signer::new().key(tsk).creation_time(at(T0 + 20)).inline_writer(Vec::new()).unwrap();
    w.write_all(data).unwrap();
    let packets = split_packets(&w.finish().unwrap());
    let tags: Vec<u8> = packets.iter().map(|(t, _)| *t).collect();
    assert_eq!(tags, [4, 11, 2]);
    let mut bodies = packets.into_iter().map(|(_, b)| b);
    (bodies.next().unwrap(), bodies.next().unwrap(), bodies.next().unwrap())
}

/// v6 One-Pass Signature (not last), v3 One-Pass Signature, literal data, v4 signature, v6
/// signature: what a signer with both keys makes, the v6 key outermost.
fn mixed_message(tsk: &Tsk, data: &[u8]) -> Vec<u8> {
    let (mut ops6, literal, sig6) = v6_inline(tsk, data);
    *ops6.last_mut().unwrap() = 0;
    [
        packet(4, &ops6),
        packet(4, &v3_one_pass(0, 1)),
        packet(11, &literal),
        packet(2, &v4_signature(0)),
        packet(2, &sig6),
    ]
    .concat()
}

fn is_v4_unverifiable(v: &Verification) -> bool {
    v.status() == VerificationStatus::Unverifiable(UnverifiableReason::UnsupportedVersion)
        && v.mode() == Some(SignatureMode::Binary)
        && v.creation_time() == Some(at(T0 + 10))
        && v.signing_key().is_none()
}

#[test]
fn inline_v6_signature_is_checked_beside_a_v4_one() {
    let tsk = v6_key();
    let message = mixed_message(&tsk, b"migrating");
    let (data, results) = verifier(&tsk).verify_inline_bytes(&message).unwrap();
    assert_eq!(data, b"migrating");
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].is_good(), "{results:?}");
    assert_eq!(results[0].cert(), Some(tsk.fingerprint()));
    assert!(is_v4_unverifiable(&results[1]), "{results:?}");

    // The other nesting: the v4 signature outermost.
    let (ops6, literal, sig6) = v6_inline(&tsk, b"migrating");
    let message = [
        packet(4, &v3_one_pass(0, 0)),
        packet(4, &ops6),
        packet(11, &literal),
        packet(2, &sig6),
        packet(2, &v4_signature(0)),
    ]
    .concat();
    let (_, results) = verifier(&tsk).verify_inline_bytes(&message).unwrap();
    assert!(is_v4_unverifiable(&results[0]), "{results:?}");
    assert!(results[1].is_good(), "{results:?}");

    // Armored, and inspected: the v6 signer is named, the v4 one cannot be.
    let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap();
    w.write_all(&mixed_message(&tsk, b"migrating")).unwrap();
    let armored = w.finish().unwrap();
    let (_, results) = verifier(&tsk).verify_inline_bytes(&armored).unwrap();
    assert!(results[0].is_good() && is_v4_unverifiable(&results[1]), "{results:?}");
    let info = MessageInfo::from_bytes(&armored).unwrap();
    assert_eq!(info.signers, [tsk.fingerprint()]);

    // The changed data makes the v6 signature bad, the v4 one stays unverifiable.
    let message = mixed_message(&tsk, b"migrating");
    let mut changed = message.clone();
    let at_data = message.windows(9).position(|w| w == b"migrating").unwrap();
    changed[at_data] ^= 1;
    let (_, results) = verifier(&tsk).verify_inline_bytes(&changed).unwrap();
    assert_eq!(results[0].status(), VerificationStatus::Bad(BadReason::Invalid), "{results:?}");
    assert!(is_v4_unverifiable(&results[1]), "{results:?}");
}

#[test]
fn decryption_verifies_the_v6_signature_beside_a_v4_one() {
    let tsk = v6_key();
    let message = seal(&mixed_message(&tsk, b"secret migration"), 0);
    let decryptor = Decryptor::default()
        .session_key(session_key(), Some(SymmetricAlgorithm::Aes128))
        .verify_with([tsk.to_cert()])
        .at(at(T0 + 1000));
    let (plaintext, summary) = decryptor.decrypt_bytes(&message).unwrap();
    assert_eq!(plaintext, b"secret migration");
    let v = summary.verifications;
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(v[0].is_good(), "{v:?}");
    assert!(is_v4_unverifiable(&v[1]), "{v:?}");
    // Without certificates the signatures are listed, unchecked.
    let decryptor = Decryptor::default().session_key(session_key(), Some(SymmetricAlgorithm::Aes128));
    let (_, summary) = decryptor.decrypt_bytes(&message).unwrap();
    let v = summary.verifications;
    assert_eq!(v[0].status(), VerificationStatus::Unverifiable(UnverifiableReason::NotRequested));
    assert_eq!(v[1].status(), VerificationStatus::Unverifiable(UnverifiableReason::UnsupportedVersion));
}

#[test]
fn detached_signatures_of_both_versions() {
    let tsk = v6_key();
    let mut w = Signer::new().key(&tsk).creation_time(at(T0 + 20)).detached().unwrap();
    w.write_all(b"document").unwrap();
    let sig6 = w.finish().unwrap();
    let signatures = [packet(2, &v4_signature(0)), sig6].concat();
    let results = verifier(&tsk).verify_detached(&signatures, &b"document"[..]).unwrap();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(is_v4_unverifiable(&results[0]), "{results:?}");
    assert!(results[1].is_good(), "{results:?}");
}

#[test]
fn cleartext_message_with_both_versions() {
    let tsk = v6_key();
    let mut w = Signer::new().key(&tsk).creation_time(at(T0 + 20)).cleartext_writer(Vec::new()).unwrap();
    w.write_all(b"Hello,\n- dashes").unwrap();
    let v6_only = CleartextMessage::from_reader(&w.finish().unwrap()[..]).unwrap();
    // The same text and signatures with a v4 text signature first, and the Hash header that a
    // v4 signature needs naming both hashes.
    let mut block = ArmorWriter::new(Vec::new(), ArmorKind::Signature).unwrap();
    block.write_all(&packet(2, &v4_signature(1))).unwrap();
    block.write_all(v6_only.signatures()).unwrap();
    let block = block.finish().unwrap();
    let message =
        [&b"-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256, SHA512\n\nHello,\n- - dashes\n"[..], &block]
            .concat();
    let parsed = CleartextMessage::from_reader(&message[..]).unwrap();
    assert_eq!(parsed.text(), v6_only.text());
    let results = verifier(&tsk).verify_cleartext(&parsed).unwrap();
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(results[0].status(), VerificationStatus::Unverifiable(UnverifiableReason::UnsupportedVersion));
    assert_eq!(results[0].mode(), Some(SignatureMode::Text));
    assert!(results[1].is_good(), "{results:?}");
}

// ---------------------------------------------------------------------------------------------
// Broken variants: typed errors or verdicts, within the limits.

/// Reads an inline-signed message to the end and returns the verdicts.
fn read_inline(tsk: &Tsk, message: &[u8], limits: Limits) -> Result<Vec<Verification>, Error> {
    let mut r = verifier(tsk).limits(limits).inline_reader(message)?;
    let _ = r.read_to_end(&mut Vec::new()).map_err(Error::from_io)?;
    r.finish()
}

#[test]
fn a_v3_one_pass_signature_without_its_signature() {
    let tsk = v6_key();
    let (ops6, literal, sig6) = v6_inline(&tsk, b"x");
    let message =
        [packet(4, &ops6), packet(4, &v3_one_pass(0, 1)), packet(11, &literal), packet(2, &sig6)].concat();
    let e = read_inline(&tsk, &message, Limits::default()).unwrap_err();
    assert!(matches!(e, Error::Truncated(_)), "{e:?}");
    // Only the v3 One-Pass Signature, and no signature at all.
    let message = [packet(4, &v3_one_pass(0, 1)), packet(11, &literal)].concat();
    assert!(matches!(read_inline(&tsk, &message, Limits::default()), Err(Error::Truncated(_))));
}

#[test]
fn a_v3_one_pass_signature_with_the_wrong_signature() {
    let tsk = v6_key();
    let (ops6, literal, sig6) = v6_inline(&tsk, b"x");
    let mismatch = VerificationStatus::Bad(BadReason::OnePassMismatch);
    // A v4 signature of another type or by another key than announced; a v6 signature where
    // a v4 one was announced (its salt was never announced, so it was not hashed).
    let other_key = v4_signature_by(0, [9; 8]);
    for wrong in [v4_signature(1), other_key, sig6.clone()] {
        let message = [packet(4, &v3_one_pass(0, 1)), packet(11, &literal), packet(2, &wrong)].concat();
        let results = read_inline(&tsk, &message, Limits::default()).unwrap();
        assert_eq!(results[0].status(), mismatch, "{results:?}");
    }
    // A v6 One-Pass Signature announces a v6 signature (RFC 9580 §5.4): a v4 one does not
    // match it.
    let message = [packet(4, &ops6), packet(11, &literal), packet(2, &v4_signature(0))].concat();
    let results = read_inline(&tsk, &message, Limits::default()).unwrap();
    assert_eq!(results[0].status(), mismatch);
}

#[test]
fn a_one_pass_signature_naming_another_key_is_a_mismatch() {
    // A v6 One-Pass Signature names its signing key by fingerprint (its last 33 octets: the
    // fingerprint, then the nested flag), and the signature's issuer fingerprint must be the
    // same (RFC 9580 §5.4): the signer a message names is one its signature confirms.
    let tsk = v6_key();
    let (ops6, literal, sig6) = v6_inline(&tsk, b"x");
    let message = [packet(4, &ops6), packet(11, &literal), packet(2, &sig6)].concat();
    assert!(read_inline(&tsk, &message, Limits::default()).unwrap()[0].is_good());
    let mut other = ops6.clone();
    let at = other.len() - 33;
    other[at] ^= 1;
    let named = MessageInfo::from_bytes(&message).unwrap().signers;
    let message = [packet(4, &other), packet(11, &literal), packet(2, &sig6)].concat();
    // What the message claims: another key.
    assert_ne!(MessageInfo::from_bytes(&message).unwrap().signers, named);
    let results = read_inline(&tsk, &message, Limits::default()).unwrap();
    assert_eq!(results[0].status(), VerificationStatus::Bad(BadReason::OnePassMismatch));
}

#[test]
fn truncated_and_malformed_v4_signatures_and_one_pass_signatures() {
    let tsk = v6_key();
    let (ops6, literal, sig6) = v6_inline(&tsk, b"x");
    let v4 = v4_signature(0);
    // Every truncation of the v4 signature is reported as malformed, and the v6 signature
    // beside it is still checked.
    for cut in 1..v4.len() {
        let message = [
            packet(4, &ops6),
            packet(4, &v3_one_pass(0, 1)),
            packet(11, &literal),
            packet(2, &v4[..cut]),
            packet(2, &sig6),
        ]
        .concat();
        let results = read_inline(&tsk, &message, Limits::default()).unwrap();
        assert!(results[0].is_good(), "cut {cut}: {results:?}");
        assert_eq!(
            results[1].status(),
            VerificationStatus::Unverifiable(UnverifiableReason::Malformed),
            "cut {cut}"
        );
    }
    // A truncated v3 One-Pass Signature is an error of the message's structure.
    let ops3 = v3_one_pass(0, 1);
    for cut in 1..ops3.len() {
        let message = [packet(4, &ops3[..cut]), packet(11, &literal), packet(2, &v4)].concat();
        let e = read_inline(&tsk, &message, Limits::default()).unwrap_err();
        assert!(matches!(e, Error::Truncated(_)), "cut {cut}: {e:?}");
    }
    // The whole mixed message cut anywhere: an error, never a success.
    let message = mixed_message(&tsk, b"x");
    for cut in 0..message.len() {
        assert!(read_inline(&tsk, &message[..cut], Limits::default()).is_err(), "cut {cut}");
    }
}

#[test]
fn many_v4_signatures_are_bounded_by_the_signature_limit() {
    let tsk = v6_key();
    let (_, literal, _) = v6_inline(&tsk, b"x");
    let message = |n: usize| {
        [packet(4, &v3_one_pass(0, 1)).repeat(n), packet(11, &literal), packet(2, &v4_signature(0)).repeat(n)]
            .concat()
    };
    let limits = Limits::default().with_max_signatures(8);
    let results = read_inline(&tsk, &message(8), limits).unwrap();
    assert_eq!(results.len(), 8);
    assert!(results.iter().all(is_v4_unverifiable), "{results:?}");
    let e = read_inline(&tsk, &message(9), limits).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::Signatures)), "{e:?}");
    // Detached, likewise.
    let signatures = packet(2, &v4_signature(0)).repeat(9);
    let e = verifier(&tsk).limits(limits).verify_detached(&signatures, &b"x"[..]).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::Signatures)), "{e:?}");
}
