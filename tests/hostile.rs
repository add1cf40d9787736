//! Hand-crafted hostile inputs, each named for what it attacks. Every one must give a typed
//! error (or, where the input is merely useless, a result that is not a success): none may
//! panic, and none may allocate past the [`Limits`].
//!
//! Inputs are built from the RFC 9580 vectors (A.3/A.4 key, A.8 message) and from a small
//! independent SEIPDv2 sealer (AES-128-GCM, written here from RFC 9580 §5.13.2 on the
//! RustCrypto primitives) so that the plaintext packet sequence can be anything.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::cast_possible_truncation,
    reason = "tests fail by panicking; lengths in hand-built packets are small"
)]

mod common;

use std::io::{Read, Write};
use std::time::{Duration, UNIX_EPOCH};

use common::{data, dearmor, packet, seal, session_key, split_packets};
use sixpgp::{
    Cert, Decryptor, Encryptor, Error, Limit, Limits, Password, SymmetricAlgorithm, Tsk, Unsupported,
    Verification, VerificationStatus, Verifier,
};

// ---------------------------------------------------------------------------------------------
// Helpers: packets, the A.8 message.

fn a04() -> Tsk {
    Tsk::from_bytes(&data("a04-v6-secret-key.asc")).unwrap()
}

fn a03() -> Cert {
    Cert::from_bytes(&data("a03-v6-certificate.asc")).unwrap()
}

/// RFC 9580 A.8: (PKESK body, SEIPD body), encrypted to the A.4 key.
fn a08() -> (Vec<u8>, Vec<u8>) {
    let packets = split_packets(&dearmor(&data("a08-x25519-aead-ocb-message.asc")));
    assert_eq!(packets.iter().map(|p| p.0).collect::<Vec<_>>(), [1, 18]);
    (packets[0].1.clone(), packets[1].1.clone())
}

/// A binary Literal Data packet with no file name and date 0.
fn literal(content: &[u8]) -> Vec<u8> {
    let mut body = vec![b'b', 0, 0, 0, 0, 0];
    body.extend_from_slice(content);
    packet(11, &body)
}

/// Decrypts `message` with the fixed session key, reading to EOF and calling `finish`.
fn open_with_session_key(message: &[u8]) -> Result<Vec<u8>, Error> {
    let decryptor = Decryptor::default().session_key(session_key(), Some(SymmetricAlgorithm::Aes128));
    read_all(decryptor, message)
}

/// Reads `message` through `decryptor` to EOF and calls `finish`.
fn read_all(decryptor: Decryptor, message: &[u8]) -> Result<Vec<u8>, Error> {
    let mut r = decryptor.reader(message)?;
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
    let _ = r.finish()?;
    Ok(out)
}

fn is_framing_error(e: &Error) -> bool {
    matches!(e, Error::Malformed(_) | Error::Truncated(_))
}

// ---------------------------------------------------------------------------------------------
// The sealer itself: a control, so that the tests below attack the right thing.

#[test]
fn control_sealed_literal_decrypts() {
    let message = seal(&literal(b"hello"), 0);
    assert_eq!(open_with_session_key(&message).unwrap(), b"hello");
    let long: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
    assert_eq!(open_with_session_key(&seal(&literal(&long), 0)).unwrap(), long);
    // And the A.8 message decrypts with the A.4 key.
    let (pkesk, seipd) = a08();
    let mut message = packet(1, &pkesk);
    message.extend_from_slice(&packet(18, &seipd));
    let key = a04();
    assert_eq!(read_all(Decryptor::new([&key]), &message).unwrap(), b"Hello, world!");
}

// ---------------------------------------------------------------------------------------------
// Framing.

#[test]
fn truncated_packet_headers() {
    let key = a04();
    // A lone tag octet, then every cut of a five-octet length, then a cut two-octet length.
    let cases: &[&[u8]] =
        &[&[0xc1], &[0xc1, 0xff], &[0xc1, 0xff, 0, 0], &[0xc1, 0xff, 0, 0, 0], &[0xc1, 0xc5]];
    for &input in cases {
        let e = read_all(Decryptor::new([&key]).password("password"), input).unwrap_err();
        assert!(is_framing_error(&e), "decrypt {input:02x?}: {e:?}");
        let e = Cert::from_bytes(input).unwrap_err();
        assert!(is_framing_error(&e), "cert {input:02x?}: {e:?}");
        let e = Verifier::new(&[]).verify_detached(input, &b""[..]).unwrap_err();
        assert!(is_framing_error(&e), "detached {input:02x?}: {e:?}");
    }
    // An empty message is truncated, not a success.
    assert!(matches!(read_all(Decryptor::new([&key]), b""), Err(Error::Truncated(_) | Error::Malformed(_))));
}

