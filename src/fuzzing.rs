//! Entry points for fuzz targets and corpus replay. Not part of the stable API.
//!
//! Each function parses hostile input and must return (never panic, hang, or allocate past
//! [`Limits`](crate::Limits)).
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use std::io::{BufRead, BufReader, Read};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::packet::header::Tag;
use crate::packet::{Packet, PacketBody, RawPacket, Serialize, read_raw_packet};
use crate::{Cert, CleartextMessage, Decryptor, Limits, Tsk, Verifier};

/// Reads packets until the input ends or a framing error, parses each one, and checks the
/// round trip: the parsed packet serializes to exactly the body it was parsed from, and
/// reading that serialization back gives the same octets again.
///
/// # Panics
/// Only if the round trip fails, which is a bug in the packet layer (this is the fuzz oracle).
#[allow(clippy::panic, reason = "the fuzz oracle reports a round-trip bug by panicking")]
pub fn packets(data: &[u8]) {
    let limits = Limits::default();
    let mut input = data;
    // Each iteration consumes at least the header octet, so the loop ends.
    while let Ok(Some(raw)) = read_raw_packet(&mut input, &limits) {
        message_packet_round_trip(&raw);
        let Ok(packet) = Packet::from_raw(&raw, &limits) else {
            // A packet that does not parse still has a known extent: go on with the next one.
            continue;
        };
        let mut body = Vec::new();
        if packet.write_body(&mut body).is_err() {
            panic!("a parsed {:?} packet cannot be serialized", raw.tag);
        }
        assert_eq!(body, *raw.body, "{:?} packet body changed in the round trip", raw.tag);
        let bytes = packet.to_vec();
        let mut again = bytes.as_slice();
        let reparsed = match read_raw_packet(&mut again, &limits) {
            Ok(Some(raw2)) => Packet::from_raw(&raw2, &limits),
            other => panic!("a serialized {:?} packet does not read back: {other:?}", raw.tag),
        };
        match reparsed {
            Ok(p) => assert_eq!(p.to_vec(), bytes, "{:?} packet changed in the second round trip", raw.tag),
            Err(e) => panic!("a serialized {:?} packet does not parse back: {e}", raw.tag),
        }
        assert!(again.is_empty(), "{:?} packet serialization has trailing octets", raw.tag);
    }
}

/// Round-trips the packets that [`Packet::from_raw`] keeps verbatim but that have their own
/// parsers elsewhere (PKESK, SKESK, One-Pass Signature, SEIPD header): a body that parses
/// serializes to exactly itself (for SEIPD, to the prefix the header was parsed from).
#[allow(clippy::panic, reason = "the fuzz oracle reports a round-trip bug by panicking")]
fn message_packet_round_trip(raw: &RawPacket) {
    use crate::packet::one_pass::OnePass;
    use crate::packet::pkesk::Pkesk;
    use crate::packet::reader::Reader;
    use crate::packet::seipd::SeipdHeader;
    use crate::packet::skesk::Skesk;

    let body = raw.body.as_slice();
    let mut out = Vec::new();
    let written = match raw.tag {
        Tag::Pkesk => Pkesk::parse(body).map(|p| p.write_to(&mut out)),
        Tag::Skesk => Skesk::parse(body).map(|p| p.write_to(&mut out)),
        Tag::OnePassSignature => OnePass::parse(body).map(|p| p.write_to(&mut out)),
        Tag::Seipd => {
            let mut r = Reader::new(body, "fuzz: SEIPD header");
            SeipdHeader::parse(&mut r).map(|p| p.write_to(&mut out))
        }
        _ => return,
    };
    match written {
        Err(_) => {}
        Ok(Err(e)) => panic!("a parsed {:?} packet cannot be serialized: {e}", raw.tag),
        Ok(Ok(())) => {
            let same = if raw.tag == Tag::Seipd { body.starts_with(&out) } else { out == body };
            assert!(same, "{:?} packet body changed in the round trip", raw.tag);
        }
    }
}

