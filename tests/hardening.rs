//! Hardening checks through the public API: the armor checksum is never a reason to refuse,
//! protection parameters are checked before any key derivation, unlocking is bounded, SEIPDv2
//! chunks cannot be reordered, and a secret key must match its public key.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::cast_possible_truncation,
    reason = "tests fail by panicking; lengths in hand-built packets are small"
)]

mod common;

use std::io::{BufReader, Read, Write};
use std::time::{Duration, Instant, UNIX_EPOCH};

use common::{data, dearmor, packet};
use sixpgp::{
    ArmorKind, ArmorReader, ArmorWriter, Cert, CleartextMessage, Decryptor, Encryptor, Error, KeyBuilder,
    Limit, Limits, Password, Profile, Tsk, Unsupported,
};

/// Reads `message` through `decryptor` to EOF and calls `finish`.
fn read_all(decryptor: Decryptor, message: &[u8]) -> Result<Vec<u8>, Error> {
    let mut r = decryptor.reader(message)?;
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
    let _ = r.finish()?;
    Ok(out)
}

const A05_PASSWORD: &str = "correct horse battery staple";

/// The RFC 9580 A.5 locked key (binary) and the offset of each locked packet's S2K usage octet
/// (253), found from its Argon2 parameters (t=1, p=4, m=21): usage, count, cipher, AEAD, S2K
/// length, then the S2K (type 4, a 16-octet salt, t, p, m).
fn a05() -> (Vec<u8>, Vec<usize>) {
    let locked = dearmor(&data("a05-v6-secret-key-locked.asc"));
    let usages: Vec<usize> = (22..locked.len() - 2)
        .filter(|&i| locked[i..i + 3] == [1, 4, 21] && locked[i - 17] == 4 && locked[i - 18] == 20)
        .map(|i| i - 22)
        .collect();
    assert_eq!(usages.len(), 2, "A.5 has two locked packets");
    assert!(usages.iter().all(|&u| locked[u] == 253));
    (locked, usages)
}

// ---------------------------------------------------------------------------------------------
// Armor: RFC 9580 §6.1, the CRC24 line never causes a rejection.

/// Armors `data` and inserts `crc` as the line before the END line.
fn armored_with_crc(data: &[u8], crc: &str) -> Vec<u8> {
    let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap();
    w.write_all(data).unwrap();
    let text = String::from_utf8(w.finish().unwrap()).unwrap();
    let at = text.find("-----END").unwrap();
    format!("{}{crc}\n{}", &text[..at], &text[at..]).into_bytes()
}

#[test]
fn malformed_armor_checksum_lines_are_ignored() {
    let long = format!("=AAAA{}", "x".repeat(5000));
    let crcs = ["=!!", "=", "=AAA", "=AAAAA", "=AA=A", "=AAAA x", "==", "=\u{e9}t\u{e9}", long.as_str()];
    // A short body (one line-at-a-time pass) and one long enough for the worker threads.
    for len in [3_usize, 100, 600_000] {
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8 | 0x80).collect();
        for crc in crcs {
            let input = armored_with_crc(&data, crc);
            for threads in [1, 2] {
                for buffer in if len < 1000 { [1, 8192] } else { [8192, 65536] } {
                    let source = BufReader::with_capacity(buffer, &input[..]);
                    let mut out = Vec::new();
                    let result = ArmorReader::new(source).threads(threads).read_to_end(&mut out);
                    let what = format!("{len} octets, {crc:.8}, {threads} threads, buffer {buffer}");
                    assert!(result.is_ok(), "{what}: {:?}", result.map_err(Error::from_io));
                    assert!(out == data, "{what}");
                }
            }
        }
    }
    // A checksum line still has to be followed by the END line.
    let input = armored_with_crc(b"\xc2\x00", "=!!");
    let cut = input.windows(4).position(|w| w == b"=!!\n").unwrap() + 3;
    let mut out = Vec::new();
    let err = ArmorReader::new(&input[..cut]).read_to_end(&mut out).unwrap_err();
    assert!(matches!(Error::from_io(err), Error::Truncated(_)));
}

// ---------------------------------------------------------------------------------------------
// Every protection parameter is checked before the S2K runs.