#[test]
fn packet_lengths_past_the_end() {
    let key = a04();
    let (pkesk, seipd) = a08();
    // A PKESK that claims 50 more octets than there are.
    let mut claimed = packet(1, &pkesk);
    claimed[1] += 50;
    let e = read_all(Decryptor::new([&key]), &claimed).unwrap_err();
    assert!(matches!(e, Error::Truncated(_)), "{e:?}");
    // A SEIPD whose length runs past the end: the last chunk and final tag are missing.
    let mut message = packet(1, &pkesk);
    let mut seipd_packet = packet(18, &seipd);
    seipd_packet.truncate(seipd_packet.len() - 20);
    message.extend_from_slice(&seipd_packet);
    let e = read_all(Decryptor::new([&key]), &message).unwrap_err();
    assert!(matches!(e, Error::Truncated(_)), "{e:?}");
    // A certificate whose first packet claims 4 GiB.
    let e = Cert::from_bytes(&[0xc6, 0xff, 0xff, 0xff, 0xff, 0xff, 6]).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::PacketLength) | Error::Truncated(_)), "{e:?}");
    // A detached signature packet that claims more than is given.
    let sig = dearmor(&data("v6-mldsa-65-sample-signature.asc"));
    let e = Verifier::new(&[]).verify_detached(&sig[..sig.len() - 1], &b"Testing\n"[..]).unwrap_err();
    assert!(matches!(e, Error::Truncated(_)), "{e:?}");
}

#[test]
fn partial_lengths_in_non_data_packets() {
    let key = a04();
    let (pkesk, seipd) = a08();
    // The PKESK sent as a 512-octet partial body (0xE9), then a fixed remainder.
    let mut body = pkesk.clone();
    body.resize(600, 0);
    let mut message = vec![0xc1, 0xe9];
    message.extend_from_slice(&body[..512]);
    message.extend_from_slice(&body[512..].len().to_be_bytes()[7..]);
    message.extend_from_slice(&body[512..]);
    message.extend_from_slice(&packet(18, &seipd));
    let e = read_all(Decryptor::new([&key]), &message).unwrap_err();
    assert!(matches!(e, Error::Malformed(_)), "PKESK: {e:?}");

    // A certificate whose public key packet uses a partial length.
    let cert = dearmor(&data("a03-v6-certificate.asc"));
    let mut partial = vec![0xc6, 0xe9];
    partial.extend_from_slice(&[0u8; 512]);
    partial.push(0);
    partial.extend_from_slice(&cert);
    let e = Cert::from_bytes(&partial).unwrap_err();
    assert!(matches!(e, Error::Malformed(_)), "cert: {e:?}");

    // A detached signature with a partial length.
    let mut sig = vec![0xc2, 0xe9];
    sig.extend_from_slice(&[6u8; 512]);
    sig.push(0);
    let e = Verifier::new(&[]).verify_detached(&sig, &b"x"[..]).unwrap_err();
    assert!(matches!(e, Error::Malformed(_)), "signature: {e:?}");
}

// ---------------------------------------------------------------------------------------------
// Session-key packets.

/// A v6 PKESK body to the A.4 encryption subkey (X25519) with the given fields.
fn x25519_pkesk(ephemeral: &[u8; 32], wrapped: &[u8]) -> Vec<u8> {
    let (pkesk, _) = a08();
    // version 6, recipient length 33, key version 6, fingerprint 32, algorithm 25.
    let mut body = pkesk[..36].to_vec();
    assert_eq!(body[35], 25, "A.8 PKESK algorithm");
    body.extend_from_slice(ephemeral);
    body.push(wrapped.len() as u8);
    body.extend_from_slice(wrapped);
    body
}