/// The time at which the fixed test certificates are evaluated (2027-01-15).
fn fixed_time() -> SystemTime {
    UNIX_EPOCH.checked_add(Duration::from_secs(1_800_000_000)).unwrap_or(UNIX_EPOCH)
}

/// The fixed keys of the decrypt, verify and cleartext targets.
struct Fixture {
    /// RFC 9580 A.4 (X25519 subkey) and the RFC 9980 Ed25519 sample (ML-KEM-768+X25519 subkey).
    keys: Vec<Tsk>,
    /// RFC 9580 A.3, the RFC 9980 Ed25519 sample and the ML-DSA-65 sample certificates.
    certs: Vec<Cert>,
}

/// Parses the fixture once per process.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let keys: &[&[u8]] = &[
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a04-v6-secret-key.asc")),
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-eddsa-sample-sk.asc")),
        ];
        let certs: &[&[u8]] = &[
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a03-v6-certificate.asc")),
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-eddsa-sample-pk.asc")),
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/v6-mldsa-65-sample-pk.asc")),
        ];
        Fixture {
            keys: keys.iter().filter_map(|k| Tsk::from_bytes(k).ok()).collect(),
            certs: certs.iter().filter_map(|c| Cert::from_bytes(c).ok()).collect(),
        }
    })
}

/// The password the decrypt target tries on every SKESK (that of RFC 9580 A.9 to A.12).
pub const PASSWORD: &str = "password";

/// Limits for the fuzz targets: the defaults, but with S2K costs small enough that one input
/// runs in milliseconds (the defaults allow a 2 GiB Argon2 run, which is a "timeout", not a bug).
#[must_use]
pub fn fuzz_limits() -> Limits {
    Limits::default()
        .with_max_argon2_memory_kib(256)
        .with_max_argon2_passes(2)
        .with_max_argon2_parallelism(4)
        .with_max_s2k_iterations(1 << 16)
}

/// Reads `r` to EOF in `step`-octet reads; returns the output and whether EOF (`Ok(0)`) was
/// reached. After an error, checks that the reader stays poisoned.
fn drain(r: &mut impl Read, step: usize, what: &str) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; step];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return (out, true),
            Ok(n) => out.extend_from_slice(buf.get(..n).unwrap_or_default()),
            Err(_) => {
                let mut one = [0u8; 1];
                assert!(r.read(&mut one).is_err(), "{what}: a read after an error succeeded");
                return (out, false);
            }
        }
    }
}

/// One decryption of `source`: the plaintext and whether it ended in success.
fn decrypt_once(source: impl BufRead, step: usize) -> (Vec<u8>, bool) {
    let f = fixture();
    let decryptor = Decryptor::new(&f.keys).password(PASSWORD).limits(fuzz_limits());
    let Ok(mut reader) = decryptor.reader(source) else { return (Vec::new(), false) };
    let (out, eof) = drain(&mut reader, step, "decryption");
    if !eof {
        return (out, false);
    }
    let finished = reader.finish();
    assert!(finished.is_ok(), "decryption reached Ok(0) but finish failed: {finished:?}");
    (out, true)
}

/// Decrypts `data` (binary or armored) with the RFC 9580 A.4 key, the RFC 9980 Ed25519 sample
/// key (ML-KEM-768+X25519 subkey) and the password [`PASSWORD`], reading to EOF, once with
/// large reads and once through a 7-octet buffer with 1-octet reads.
///
/// # Panics
/// The oracle: `finish` fails after `Ok(0)`; a reader returns data after an error; or the
/// two read patterns disagree (in outcome or plaintext).
pub fn decrypt(data: &[u8]) {
    let (big, big_ok) = decrypt_once(data, 8192);
    let (small, small_ok) = decrypt_once(BufReader::with_capacity(7, data), 1);
    assert_eq!(big_ok, small_ok, "read sizes change the outcome of decryption");
    if big_ok {
        assert_eq!(big, small, "read sizes change the plaintext");
    }
    seek_matches(data, &big, big_ok);
}