#[test]
fn unlock_refuses_an_unknown_aead_before_the_s2k() {
    let (mut locked, usages) = a05();
    for &u in &usages {
        locked[u + 3] = 99;
    }
    // Limits that refuse A.5's 2 GiB Argon2: the mode is refused first, so the limit is never
    // reached (before, it was the first thing to fail).
    // No packet could be tried: the protection is named, never taken for a wrong password.
    let unknown_aead = |e: Error| matches!(e, Error::Unsupported(Unsupported::AeadAlgorithm(99)));
    let small = Limits::default().with_max_argon2_memory_kib(1 << 16);
    let mut tsk = Tsk::from_bytes(&locked).unwrap();
    assert!(unknown_aead(tsk.unlock_with_limits(&Password::from(A05_PASSWORD), &small).unwrap_err()));
    assert!(tsk.is_locked());
    // With the default limits, no Argon2 run either (before: two 2 GiB runs, seconds).
    let started = Instant::now();
    assert!(unknown_aead(tsk.unlock(&Password::from(A05_PASSWORD)).unwrap_err()));
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    assert!(tsk.is_locked());
    // An unknown cipher likewise (this one was already refused before the S2K).
    let (mut locked, usages) = a05();
    for &u in &usages {
        locked[u + 2] = 99;
    }
    let mut tsk = Tsk::from_bytes(&locked).unwrap();
    let e = tsk.unlock_with_limits(&Password::from(A05_PASSWORD), &small).unwrap_err();
    assert!(matches!(e, Error::Unsupported(Unsupported::SymmetricAlgorithm(99))), "{e:?}");
    assert!(tsk.is_locked());
}

/// A v6 SKESK body: AES-128, GCM (12-octet nonce), an Argon2 S2K with `t, p, m`, and an
/// encrypted session key of `key_len` octets (AES-128 wants 16), then a 16-octet tag.
fn skesk(t: u8, p: u8, m: u8, key_len: usize) -> Vec<u8> {
    let mut s2k = vec![4];
    s2k.extend_from_slice(&[0x22; 16]);
    s2k.extend_from_slice(&[t, p, m]);
    let iv = [0u8; 12];
    let mut body = vec![6, (3 + s2k.len() + iv.len()) as u8, 7, 3, s2k.len() as u8];
    body.extend_from_slice(&s2k);
    body.extend_from_slice(&iv);
    body.extend_from_slice(&vec![0x11; key_len + 16]);
    body
}

#[test]
fn skesks_refused_for_their_parameters_cost_no_derivation() {
    let mut w = Encryptor::default().password("pw").writer(Vec::new()).unwrap();
    w.write_all(b"hello").unwrap();
    let real = w.finish().unwrap();
    // An encrypted session key that is not the cipher's key length could never open, and an
    // S2K over the limits is refused without running: neither may use up the budget of one
    // derivation, which the real SKESK needs.
    for junk in [skesk(1, 1, 8, 32), skesk(1, 4, 31, 16)] {
        let mut message = packet(3, &junk);
        message.extend_from_slice(&real);
        let limits = Limits::default().with_max_s2k_derivations(1);
        let plain = read_all(Decryptor::default().password("pw").limits(limits), &message).unwrap();
        assert_eq!(plain, b"hello");
    }
    // Alone, the SKESK over the limits still reports the limit.
    let mut message = packet(3, &skesk(1, 4, 31, 16));
    assert!(real[0] == 0xc3 && real[1] < 192, "the encryptor's SKESK, then its SEIPD");
    message.extend_from_slice(&real[2 + usize::from(real[1])..]);
    let e = read_all(Decryptor::default().password("pw"), &message).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::Argon2Memory)), "{e:?}");
}

// ---------------------------------------------------------------------------------------------
// Limits: S2K runs per unlock, the untrusted-input preset, the cleartext text length.