#[test]
fn pkesk_wrapped_key_length_not_a_multiple_of_8() {
    let key = a04();
    let (pkesk, seipd) = a08();
    let ephemeral: [u8; 32] = pkesk[36..68].try_into().unwrap();
    for len in [1usize, 7, 9, 23, 25, 39, 41] {
        let mut message = packet(1, &x25519_pkesk(&ephemeral, &vec![0xa5; len]));
        message.extend_from_slice(&packet(18, &seipd));
        let e = read_all(Decryptor::new([&key]), &message).unwrap_err();
        assert!(
            matches!(e, Error::Malformed(_) | Error::Decrypt | Error::NoDecryptionKey { .. }),
            "{len}: {e:?}"
        );
    }
    // Zero length is malformed outright.
    let mut message = packet(1, &x25519_pkesk(&ephemeral, &[]));
    message.extend_from_slice(&packet(18, &seipd));
    let e = read_all(Decryptor::new([&key]), &message).unwrap_err();
    assert!(matches!(e, Error::Malformed(_)), "{e:?}");
}

#[test]
fn pkesk_all_zero_x25519_ephemeral() {
    let key = a04();
    let (pkesk, seipd) = a08();
    let wrapped = pkesk[69..].to_vec();
    let mut message = packet(1, &x25519_pkesk(&[0; 32], &wrapped));
    message.extend_from_slice(&packet(18, &seipd));
    let e = read_all(Decryptor::new([&key]), &message).unwrap_err();
    assert!(matches!(e, Error::Decrypt | Error::NoDecryptionKey { .. }), "{e:?}");
    // Another low-order point (order 8) is no better.
    let mut order8 = [0u8; 32];
    order8[0] = 1;
    let mut message = packet(1, &x25519_pkesk(&order8, &wrapped));
    message.extend_from_slice(&packet(18, &seipd));
    let e = read_all(Decryptor::new([&key]), &message).unwrap_err();
    assert!(matches!(e, Error::Decrypt | Error::NoDecryptionKey { .. }), "{e:?}");
}

#[test]
fn pkesk_with_short_or_oversized_key_material() {
    let key = a04();
    let (pkesk, seipd) = a08();
    // The fields cut inside the ephemeral key, and with trailing octets after the wrapped key.
    for body in [pkesk[..50].to_vec(), [&pkesk[..], &[0u8; 8][..]].concat(), pkesk[..36].to_vec()] {
        let mut message = packet(1, &body);
        message.extend_from_slice(&packet(18, &seipd));
        let e = read_all(Decryptor::new([&key]), &message).unwrap_err();
        assert!(is_framing_error(&e), "{} octets: {e:?}", body.len());
    }
}

#[test]
fn thousands_of_pkesks() {
    let key = a04();
    let (pkesk, seipd) = a08();
    let one = packet(1, &pkesk);
    let mut message = Vec::with_capacity(one.len() * 3000);
    for _ in 0..3000 {
        message.extend_from_slice(&one);
    }
    message.extend_from_slice(&packet(18, &seipd));
    let e = read_all(Decryptor::new([&key]), &message).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::SessionKeyPackets)), "{e:?}");
    // A lower limit applies as set.
    let limits = Limits::default().with_max_session_key_packets(3);
    let mut four = one.repeat(4);
    four.extend_from_slice(&packet(18, &seipd));
    let e = read_all(Decryptor::new([&key]).limits(limits), &four).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::SessionKeyPackets)), "{e:?}");
    let mut three = one.repeat(3);
    three.extend_from_slice(&packet(18, &seipd));
    assert_eq!(read_all(Decryptor::new([&key]).limits(limits), &three).unwrap(), b"Hello, world!");
}

/// A v6 SKESK body (AES-128, GCM) with the given S2K specifier and a dummy key and tag.
fn skesk(s2k: &[u8]) -> Vec<u8> {
    let iv = [0u8; 12];
    let mut body = vec![6, (3 + s2k.len() + iv.len()) as u8, 7, 3, s2k.len() as u8];
    body.extend_from_slice(s2k);
    body.extend_from_slice(&iv);
    body.extend_from_slice(&[0x11; 16 + 16]);
    body
}

fn argon2_s2k(t: u8, p: u8, m: u8) -> Vec<u8> {
    let mut s2k = vec![4];
    s2k.extend_from_slice(&[0x22; 16]);
    s2k.extend_from_slice(&[t, p, m]);
    s2k
}