/// Reads ranges of `data` through the seekable reader: each read gives the octets sequential
/// decryption gave at its offset (`plain`, all of it when `complete`, else the authenticated
/// prefix released before the error), or an error; a complete plaintext ends where it ends.
///
/// # Panics
/// The oracle: a read that returns other octets.
fn seek_matches(data: &[u8], plain: &[u8], complete: bool) {
    use std::io::{Cursor, Seek, SeekFrom};
    let f = fixture();
    let decryptor = Decryptor::new(&f.keys).password(PASSWORD).limits(fuzz_limits());
    let Ok(mut r) = decryptor.seekable_reader(Cursor::new(data)) else { return };
    let len = plain.len();
    for (from, n) in [(0, 100), (len / 2, 300), (len.saturating_sub(10), 50), (len, 10)] {
        if r.seek(SeekFrom::Start(u64::try_from(from).unwrap_or(u64::MAX))).is_err() {
            return;
        }
        let mut out = vec![0u8; n];
        let Ok(got) = r.read(&mut out) else { continue };
        let got = out.get(..got).unwrap_or_default();
        let known = plain.get(from.min(len)..).unwrap_or_default();
        let shared = got.len().min(known.len());
        assert_eq!(got.get(..shared), known.get(..shared), "a seeking read returned other octets");
        if complete {
            assert_eq!(got.len(), shared, "a seeking read returned octets past the end");
        }
    }
}

/// Verifies `data` with the RFC 9580 A.3, RFC 9980 Ed25519 and ML-DSA-65 sample certificates:
/// as an inline-signed message (read to EOF with large and with 1-octet reads), and as
/// detached signatures over the fixed document `Testing\n`.
///
/// # Panics
/// The oracle: an inline reader that returns data after an error, `finish` failing after a
/// successful read to EOF, or read sizes changing the outcome.
pub fn verify(data: &[u8]) {
    let f = fixture();
    let verifier = || Verifier::new(&f.certs).at(fixed_time()).limits(fuzz_limits());
    let inline = |source: &mut dyn BufRead, step: usize| -> Option<(Vec<u8>, usize)> {
        let mut r = verifier().inline_reader(source).ok()?;
        let (out, eof) = drain(&mut r, step, "inline verification");
        if !eof {
            return None;
        }
        r.finish().ok().map(|v| (out, v.iter().filter(|v| v.is_good()).count()))
    };
    let big = inline(&mut &data[..], 8192);
    let small = inline(&mut BufReader::with_capacity(5, data), 1);
    assert_eq!(big, small, "read sizes change inline verification");

    if let Ok(results) = verifier().verify_detached(data, &b"Testing\n"[..]) {
        assert!(!results.is_empty(), "detached verification gave no result");
    }
}

/// Parses `data` as a Cleartext Signature Framework message and verifies it with the fixed
/// certificates.
///
/// # Panics
/// The oracle: a message that parses gives no verification result.
pub fn cleartext(data: &[u8]) {
    let _ = crate::is_cleartext_signed(data);
    let Ok(message) = CleartextMessage::from_reader(data) else { return };
    let f = fixture();
    let verifier = Verifier::new(&f.certs).at(fixed_time()).limits(fuzz_limits());
    if let Ok(results) = verifier.verify_cleartext(&message) {
        assert!(!results.is_empty(), "cleartext verification gave no result");
    }
}