/// A key generated deterministically and locked with `password` (primary key and encryption
/// subkey: two locked packets, each with its own Argon2 S2K of 64 MiB and 3 passes).
fn locked_key(password: &str) -> Tsk {
    KeyBuilder::new(Profile::Rfc9580)
        .user_id("Hardening <h@example.org>")
        .creation_time(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
        .rng(common::TestRng(7))
        .password(Password::from(password))
        .generate()
        .unwrap()
}

#[test]
fn unlock_derivations_are_bounded() {
    let key = locked_key("pw");
    let bytes = key.to_vec();
    // One S2K run allowed: the primary key opens, the subkey's run is refused.
    let mut tsk = Tsk::from_bytes(&bytes).unwrap();
    let one = Limits::default().with_max_unlock_derivations(1);
    let e = tsk.unlock_with_limits(&Password::from("pw"), &one).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::UnlockDerivations)), "{e:?}");
    assert!(tsk.is_locked());
    // A wrong password uses up the budget as well: each try is a full derivation.
    let mut tsk = Tsk::from_bytes(&bytes).unwrap();
    let e = tsk.unlock_with_limits(&Password::from("wrong"), &one).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::UnlockDerivations)), "{e:?}");
    // None allowed: nothing is derived.
    let none = Limits::default().with_max_unlock_derivations(0);
    let e = tsk.unlock_with_limits(&Password::from("pw"), &none).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::UnlockDerivations)), "{e:?}");
    // Two allowed: both open. The untrusted-input preset opens keys this crate locks.
    for limits in [Limits::default().with_max_unlock_derivations(2), Limits::untrusted_input()] {
        let mut tsk = Tsk::from_bytes(&bytes).unwrap();
        assert_eq!(tsk.unlock_with_limits(&Password::from("pw"), &limits).unwrap(), 2);
        assert!(!tsk.is_locked());
    }
}

#[test]
fn untrusted_input_preset() {
    let untrusted = Limits::untrusted_input();
    let default = Limits::default();
    // Every limit is at most the default, the costly ones well below.
    assert!(untrusted.max_argon2_memory_kib() <= 1 << 16);
    assert!(untrusted.max_argon2_work() < default.max_argon2_work());
    assert!(untrusted.max_s2k_derivations() <= 2);
    assert!(untrusted.max_unlock_derivations() <= 4);
    assert!(untrusted.max_argon2_passes() <= default.max_argon2_passes());
    assert!(untrusted.max_argon2_parallelism() <= default.max_argon2_parallelism());
    assert!(untrusted.max_s2k_iterations() <= default.max_s2k_iterations());
    assert!(untrusted.max_packet_len() < default.max_packet_len());
    assert!(untrusted.max_session_key_packets() < default.max_session_key_packets());
    assert!(untrusted.max_signatures() < default.max_signatures());
    assert!(untrusted.max_subpackets() < default.max_subpackets());
    assert!(untrusted.max_armor_header_len() < default.max_armor_header_len());
    assert!(untrusted.max_cert_packets() < default.max_cert_packets());
    assert!(untrusted.max_keyring_len() < default.max_keyring_len());
    assert!(untrusted.max_cleartext_len() < default.max_cleartext_len());
    // The RFC's A.5 key asks for 2 GiB: refused before anything is allocated.
    let mut tsk = Tsk::from_bytes(&data("a05-v6-secret-key-locked.asc")).unwrap();
    let e = tsk.unlock_with_limits(&Password::from(A05_PASSWORD), &untrusted).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::Argon2Memory)), "{e:?}");
    // Ordinary material goes through: a certificate, a message to a password (the encryptor's
    // Argon2 parameters fit), a signed message.
    let cert = Cert::from_bytes(&data("a03-v6-certificate.asc")).unwrap();
    let certs = Cert::read_all_with_limits(&data("a03-v6-certificate.asc")[..], &untrusted).unwrap();
    assert_eq!(certs.len(), 1);
    assert_eq!(certs[0].fingerprint(), cert.fingerprint());
    let mut w = Encryptor::default().password("pw").writer(Vec::new()).unwrap();
    w.write_all(b"hello").unwrap();
    let message = w.finish().unwrap();
    assert_eq!(read_all(Decryptor::default().password("pw").limits(untrusted), &message).unwrap(), b"hello");
    let cleartext = data("a06-cleartext-signed-message.asc");
    let msg = CleartextMessage::from_reader_with_limits(&cleartext[..], &untrusted).unwrap();
    assert!(msg.text().starts_with(b"What we need"));
}

#[test]
fn cleartext_text_length_is_a_limit() {
    let cleartext = data("a06-cleartext-signed-message.asc");
    let text_len = CleartextMessage::from_reader(&cleartext[..]).unwrap().text().len();
    let exact = Limits::default().with_max_cleartext_len(text_len);
    assert_eq!(
        CleartextMessage::from_reader_with_limits(&cleartext[..], &exact).unwrap().text().len(),
        text_len
    );
    let small = Limits::default().with_max_cleartext_len(text_len - 1);
    let e = CleartextMessage::from_reader_with_limits(&cleartext[..], &small).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(Limit::CleartextLength)), "{e:?}");
}