#[test]
fn argon2_memory_exponent_31_is_refused_before_allocating() {
    let seipd = seal(&literal(b"x"), 0);
    let mut message = packet(3, &skesk(&argon2_s2k(1, 4, 31)));
    message.extend_from_slice(&seipd);
    // 2^31 KiB = 2 TiB: refused by the default limits, before any allocation.
    let e = read_all(Decryptor::default().password("password"), &message).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::Argon2Memory)), "{e:?}");
    // Passes and parallelism are bounded too.
    for (s2k, limit) in
        [(argon2_s2k(255, 4, 10), Limit::Argon2Passes), (argon2_s2k(1, 255, 16), Limit::Argon2Parallelism)]
    {
        let mut message = packet(3, &skesk(&s2k));
        message.extend_from_slice(&seipd);
        let e = read_all(Decryptor::default().password("password"), &message).unwrap_err();
        assert!(matches!(e, Error::LimitExceeded(l) if l == limit), "{limit:?}: {e:?}");
    }
    // A locked secret key asking for 2 TiB: its m octet patched from 21 to 31.
    let mut locked = dearmor(&data("a05-v6-secret-key-locked.asc"));
    let mut patched = 0;
    for i in 0..locked.len() - 2 {
        if locked[i..i + 3] == [1, 4, 21] {
            locked[i + 2] = 31;
            patched += 1;
        }
    }
    assert_eq!(patched, 2, "A.5 has two Argon2 S2K specifiers (t=1, p=4, m=21)");
    let mut tsk = Tsk::from_bytes(&locked).unwrap();
    let e = tsk.unlock(&Password::from("correct horse battery staple")).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::Argon2Memory)), "{e:?}");
}

#[test]
fn iterated_s2k_count_above_the_limit() {
    let seipd = seal(&literal(b"x"), 0);
    let mut s2k = vec![3, 8];
    s2k.extend_from_slice(&[0x44; 8]);
    s2k.push(0xff);
    let mut message = packet(3, &skesk(&s2k));
    message.extend_from_slice(&seipd);
    let limits = Limits::default().with_max_s2k_iterations(1 << 16);
    let e = read_all(Decryptor::default().password("password").limits(limits), &message).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::S2kIterations)), "{e:?}");
}

// ---------------------------------------------------------------------------------------------
// SEIPD.

#[test]
fn seipd_tails_of_0_to_40_octets() {
    let key = a04();
    let (pkesk, seipd) = a08();
    // Version, cipher, mode, chunk octet and salt: 36 octets, then 0..=40 octets of the rest.
    for tail in 0..=40usize {
        let body = &seipd[..(36 + tail).min(seipd.len())];
        let mut message = packet(1, &pkesk);
        message.extend_from_slice(&packet(18, body));
        let e = read_all(Decryptor::new([&key]), &message).unwrap_err();
        assert!(matches!(e, Error::Truncated(_) | Error::Malformed(_) | Error::Decrypt), "{tail}: {e:?}");
    }
    // The same with the sealer: tails of a message with a 5-octet last chunk.
    let sealed = split_packets(&seal(&literal(b"hello"), 0)).remove(0).1;
    for tail in 0..=40usize {
        let body = [&sealed[..36], &vec![0u8; tail][..]].concat();
        let e = open_with_session_key(&packet(18, &body)).unwrap_err();
        assert!(matches!(e, Error::Truncated(_) | Error::Malformed(_) | Error::Decrypt), "{tail}: {e:?}");
    }
    // And a SEIPD cut inside its fixed fields.
    for cut in 0..36 {
        let e = open_with_session_key(&packet(18, &sealed[..cut])).unwrap_err();
        assert!(is_framing_error(&e), "{cut}: {e:?}");
    }
}