/// Parses certificates and secret keys, evaluates them, and checks that what parsed serializes
/// and parses back to the same thing.
///
/// # Panics
/// Only if a parsed certificate does not survive its own serialization (the fuzz oracle).
#[allow(clippy::panic, reason = "the fuzz oracle reports a round-trip bug by panicking")]
pub fn cert(data: &[u8]) {
    let t = fixed_time();
    if let Ok(certs) = crate::Cert::read_all(data) {
        for c in &certs {
            // Evaluation must never panic, whatever the signatures say.
            let _ = c.check_valid_at(t);
            let _ = c.can_encrypt_at(t);
            let _ = c.valid_user_ids_at(t);
            let again = crate::Cert::from_bytes(&c.to_vec());
            assert!(matches!(&again, Ok(a) if a == c), "certificate changed in the round trip: {again:?}");
        }
    }
    if let Ok(keys) = crate::Tsk::read_all(data) {
        for k in &keys {
            let bytes = k.to_vec();
            match crate::Tsk::from_bytes(&bytes) {
                Ok(again) => assert!(again.to_vec() == bytes, "secret key changed in the round trip"),
                Err(e) => panic!("a serialized secret key does not parse back: {e}"),
            }
        }
    }
}

/// Dearmors `data` (binary input passes through) whole and through a tiny buffer; both must
/// agree. If it dearmors, armoring the result and dearmoring that again must give it back.
///
/// The `assert!`s are the fuzzer's oracle: each one failing is a bug in `armor`.
#[allow(clippy::panic, reason = "the fuzz oracle reports a disagreement by panicking")]
pub fn armor(data: &[u8]) {
    use std::io::{BufReader, Read, Write};

    use crate::armor::{ArmorKind, ArmorReader, ArmorWriter};

    let mut reader = ArmorReader::new(data);
    let mut decoded = Vec::new();
    let whole = reader.read_to_end(&mut decoded).map(|_| reader.kind());

    let mut small = ArmorReader::new(BufReader::with_capacity(3, data));
    let mut decoded_small = Vec::new();
    let split = small.read_to_end(&mut decoded_small).map(|_| small.kind());
    // The kind of error, not its message: which fault of a malformed body is met first depends
    // on where the source's buffers end (base64 is decoded a buffer at a time).
    let kind_of = |e: &std::io::Error| {
        e.get_ref().and_then(|inner| inner.downcast_ref::<crate::Error>()).map(std::mem::discriminant)
    };
    assert_eq!(whole.is_ok(), split.is_ok(), "read sizes change the outcome");
    if let (Err(a), Err(b)) = (&whole, &split) {
        assert_eq!(kind_of(a), kind_of(b), "read sizes change the error: {a} vs {b}");
    }

    // The threaded path, with blocks short enough that the input spans several: the same
    // outcome, the same kind of error, and the same octets.
    let block_len = data.first().map_or(1, |b| usize::from(*b % 97) + 1);
    let mut threaded = ArmorReader::new(data).threads(3).block_len(block_len);
    let mut decoded_threaded = Vec::new();
    let result = threaded.read_to_end(&mut decoded_threaded).map(|_| threaded.kind());
    match (&whole, &result) {
        (Ok(a), Ok(b)) => assert!(a == b && decoded == decoded_threaded, "threads change the output"),
        (Err(a), Err(b)) => assert_eq!(kind_of(a), kind_of(b), "threads change the error: {a} vs {b}"),
        (a, b) => panic!("threads change the outcome: {a:?} vs {b:?}"),
    }

    let Ok(kind) = whole else { return };
    assert_eq!(decoded, decoded_small, "read sizes change the output");
    assert_eq!(split.ok(), Some(kind), "read sizes change the kind");

    let armored = ArmorWriter::new(Vec::new(), kind.unwrap_or(ArmorKind::Message)).and_then(|mut w| {
        w.write_all(&decoded)?;
        w.finish()
    });
    let Ok(armored) = armored else { return };
    let armored_threaded = ArmorWriter::new(Vec::new(), kind.unwrap_or(ArmorKind::Message)).and_then(|w| {
        let mut w = w.threads(3);
        w.write_all(&decoded)?;
        w.finish()
    });
    assert!(armored_threaded.is_ok_and(|t| t == armored), "threads change the armor");
    let mut again = Vec::new();
    let result = ArmorReader::new(&armored[..]).read_to_end(&mut again);
    assert!(result.is_ok() && again == decoded, "armor round trip failed");
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, reason = "test code over generated messages")]
mod tests {
    use std::io::{Read, Write};