// ---------------------------------------------------------------------------------------------
// SEIPDv2 chunks: each is bound to its position by the nonce, so reordering, repeating or
// dropping whole chunks (or moving the final tag) fails, and what was released before the
// failure is a prefix of the plaintext.

/// Splits new-format packets into (tag, body), joining partial body lengths.
fn unframe(mut bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some((&ctb, rest)) = bytes.split_first() {
        assert_eq!(ctb & 0xc0, 0xc0, "new-format packet");
        let mut body = Vec::new();
        bytes = rest;
        loop {
            let (len, partial, rest) = match bytes[0] {
                l @ 0..192 => (usize::from(l), false, &bytes[1..]),
                l @ 192..224 => {
                    (((usize::from(l) - 192) << 8) + usize::from(bytes[1]) + 192, false, &bytes[2..])
                }
                255 => (u32::from_be_bytes(bytes[1..5].try_into().unwrap()) as usize, false, &bytes[5..]),
                l => (1usize << (l & 0x1f), true, &bytes[1..]),
            };
            body.extend_from_slice(&rest[..len]);
            bytes = &rest[len..];
            if !partial {
                break;
            }
        }
        out.push((ctb & 0x3f, body));
    }
    out
}

/// Octets of the SEIPDv2 body before the first chunk: version, cipher, mode, chunk size octet
/// and the 32-octet salt.
const SEIPD_HEAD: usize = 4 + 32;
const CHUNK: usize = 64;
const TAG: usize = 16;

/// A message encrypted by this crate to the A.3 certificate with 64-octet chunks: its PKESK,
/// the SEIPD body cut into its head, its chunks (ciphertext ‖ tag) and its final tag, the
/// plaintext, and the session key.
struct Chunked {
    pkesk: Vec<u8>,
    head: Vec<u8>,
    chunks: Vec<Vec<u8>>,
    final_tag: Vec<u8>,
    plaintext: Vec<u8>,
    session_key: sixpgp::SessionKey,
    sym: sixpgp::SymmetricAlgorithm,
}

fn chunked(plain_len: usize) -> Chunked {
    // Distinct chunk contents, so that a repeated or moved chunk changes the output.
    let plaintext: Vec<u8> = (0..plain_len as u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8 ^ (i / CHUNK as u64) as u8)
        .collect();
    let cert = Cert::from_bytes(&data("a03-v6-certificate.asc")).unwrap();
    let mut w = Encryptor::new([&cert]).chunk_size(CHUNK).rng(common::TestRng(3)).writer(Vec::new()).unwrap();
    let (sym, key) = w.session_key();
    let session_key = sixpgp::SessionKey::from_bytes(key.as_bytes());
    w.write_all(&plaintext).unwrap();
    let packets = unframe(&w.finish().unwrap());
    assert_eq!(packets.iter().map(|p| p.0).collect::<Vec<_>>(), [1, 18]);
    let body = &packets[1].1;
    let (head, rest) = body.split_at(SEIPD_HEAD);
    let (chunks, final_tag) = rest.split_at(rest.len() - TAG);
    let chunks: Vec<Vec<u8>> = chunks.chunks(CHUNK + TAG).map(<[u8]>::to_vec).collect();
    Chunked {
        pkesk: packets[0].1.clone(),
        head: head.to_vec(),
        chunks,
        final_tag: final_tag.to_vec(),
        plaintext,
        session_key,
        sym,
    }
}

impl Chunked {
    /// The message with `pieces` (chunks and final tags, in any order) as its SEIPD body.
    fn message(&self, pieces: &[Vec<u8>]) -> Vec<u8> {
        let mut body = self.head.clone();
        body.extend(pieces.iter().flatten());
        let mut out = packet(1, &self.pkesk);
        out.extend_from_slice(&packet(18, &body));
        out
    }

    /// Decrypts `message` with the session key on `threads` threads: the result and every
    /// plaintext octet released before it.
    fn open(&self, message: &[u8], threads: usize) -> (Result<(), Error>, Vec<u8>) {
        let key = sixpgp::SessionKey::from_bytes(self.session_key.as_bytes());
        let decryptor = Decryptor::default().session_key(key, Some(self.sym)).threads(threads);
        let mut out = Vec::new();
        let result = decryptor.reader(message).and_then(|mut r| {
            let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
            r.finish().map(|_| ())
        });
        (result, out)
    }
}