#[test]
fn chunk_size_octet_above_16() {
    let key = a04();
    let (pkesk, mut seipd) = a08();
    assert_eq!(seipd[3], 6, "A.8 chunk size octet");
    for octet in [17u8, 22, 56, 255] {
        seipd[3] = octet;
        let mut message = packet(1, &pkesk);
        message.extend_from_slice(&packet(18, &seipd));
        let e = read_all(Decryptor::new([&key]), &message).unwrap_err();
        assert!(matches!(e, Error::Malformed(_) | Error::Unsupported(_)), "{octet}: {e:?}");
        // With the session key given directly, too (no PKESK processing on the way).
        let e = read_all(
            Decryptor::default().session_key(session_key(), Some(SymmetricAlgorithm::Aes128)),
            &packet(18, &seipd),
        )
        .unwrap_err();
        assert!(matches!(e, Error::Malformed(_) | Error::Unsupported(_)), "{octet}: {e:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Nesting.

#[test]
fn seipd_inside_seipd() {
    let inner = seal(&literal(b"inner"), 0);
    let e = open_with_session_key(&seal(&inner, 0)).unwrap_err();
    assert!(matches!(e, Error::Malformed(_) | Error::Unsupported(_)), "{e:?}");
    // Deeper still.
    let mut m = literal(b"deep");
    for _ in 0..20 {
        m = seal(&m, 0);
    }
    let e = open_with_session_key(&m).unwrap_err();
    assert!(matches!(e, Error::Malformed(_) | Error::Unsupported(_)), "{e:?}");
}

#[test]
fn literal_inside_literal_and_after_literal() {
    // Literal data whose content is a literal packet is just data: it is not unwrapped.
    let inner = literal(b"inner");
    assert_eq!(open_with_session_key(&seal(&literal(&inner), 0)).unwrap(), inner);
    // Two literal packets in a row: the second one is trailing data, an error.
    let two = [literal(b"one"), literal(b"two")].concat();
    let e = open_with_session_key(&seal(&two, 0)).unwrap_err();
    assert!(matches!(e, Error::Malformed(_) | Error::Unsupported(Unsupported::PacketType(11))), "{e:?}");
    // A literal packet followed by a PKESK.
    let e = open_with_session_key(&seal(&[literal(b"one"), packet(1, &[6])].concat(), 0)).unwrap_err();
    assert!(matches!(e, Error::Malformed(_) | Error::Unsupported(Unsupported::PacketType(1))), "{e:?}");
    // Compressed data inside: unsupported.
    let e = open_with_session_key(&seal(&packet(8, &[1, 0, 0]), 0)).unwrap_err();
    assert!(matches!(e, Error::Unsupported(Unsupported::CompressedData)), "{e:?}");
    // Nothing at all inside: the message ends before its literal data.
    let e = open_with_session_key(&seal(&[], 0)).unwrap_err();
    assert!(matches!(e, Error::Malformed(_) | Error::Truncated(_)), "{e:?}");
}

// ---------------------------------------------------------------------------------------------
// Signatures and certificates.

#[test]
fn detached_verification_of_non_data_signatures() {
    // The A.3 certificate's direct-key (0x1F) and subkey-binding (0x18) signatures, given as
    // detached signatures over some data: never good, never a panic.
    let certs = [a03()];
    let at = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let packets = split_packets(&dearmor(&data("a03-v6-certificate.asc")));
    let sigs: Vec<_> = packets.iter().filter(|p| p.0 == 2).collect();
    assert_eq!(sigs.len(), 2);
    for (_, body) in sigs {
        let results =
            Verifier::new(&certs).at(at).verify_detached(&packet(2, body), &b"OpenPGP"[..]).unwrap();
        assert_eq!(results.len(), 1);
        assert!(
            matches!(results[0].status(), VerificationStatus::Bad(_) | VerificationStatus::Unverifiable(_)),
            "{results:?}"
        );
    }
    // A signature packet of another version, or of nonsense, is unverifiable.
    for body in [vec![4u8, 0, 27, 10], vec![6u8], vec![]] {
        let results = Verifier::new(&certs).at(at).verify_detached(&packet(2, &body), &b"x"[..]).unwrap();
        assert!(!results[0].is_good());
    }
    // Another packet type in place of a signature.
    let e = Verifier::new(&certs).at(at).verify_detached(&packet(13, b"uid"), &b"x"[..]).unwrap_err();
    assert!(matches!(e, Error::Malformed(_)), "{e:?}");
}

#[test]
fn too_many_detached_signatures() {
    let certs = [a03()];
    let sig = packet(2, &[6u8, 0, 27, 10]);
    let many = sig.repeat(5000);
    let e = Verifier::new(&certs).verify_detached(&many, &b"x"[..]).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::Signatures)), "{e:?}");
}