    use proptest::prelude::*;

    use super::{PASSWORD, fixed_time, fixture, fuzz_limits};
    use crate::AeadAlgorithm::{Eax, Gcm};
    use crate::SymmetricAlgorithm::{Aes128, Aes256};
    use crate::crypto::s2k;
    use crate::message::skesk::encrypt_session_key;
    use crate::packet::s2k::S2k;
    use crate::packet::{PacketBody, Serialize, read_raw_packet};
    use crate::{
        CleartextMessage, Decryptor, Encryptor, HashAlgorithm, Limits, Profile, SignatureMode, Signer,
        Verifier,
    };

    /// Writes `bytes` to `fuzz/corpus/<target>/<name>` if `SIXPGP_WRITE_SEEDS` is set.
    fn seed(target: &str, name: &str, bytes: &[u8]) {
        if std::env::var_os("SIXPGP_WRITE_SEEDS").is_some() {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }

    /// A message to the RFC 9580 A.3 certificate with small chunks (the negotiated OCB, and GCM
    /// and EAX forced), then the same SEIPD behind a cheap SKESK for [`PASSWORD`] (iterated
    /// S2K with the message's AEAD mode or GCM, or Argon2 with 256 KiB): the decrypt target
    /// gets past the PKESK and the SKESK in milliseconds.
    fn encrypted_seeds() -> Vec<(&'static str, Vec<u8>)> {
        let f = fixture();
        let cert = f.keys[0].to_cert();
        let plaintext: Vec<u8> = (0..300u16).map(|i| i.to_le_bytes()[0]).collect();
        let mut w = Encryptor::new([&cert])
            .profile(Profile::Rfc9580)
            .chunk_size(64)
            .at(fixed_time())
            .writer(Vec::new())
            .unwrap();
        w.write_all(&plaintext).unwrap();
        let (sym, session_key) = w.session_key();
        let (sym, session_key, aead) = (sym, crate::SessionKey::from_bytes(session_key.as_bytes()), w.aead());
        let pkesk_message = w.finish().unwrap();
        // The SEIPD packet is what follows the PKESK.
        let mut rest = pkesk_message.as_slice();
        let _ = read_raw_packet(&mut rest, &Limits::default()).unwrap().unwrap();
        let key_len = sym.key_len().unwrap();
        let skesk_message = |spec: S2k, aead: crate::AeadAlgorithm| {
            let s2k_key = s2k::derive(&spec, PASSWORD.as_bytes(), key_len, &fuzz_limits()).unwrap();
            let iv = vec![7u8; aead.nonce_len().unwrap()];
            let skesk = encrypt_session_key(&session_key, &s2k_key, sym, aead, spec.to_vec(), iv).unwrap();
            let mut out = Vec::new();
            skesk.write_packet(&mut out).unwrap();
            out.extend_from_slice(rest);
            out
        };
        let cheap = S2k::IteratedSalted { hash: HashAlgorithm::Sha256, salt: [1; 8], count: 0x10 };
        let iterated = skesk_message(cheap.clone(), aead);
        let iterated_gcm = skesk_message(cheap, Gcm);
        let argon2 = skesk_message(S2k::Argon2 { salt: [2; 16], t: 1, p: 1, m: 8 }, aead);
        // The same plaintext with each other AEAD mode forced, so that the fuzzer starts from
        // messages whose chunks and final tag verify in GCM and EAX too.
        let forced = |sym, mode| {
            let mut w = Encryptor::new([&cert])
                .cipher_suite(sym, mode)
                .chunk_size(64)
                .at(fixed_time())
                .writer(Vec::new())
                .unwrap();
            w.write_all(&plaintext).unwrap();
            w.finish().unwrap()
        };
        let pkesk_len = pkesk_message.len() - rest.len();
        let mut both = pkesk_message[..pkesk_len].to_vec();
        both.extend_from_slice(&iterated);
        let seeds = vec![
            ("gen-x25519-chunk64.bin", pkesk_message.clone()),
            ("gen-x25519-aes128-gcm-chunk64.bin", forced(Aes128, Gcm)),
            ("gen-x25519-aes256-gcm-chunk64.bin", forced(Aes256, Gcm)),
            ("gen-x25519-aes128-eax-chunk64.bin", forced(Aes128, Eax)),
            ("gen-skesk-iterated.bin", iterated),
            ("gen-skesk-iterated-gcm.bin", iterated_gcm),
            ("gen-skesk-argon2.bin", argon2),
            ("gen-pkesk-and-skesk.bin", both),
        ];
        for (name, bytes) in &seeds {
            let mut r = Decryptor::default().password(PASSWORD).limits(fuzz_limits()).reader(&bytes[..]);
            if name.contains("x25519") {
                r = Decryptor::new(&f.keys).limits(fuzz_limits()).reader(&bytes[..]);
            }
            let mut r = r.unwrap();
            let mut out = Vec::new();
            let _ = r.read_to_end(&mut out).unwrap();
            assert_eq!(out, plaintext, "{name}");
            let _ = r.finish().unwrap();
        }
        seeds
    }

    /// A message to the A.3 certificate whose SEIPD plaintext fills whole 64-octet chunks,
    /// with 20 octets appended to the SEIPD body after its final tag: the decrypt target starts
    /// at the reader's check for data after the final tag (the packet length is not
    /// authenticated).
    fn trailing_data_seed() -> Vec<u8> {
        use crate::packet::header::{BodyLength, Header, Tag};
        let f = fixture();
        let cert = f.keys[0].to_cert();
        for n in 0..200u8 {
            let mut w = Encryptor::new([&cert]).chunk_size(64).at(fixed_time()).writer(Vec::new()).unwrap();
            w.write_all(&vec![n; usize::from(n)]).unwrap();
            let message = w.finish().unwrap();
            let mut rest = message.as_slice();
            let _ = read_raw_packet(&mut rest, &Limits::default()).unwrap().unwrap();
            let pkesk_len = message.len() - rest.len();
            let header = Header::read_from(&mut rest).unwrap().unwrap();
            assert!(matches!(header.length, BodyLength::Fixed(_)), "a short SEIPD has a fixed length");
            // Fields (36 octets) ‖ chunks of 64 ‖ 16 ‖ final tag (16): whole chunks only when
            // what follows the fields is a multiple of 80 octets plus the final tag.
            if !(rest.len() - 36 - 16).is_multiple_of(80) || rest.len() == 36 + 16 {
                continue;
            }
            let mut out = message[..pkesk_len].to_vec();
            Header::fixed(Tag::Seipd, rest.len() + 20).unwrap().write_to(&mut out).unwrap();
            out.extend_from_slice(rest);
            out.extend_from_slice(&[0x5a; 20]);
            // The reader reads ahead when it is made, so the error may come from there.
            let mut plain = Vec::new();
            let err = match Decryptor::new(&f.keys).limits(fuzz_limits()).reader(&out[..]) {
                Err(e) => e,
                Ok(mut r) => crate::Error::from_io(r.read_to_end(&mut plain).unwrap_err()),
            };
            assert!(
                matches!(&err, crate::Error::Malformed(m) if m.context() == "SEIPD: data after the final tag"),
                "{err:?}"
            );
            assert!(plain.len() < usize::from(n), "the last chunk was released");
            return out;
        }
        panic!("no length gives whole chunks");
    }

    #[test]
    fn generated_decrypt_seeds_decrypt() {
        let trailing = trailing_data_seed();
        for (name, bytes) in encrypted_seeds()
            .iter()
            .map(|(n, b)| (*n, b))
            .chain([("gen-x25519-trailing-data.bin", &trailing)])
        {
            seed("decrypt", name, bytes);
            super::decrypt(bytes);
        }
    }

    #[test]
    fn generated_verify_and_cleartext_seeds_verify() {
        let f = fixture();
        let a04 = &f.keys[0];
        let doc = b"Testing\n- dash\r\nFrom here  \n\nno newline".to_vec();
        let signer = |mode| Signer::new().key(a04).mode(mode).creation_time(fixed_time());
        let verifier = || Verifier::new(&f.certs).at(fixed_time());
        for (mode, tag) in [(SignatureMode::Binary, "binary"), (SignatureMode::Text, "text")] {
            let mut w = signer(mode).inline_writer(Vec::new()).unwrap();
            w.write_all(&doc).unwrap();
            let inline = w.finish().unwrap();
            let mut r = verifier().inline_reader(&inline[..]).unwrap();
            let mut out = Vec::new();
            let _ = r.read_to_end(&mut out).unwrap();
            assert_eq!(out, doc);
            assert!(r.finish().unwrap().iter().all(|v| v.is_good()));
            seed("verify", &format!("gen-inline-{tag}.bin"), &inline);
            super::verify(&inline);

            let mut w = signer(mode).detached().unwrap();
            w.write_all(b"Testing\n").unwrap();
            let detached = w.finish().unwrap();
            let results = verifier().verify_detached(&detached, &b"Testing\n"[..]).unwrap();
            assert!(results.iter().all(|v| v.is_good()));
            seed("verify", &format!("gen-detached-{tag}.bin"), &detached);
            super::verify(&detached);
        }
        let mut w = signer(SignatureMode::Text).cleartext_writer(Vec::new()).unwrap();
        w.write_all(&doc).unwrap();
        let cleartext = w.finish().unwrap();
        let message = CleartextMessage::from_reader(&cleartext[..]).unwrap();
        assert!(verifier().verify_cleartext(&message).unwrap().iter().all(|v| v.is_good()));
        seed("cleartext", "gen-cleartext.asc", &cleartext);
        super::cleartext(&cleartext);
    }

    /// The packet target's seeds, from `tests/data/` (which the published package carries, unlike
    /// `fuzz/corpus/`): the RFC 9580 A.3-A.5 keys and the PQC sample keys and signature,
    /// dearmored. They are the octets of `fuzz/corpus/packet/{a03-cert, a04-secret-key,
    /// a05-secret-key-locked, pqc-eddsa-sk, pqc-mldsa65-sk, pqc-mldsa65-signature}.bin`.
    const SEEDS: &[&str] = &[
        include_str!("../tests/data/a03-v6-certificate.asc"),
        include_str!("../tests/data/a04-v6-secret-key.asc"),
        include_str!("../tests/data/a05-v6-secret-key-locked.asc"),
        include_str!("../tests/data/v6-eddsa-sample-sk.asc"),
        include_str!("../tests/data/v6-mldsa-65-sample-sk.asc"),
        include_str!("../tests/data/v6-mldsa-65-sample-signature.asc"),
    ];

    fn corpus() -> Vec<Vec<u8>> {
        SEEDS
            .iter()
            .map(|armored| {
                let mut binary = Vec::new();
                let _ = crate::ArmorReader::new(armored.as_bytes()).read_to_end(&mut binary).unwrap();
                binary
            })
            .collect()
    }

    #[test]
    fn corpus_passes_the_oracle() {
        for seed in &corpus() {
            super::packets(seed);
        }
    }

    proptest! {
        #[test]
        fn mutated_corpus_passes_the_oracle(
            which in 0..SEEDS.len(),
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        ) {
            let mut data = corpus().swap_remove(which);
            for (idx, value) in edits {
                let i = idx.index(data.len());
                data[i] = value;
            }
            super::packets(&data);
        }
    }
}