#[test]
fn seipd_chunks_cannot_be_swapped_repeated_or_dropped() {
    // 60 full chunks and a short one of plaintext (and the literal header and padding around
    // it): past the 16 chunks the calling thread decrypts alone, so workers run.
    let c = chunked(60 * CHUNK + 7);
    let n = c.chunks.len();
    assert!(n > 40, "{n} chunks");
    let mut all = c.chunks.clone();
    all.push(c.final_tag.clone());
    let mut cases: Vec<(String, Vec<Vec<u8>>)> = vec![("unchanged".into(), all.clone())];
    for i in [0, 1, 7, 15, 16, 17, 24, 33, n - 2] {
        let mut v = all.clone();
        v.swap(i, i + 1);
        cases.push((format!("swap {i} and {}", i + 1), v));
    }
    for (i, j) in [(2, 30), (20, 35), (0, n - 1)] {
        let mut v = all.clone();
        v.swap(i, j);
        cases.push((format!("swap {i} and {j}"), v));
    }
    for i in [0, 10, 16, 22, n - 2, n - 1] {
        let mut v = all.clone();
        v.insert(i + 1, all[i].clone());
        cases.push((format!("repeat {i}"), v));
    }
    for i in [0, 3, 16, 17, 29, n - 2, n - 1] {
        let mut v = all.clone();
        let _ = v.remove(i);
        cases.push((format!("drop {i}"), v));
    }
    // The final tag: dropped, repeated, before the last chunk, or after an earlier chunk (the
    // chunks after it dropped).
    cases.push(("drop the final tag".into(), all[..n].to_vec()));
    let mut v = all.clone();
    v.push(c.final_tag.clone());
    cases.push(("repeat the final tag".into(), v));
    let mut v = all.clone();
    v.swap(n - 1, n);
    cases.push(("final tag before the last chunk".into(), v));
    for k in [1, 16, 20, n - 1] {
        let mut v = all[..k].to_vec();
        v.push(c.final_tag.clone());
        cases.push((format!("final tag after chunk {}", k - 1), v));
    }

    for (what, pieces) in &cases {
        let message = c.message(pieces);
        for threads in [1, 2, 4] {
            let (result, out) = c.open(&message, threads);
            if what == "unchanged" {
                assert!(result.is_ok(), "{what}, {threads} threads: {result:?}");
                assert!(out == c.plaintext, "{what}, {threads} threads");
                continue;
            }
            assert!(result.is_err(), "{what}, {threads} threads: accepted");
            // Only chunks in their place were released: a prefix of the plaintext.
            assert!(
                c.plaintext.starts_with(&out),
                "{what}, {threads} threads: {} octets released out of order",
                out.len()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Plaintext never reaches the caller's source reader: buffers that held it are wiped before
// they become the destination of a read.

const MARKER: &[u8; 16] = b"PLAINTEXT-MARKER";

/// A source that records whether a buffer it was asked to fill already held the marker, and
/// gives at most `max_read` octets per read.
struct Spy<'a> {
    data: &'a [u8],
    pos: usize,
    reads: usize,
    dirty: usize,
    max_read: usize,
}

impl<'a> Spy<'a> {
    fn new(data: &'a [u8], max_read: usize) -> Self {
        Spy { data, pos: 0, reads: 0, dirty: 0, max_read }
    }
}

impl Read for Spy<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reads += 1;
        if buf.windows(MARKER.len()).any(|w| w == MARKER) {
            self.dirty += 1;
        }
        let n = buf.len().min(self.data.len() - self.pos).min(self.max_read);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl std::io::BufRead for Spy<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(&self.data[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos += amt;
    }
}

#[test]
fn decryption_hands_no_plaintext_to_the_source() {
    let plaintext = MARKER.repeat(64 * 1024);
    for chunk_size in [64, 1 << 16] {
        let c = {
            let cert = Cert::from_bytes(&data("a03-v6-certificate.asc")).unwrap();
            let mut w = Encryptor::new([&cert])
                .chunk_size(chunk_size)
                .rng(common::TestRng(5))
                .writer(Vec::new())
                .unwrap();
            let (sym, key) = w.session_key();
            let key = (sym, key.as_bytes().to_vec());
            w.write_all(&plaintext).unwrap();
            (key, w.finish().unwrap())
        };
        let ((sym, key), message) = c;
        for threads in [1, 2] {
            let mut spy = Spy::new(&message, usize::MAX);
            let decryptor = Decryptor::default()
                .session_key(sixpgp::SessionKey::from_bytes(&key), Some(sym))
                .threads(threads);
            let mut r = decryptor.reader(&mut spy).unwrap();
            let mut out = Vec::new();
            let _ = r.read_to_end(&mut out).unwrap();
            let _ = r.finish().unwrap();
            assert!(out == plaintext);
            assert!(spy.reads > 10, "{} reads", spy.reads);
            assert_eq!(
                spy.dirty, 0,
                "chunk {chunk_size}, {threads} threads: {} of {} reads",
                spy.dirty, spy.reads
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Unprotected secret key material must belong to its public key, as protected material must
// when it is unlocked.

/// (tag, body start, body end) of each packet of a binary key with fixed lengths.
fn packet_bodies(bytes: &[u8]) -> Vec<(u8, usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let tag = bytes[at] & 0x3f;
        let (len, head) = match bytes[at + 1] {
            l @ 0..192 => (usize::from(l), 2),
            l @ 192..224 => (((usize::from(l) - 192) << 8) + usize::from(bytes[at + 2]) + 192, 3),
            255 => (u32::from_be_bytes(bytes[at + 2..at + 6].try_into().unwrap()) as usize, 6),
            _ => panic!("partial length in a key"),
        };
        out.push((tag, at + head, at + head + len));
        at += head + len;
    }
    out
}

#[test]
fn unprotected_secrets_must_match_their_public_keys() {
    // RFC 9580 A.4: an unprotected Ed25519 primary key (tag 5) and X25519 subkey (tag 7); each
    // packet ends with its 32 secret octets.
    let a04 = dearmor(&data("a04-v6-secret-key.asc"));
    assert!(Tsk::from_bytes(&a04).is_ok());
    let bodies = packet_bodies(&a04);
    for tag in [5, 7] {
        let &(_, _, end) = bodies.iter().find(|p| p.0 == tag).unwrap();
        let mut bad = a04.clone();
        // Bit 252 of the secret: not one that X25519 clamping fixes.
        bad[end - 1] ^= 0x10;
        let e = Tsk::from_bytes(&bad).unwrap_err();
        assert!(matches!(e, Error::Malformed(_)), "tag {tag}: {e:?}");
        let e = Tsk::read_all_with_limits(&bad[..], &Limits::default()).unwrap_err();
        assert!(matches!(e, Error::Malformed(_)), "tag {tag}: {e:?}");
        // The certificate alone does not use the secret.
        assert!(Cert::from_bytes(&bad).is_ok());
    }
    // Keys this crate writes pass, locked or not.
    let locked = locked_key("pw");
    let mut open = Tsk::from_bytes(&locked.to_vec()).unwrap();
    assert_eq!(open.unlock(&Password::from("pw")).unwrap(), 2);
    assert!(Tsk::from_bytes(&open.to_vec()).is_ok());
}

#[test]
fn encryption_hands_no_plaintext_back_to_the_source() {
    // Short reads, so that a buffer is read into again after it held what the source gave.
    let plaintext = MARKER.repeat(64 * 1024);
    let cert = Cert::from_bytes(&data("a03-v6-certificate.asc")).unwrap();
    let signer = Tsk::from_bytes(&data("a04-v6-secret-key.asc")).unwrap();
    for signed in [false, true] {
        for max_read in [1000, 5000] {
            let mut encryptor = Encryptor::new([&cert]).chunk_size(1 << 12).rng(common::TestRng(9));
            if signed {
                encryptor = encryptor.signer(&signer);
            }
            let mut w = encryptor.writer(Vec::new()).unwrap();
            let mut spy = Spy::new(&plaintext, max_read);
            assert_eq!(w.copy_from(&mut spy).unwrap(), plaintext.len() as u64);
            let _ = w.finish().unwrap();
            assert!(spy.reads > 10);
            assert_eq!(
                spy.dirty, 0,
                "signed {signed}, reads of {max_read}: {} of {} reads",
                spy.dirty, spy.reads
            );
        }
    }
}