#[test]
fn certificate_with_empty_or_oversized_key_material() {
    let packets = split_packets(&dearmor(&data("a03-v6-certificate.asc")));
    let primary = &packets[0].1;
    // version 6, created (4), algorithm 27 (Ed25519), key material length (4), 32 octets.
    assert_eq!((primary[0], primary[5], primary.len()), (6, 27, 42));
    let rest: Vec<u8> = packets[1..].iter().flat_map(|(t, b)| packet(*t, b)).collect();
    let with_key = |key: &[u8]| {
        let mut body = primary[..6].to_vec();
        body.extend_from_slice(&(key.len() as u32).to_be_bytes());
        body.extend_from_slice(key);
        [packet(6, &body), rest.clone()].concat()
    };
    for material in [vec![], vec![9u8; 31], vec![9u8; 33], vec![9u8; 100_000]] {
        let e = Cert::from_bytes(&with_key(&material)).unwrap_err();
        assert!(
            matches!(e, Error::Malformed(_) | Error::Truncated(_) | Error::LimitExceeded(_)),
            "{}: {e:?}",
            material.len()
        );
    }
    // The key-material length field claims more than the packet holds.
    let mut body = primary.clone();
    body[6..10].copy_from_slice(&u32::MAX.to_be_bytes());
    let e = Cert::from_bytes(&[packet(6, &body), rest].concat()).unwrap_err();
    assert!(is_framing_error(&e), "{e:?}");
}

// ---------------------------------------------------------------------------------------------
// A signing subkey without a back-signature.

/// `len` as the 4-octet length that v6 hashing uses.
fn be32(len: usize) -> [u8; 4] {
    (len as u32).to_be_bytes()
}

/// A key packet body as it is hashed: 0x9B ‖ 4-octet length ‖ body (RFC 9580 §5.2.4).
fn hashed_key(body: &[u8]) -> Vec<u8> {
    [&[0x9b][..], &be32(body.len()), body].concat()
}

/// A v6 Ed25519 signature packet of `sig_type` (SHA2-256, 16-octet salt) with the given hashed
/// subpackets, made by `signer` over `prefix` (what precedes the signature fields in the hash).
fn ed25519_sig(signer: &ed25519_dalek::SigningKey, sig_type: u8, hashed: &[u8], prefix: &[u8]) -> Vec<u8> {
    use ed25519_dalek::Signer as _;
    use sha2::Digest as _;

    let salt = [0x5cu8; 16];
    let mut fields = vec![6, sig_type, 27, 8];
    fields.extend_from_slice(&be32(hashed.len()));
    fields.extend_from_slice(hashed);
    let mut h = sha2::Sha256::new();
    h.update(salt);
    h.update(prefix);
    h.update(&fields);
    h.update([6, 0xff]);
    h.update(be32(fields.len()));
    let digest = h.finalize();
    let signature = signer.sign(&digest).to_bytes();
    let mut body = fields;
    body.extend_from_slice(&be32(0));
    body.extend_from_slice(&digest[..2]);
    body.push(salt.len() as u8);
    body.extend_from_slice(&salt);
    body.extend_from_slice(&signature);
    body
}

/// Hashed subpackets: creation time, then the extra ones given, then the issuer fingerprint.
fn subpackets(created: u32, extra: &[u8], issuer: &[u8; 32]) -> Vec<u8> {
    let mut out = vec![5, 0x80 | 2];
    out.extend_from_slice(&created.to_be_bytes());
    out.extend_from_slice(extra);
    out.extend_from_slice(&[34, 33, 6]);
    out.extend_from_slice(issuer);
    out
}

fn v6_fingerprint(key_body: &[u8]) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(hashed_key(key_body)).into()
}

/// The A.3 certificate plus an Ed25519 signing subkey, bound with or without its
/// back-signature; and a binary signature over `data` made by that subkey.
fn cert_with_signing_subkey(with_back_signature: bool, document: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let tsk = split_packets(&dearmor(&data("a04-v6-secret-key.asc")));
    let primary_secret = &tsk[0].1;
    // Public fields (42 octets), S2K usage 0, the 32-octet Ed25519 secret.
    assert_eq!((primary_secret.len(), primary_secret[42]), (42 + 1 + 32, 0));
    let primary_body = &primary_secret[..42];
    let primary_key = ed25519_dalek::SigningKey::from_bytes(&primary_secret[43..].try_into().unwrap());
    assert_eq!(primary_key.verifying_key().as_bytes(), &primary_body[10..]);

    let created = u32::from_be_bytes(primary_body[1..5].try_into().unwrap()) + 100;
    let subkey = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
    let mut sub_body = vec![6];
    sub_body.extend_from_slice(&created.to_be_bytes());
    sub_body.push(27);
    sub_body.extend_from_slice(&be32(32));
    sub_body.extend_from_slice(subkey.verifying_key().as_bytes());

    let keys = [hashed_key(primary_body), hashed_key(&sub_body)].concat();
    let (primary_fp, sub_fp) = (v6_fingerprint(primary_body), v6_fingerprint(&sub_body));
    // Key flags: sign (0x02).
    let mut extra = vec![2, 27, 0x02];
    if with_back_signature {
        let back = ed25519_sig(&subkey, 0x19, &subpackets(created, &[], &sub_fp), &keys);
        // Embedded signature (32), critical; a one-octet subpacket length.
        extra.extend_from_slice(&[u8::try_from(back.len() + 1).unwrap(), 0x80 | 32]);
        extra.extend_from_slice(&back);
    }
    let binding = ed25519_sig(&primary_key, 0x18, &subpackets(created, &extra, &primary_fp), &keys);

    let a03: Vec<u8> = dearmor(&data("a03-v6-certificate.asc"));
    let cert = [a03, packet(14, &sub_body), packet(2, &binding)].concat();
    let sig = ed25519_sig(&subkey, 0x00, &subpackets(created + 10, &[], &sub_fp), document);
    (cert, packet(2, &sig))
}

#[test]
fn signing_subkey_without_back_signature_is_not_usable() {
    let at = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let doc = b"a document";
    // Control: with its back-signature, the subkey's signature is good.
    let (cert, sig) = cert_with_signing_subkey(true, doc);
    let certs = [Cert::from_bytes(&cert).unwrap()];
    assert_eq!(certs[0].subkey_fingerprints().count(), 2);
    let results = Verifier::new(&certs).at(at).verify_detached(&sig, &doc[..]).unwrap();
    assert!(results[0].is_good(), "{results:?}");

    // Without it, the certificate still parses, but the subkey cannot sign.
    let (cert, sig) = cert_with_signing_subkey(false, doc);
    let certs = [Cert::from_bytes(&cert).unwrap()];
    let results = Verifier::new(&certs).at(at).verify_detached(&sig, &doc[..]).unwrap();
    assert_eq!(results.len(), 1);
    assert!(
        matches!(results[0].status(), VerificationStatus::Unverifiable(_) | VerificationStatus::Bad(_)),
        "{results:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Resource bounds that span packets: S2K runs per message, signatures per component.

#[test]
fn many_expensive_skesks_are_bounded() {
    // 40 SKESKs with a wrong key each (256 KiB Argon2), then a sealed message.
    let limits = Limits::default().with_max_s2k_derivations(4);
    let mut message = packet(3, &skesk(&argon2_s2k(1, 1, 8))).repeat(40);
    message.extend_from_slice(&seal(&literal(b"x"), 0));
    let e = read_all(Decryptor::default().password("password").limits(limits), &message).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::S2kDerivations)), "{e:?}");
}

#[test]
fn one_pass_signature_floods_share_one_hash() {
    // RFC 9580 A.7 (One-Pass Signature, literal data, signature) with its two signature
    // packets repeated 40 times: the copies announce the same hash (algorithm, salt, mode),
    // which runs once over the literal data, so every copy is checked (distinct hashes are
    // capped: tests/signature_floods.rs).
    let packets = split_packets(&dearmor(&data("a07-inline-signed-message.asc")));
    let tags: Vec<u8> = packets.iter().map(|(t, _)| *t).collect();
    assert_eq!(tags, [4, 11, 2]);
    let mut message = packet(4, &packets[0].1).repeat(40);
    message.extend_from_slice(&packet(11, &packets[1].1));
    message.extend_from_slice(&packet(2, &packets[2].1).repeat(40));
    let certs = [a03()];
    let results = Verifier::new(&certs).inline_reader(&message[..]).unwrap().finish().unwrap();
    assert_eq!(results.len(), 40);
    assert!(results.iter().all(Verification::is_good), "{results:?}");
}

#[test]
fn unknown_non_critical_packets_are_ignored() {
    // RFC 9580 §4.3: an unknown non-critical packet (type IDs 40-63) MUST be ignored; here
    // before the SEIPD, and before and after the literal data inside it.
    for tag in [40, 63] {
        let unknown = packet(tag, b"from a future version");
        let mut inner = unknown.clone();
        inner.extend_from_slice(&literal(b"hello"));
        inner.extend_from_slice(&unknown);
        let mut message = unknown.clone();
        message.extend_from_slice(&seal(&inner, 0));
        assert_eq!(open_with_session_key(&message).unwrap(), b"hello", "tag {tag}");
    }
    // An unknown critical packet (below 40) is still refused, before and inside the SEIPD.
    let mut message = packet(39, b"x");
    message.extend_from_slice(&seal(&literal(b"hello"), 0));
    assert!(open_with_session_key(&message).is_err());
    let mut inner = packet(39, b"x");
    inner.extend_from_slice(&literal(b"hello"));
    assert!(open_with_session_key(&seal(&inner, 0)).is_err());
}

#[test]
fn unusable_skesks_do_not_use_up_the_derivation_budget() {
    // Ten SKESKs with an unknown cipher (nothing to derive) before the real one: the budget of
    // two derivations is enough, as only the real SKESK runs its S2K.
    let mut w = Encryptor::default().password("pw").writer(Vec::new()).unwrap();
    w.write_all(b"hello").unwrap();
    let real = w.finish().unwrap();
    let mut junk = skesk(&argon2_s2k(1, 1, 8));
    junk[2] = 99;
    let mut message = packet(3, &junk).repeat(10);
    message.extend_from_slice(&real);
    let limits = Limits::default().with_max_s2k_derivations(2);
    let plain = read_all(Decryptor::default().password("pw").limits(limits), &message).unwrap();
    assert_eq!(plain, b"hello");
}

#[test]
fn certificate_component_with_too_many_signatures() {
    let packets = split_packets(&dearmor(&data("a03-v6-certificate.asc")));
    // Primary key, its direct-key signature repeated 1100 times, then the subkey and binding.
    let mut cert = packet(packets[0].0, &packets[0].1);
    cert.extend_from_slice(&packet(2, &packets[1].1).repeat(1100));
    for (tag, body) in &packets[2..] {
        cert.extend_from_slice(&packet(*tag, body));
    }
    let e = Cert::from_bytes(&cert).map(|c| c.fingerprint()).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::Signatures)), "{e:?}");
}

#[test]
fn keyring_size_is_bounded() {
    let a03 = data("a03-v6-certificate.asc");
    let small = Limits::default().with_max_keyring_len(100);
    let e = Cert::read_all_with_limits(&a03[..], &small).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::KeyringLength)), "{e:?}");
    assert_eq!(Cert::read_all_with_limits(&a03[..], &Limits::default()).unwrap().len(), 1);
}

#[test]
fn a_packet_of_unknown_critical_type_in_a_key_is_named() {
    // RFC 9580 §4.3: a packet of an unknown type in the critical range (0 to 39) makes the
    // whole packet sequence invalid; one in the non-critical range (40 to 63) is skipped. The
    // first case is the input `fuzz/corpus/diff_cert/critical-unknown-type-31-after-subkey`
    // (A.4 with a type-31 packet and a Trust packet after its subkey), which Sequoia reads.
    let packets = split_packets(&dearmor(&data("a04-v6-secret-key.asc")));
    let with_after_subkey = |tag: u8| -> Vec<u8> {
        let mut out = Vec::new();
        for (t, body) in &packets {
            out.extend(packet(*t, body));
            if *t == 7 {
                out.extend(packet(tag, &[0, 1, 2, 3]));
                out.extend(packet(12, &[0, 0]));
            }
        }
        out
    };
    for tag in [15, 16, 22, 31, 39] {
        let input = with_after_subkey(tag);
        let e = Tsk::from_bytes(&input).unwrap_err();
        assert!(matches!(&e, Error::Malformed(m) if m.packet_type() == Some(tag)), "{tag}: {e:?}");
        let e = Cert::from_bytes(&input).unwrap_err();
        assert!(matches!(&e, Error::Malformed(m) if m.packet_type() == Some(tag)), "{tag}: {e:?}");
    }
    // A known packet type that certificates do not hold is named the same way.
    let e = Cert::from_bytes(&with_after_subkey(4)).unwrap_err();
    assert!(matches!(&e, Error::Malformed(m) if m.packet_type() == Some(4)), "{e:?}");
    let a04 = Tsk::from_bytes(&data("a04-v6-secret-key.asc")).unwrap();
    for tag in [40, 63] {
        assert_eq!(Tsk::from_bytes(&with_after_subkey(tag)).unwrap().to_cert(), a04.to_cert(), "{tag}");
    }
}
