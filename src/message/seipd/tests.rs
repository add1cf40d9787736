//! Tests of the SEIPDv2 chunk engine: round trips, thread counts, hostile bodies, RFC 9580 vectors.

use std::io::{self, Read, Write};
use std::sync::Arc;

use base64::Engine as _;
use proptest::prelude::*;

use super::reader::{LOOKAHEAD, SeipdReader};
use super::writer::SeipdWriter;
use super::*;
use crate::crypto::secret::SessionKey;
use crate::packet::Serialize;
use crate::packet::header::{Header, Tag};
use crate::packet::partial::{PartialBodyReader, PartialBodyWriter, part_exps};
use crate::packet::seipd::SeipdHeader;
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

const SALT: [u8; 32] = [0x5a; 32];

fn key(sym: SymmetricAlgorithm) -> SessionKey {
    SessionKey::from_bytes(&vec![0x42; sym.key_len().unwrap()])
}

/// Encrypts into a SEIPD body (fields + chunks + final tag), writing in pieces of `split`.
fn encrypt(sym: SymmetricAlgorithm, aead: AeadAlgorithm, c: u8, data: &[u8], split: usize) -> Vec<u8> {
    encrypt_t(sym, aead, c, data, split, policy::default_threads())
}

fn encrypt_t(
    sym: SymmetricAlgorithm,
    aead: AeadAlgorithm,
    c: u8,
    data: &[u8],
    split: usize,
    threads: usize,
) -> Vec<u8> {
    let mut w = SeipdWriter::new(Vec::new(), &key(sym), sym, aead, c, SALT).unwrap();
    w.set_threads(threads);
    // Workers from the second chunk, so that short test messages exercise them.
    w.pipeline.set_solo_jobs(1);
    for piece in data.chunks(split.max(1)) {
        w.write_all(piece).unwrap();
    }
    w.finish().unwrap()
}

fn decrypt_with(body: &[u8], session_key: &SessionKey, byte_reads: bool) -> Result<Vec<u8>> {
    decrypt_t(body, session_key, byte_reads, policy::default_threads())
}

/// A reader over the SEIPD body `body` with `threads` threads, its workers from the second
/// chunk (so that short test messages exercise them).
fn reader_t<'b>(body: &'b [u8], session_key: &SessionKey, threads: usize) -> Result<SeipdReader<&'b [u8]>> {
    let mut src = body;
    let header = SeipdHeader::read_from(&mut src)?;
    let mut r = SeipdReader::new(src, session_key, &header)?;
    r.set_threads(threads);
    r.pipeline.set_solo_jobs(1);
    Ok(r)
}

fn decrypt_t(body: &[u8], session_key: &SessionKey, byte_reads: bool, threads: usize) -> Result<Vec<u8>> {
    let mut r = reader_t(body, session_key, threads)?;
    let mut out = Vec::new();
    if byte_reads {
        let mut b = [0u8; 1];
        loop {
            match r.read(&mut b).map_err(Error::from_io)? {
                0 => break,
                _ => out.push(b[0]),
            }
        }
    } else {
        let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
    }
    assert!(r.is_done());
    Ok(out)
}

fn decrypt(sym: SymmetricAlgorithm, body: &[u8]) -> Result<Vec<u8>> {
    decrypt_with(body, &key(sym), false)
}

fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(31) >> 3).to_le_bytes()[0]).collect()
}

const MODES: [(SymmetricAlgorithm, AeadAlgorithm); 4] = [
    (SymmetricAlgorithm::Aes128, AeadAlgorithm::Ocb),
    (SymmetricAlgorithm::Aes256, AeadAlgorithm::Ocb),
    (SymmetricAlgorithm::Aes128, AeadAlgorithm::Gcm),
    (SymmetricAlgorithm::Aes256, AeadAlgorithm::Eax),
];

#[test]
fn round_trips_all_sizes_and_chunk_octets() {
    for (sym, aead) in MODES {
        for c in 0..=4u8 {
            let chunk = 1usize << (c + 6);
            for len in [0, 1, 15, 16, 17, chunk - 1, chunk, chunk + 1, 2 * chunk, 3 * chunk + 5] {
                let plain = data(len);
                let body = encrypt(sym, aead, c, &plain, 7);
                // fields + chunks + one tag per chunk + the final tag
                let chunks = len.div_ceil(chunk);
                assert_eq!(body.len(), 36 + len + 16 * chunks + 16, "{aead:?} c={c} len={len}");
                assert_eq!(decrypt(sym, &body).unwrap(), plain, "{aead:?} c={c} len={len}");
            }
        }
    }
}

#[test]
fn write_splits_give_identical_ciphertext_and_byte_reads_match() {
    for (sym, aead) in MODES {
        let plain = data(64 * 3 + 20);
        let reference = encrypt(sym, aead, 0, &plain, plain.len());
        for split in [1, 2, 63, 64, 65, 100, 1000] {
            assert_eq!(encrypt(sym, aead, 0, &plain, split), reference);
        }
        assert_eq!(decrypt_with(&reference, &key(sym), true).unwrap(), plain);
    }
}

/// Any thread count (0 counts as 1) gives the same ciphertext, decrypts anything, and keeps
/// truncation, bit flips and the released plaintext exact across batch boundaries.
#[test]
fn thread_counts_agree() {
    let sym = SymmetricAlgorithm::Aes128;
    for aead in [AeadAlgorithm::Ocb, AeadAlgorithm::Gcm] {
        for len in [0, 1, 64, 65, 64 * 4, 64 * 5 + 3, 64 * 9, 64 * 11 + 63] {
            let plain = data(len);
            let reference = encrypt_t(sym, aead, 0, &plain, 1000, 1);
            for threads in 0..=5 {
                assert_eq!(encrypt_t(sym, aead, 0, &plain, 37, threads), reference, "len {len} t {threads}");
                for byte_reads in [false, true] {
                    let out = decrypt_t(&reference, &key(sym), byte_reads, threads).unwrap();
                    assert_eq!(out, plain, "len {len} t {threads}");
                }
            }
        }
        let body = encrypt_t(sym, aead, 0, &data(64 * 7 + 5), 64, 3);
        for threads in [1, 2, 3, 4] {
            for cut in 0..body.len() {
                assert!(decrypt_t(&body[..cut], &key(sym), false, threads).is_err(), "cut {cut} t {threads}");
            }
            for i in (0..body.len()).step_by(7) {
                let mut bad = body.clone();
                bad[i] ^= 0x10;
                assert!(decrypt_t(&bad, &key(sym), false, threads).is_err(), "flip {i} t {threads}");
            }
        }
    }
}

/// With a bad chunk in the middle of a batch, exactly the chunks before it are released,
/// then the error comes, whatever the thread count.
#[test]
fn plaintext_before_a_bad_chunk_is_released_in_order() {
    let sym = SymmetricAlgorithm::Aes256;
    let plain = data(64 * 6 + 9);
    let mut body = encrypt_t(sym, AeadAlgorithm::Ocb, 0, &plain, 64, 2);
    body[36 + 3 * 80 + 5] ^= 1; // chunk 3
    for threads in [1, 2, 3, 4, 8] {
        let mut src = &body[..];
        let header = SeipdHeader::read_from(&mut src).unwrap();
        let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
        r.set_threads(threads);
        let mut out = Vec::new();
        let err = r.read_to_end(&mut out).unwrap_err();
        assert!(matches!(Error::from_io(err), Error::Decrypt));
        assert_eq!(out, plain[..64 * 3], "t {threads}");
        assert!(r.read(&mut [0u8; 4]).is_err());
    }
}

/// Data after the final tag (the packet length is not authenticated): the message fails,
/// and the last chunk is not released, whatever the thread count, the AEAD mode, whether the
/// plaintext fills its last chunk, and how much data follows (a message whose length is a
/// multiple of the chunk size is the case a reader could get wrong: its last buffer is full).
#[test]
fn data_after_the_final_tag_fails_before_the_last_chunk() {
    for (sym, aead) in MODES {
        for len in [64 * 3, 64 * 3 - 5, 64] {
            let plain = data(len);
            let last_chunk_start = (len - 1) / 64 * 64;
            for junk in [1, 15, 16, 17, 32, 33, 100, 5000] {
                let mut body = encrypt(sym, aead, 0, &plain, 64);
                body.extend(std::iter::repeat_n(0u8, junk));
                for threads in [1, 2, 4] {
                    let mut src = &body[..];
                    let header = SeipdHeader::read_from(&mut src).unwrap();
                    let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
                    r.set_threads(threads);
                    let mut out = Vec::new();
                    let what = format!("{aead:?} len {len} junk {junk} t {threads}");
                    let err = Error::from_io(r.read_to_end(&mut out).expect_err(&what));
                    assert_eq!(out, plain[..last_chunk_start], "{what}");
                    if len % 64 == 0 && junk >= TAG_LEN {
                        assert!(
                            matches!(&err, Error::Malformed(m) if m.context() == "SEIPD: data after the final tag"),
                            "{what}: {err:?}"
                        );
                    }
                }
            }
        }
    }
}

/// How [`mutations_never_release_forged_plaintext`] changes a good body.
#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, bit: u8 },
    Cut { at: usize },
    Insert { at: usize, junk: Vec<u8> },
    Delete { at: usize, len: usize },
    Append { junk: Vec<u8> },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let junk = || prop::collection::vec(any::<u8>(), 1..80);
    prop_oneof![
        (any::<usize>(), 0..8u8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        any::<usize>().prop_map(|at| Mutation::Cut { at }),
        (any::<usize>(), junk()).prop_map(|(at, junk)| Mutation::Insert { at, junk }),
        (any::<usize>(), 1..100usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        junk().prop_map(|junk| Mutation::Append { junk }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// Whatever is done to the chunks of a good body, with any thread count and source read
    /// sizes: no panic, only a prefix of the plaintext is released, success only for the
    /// unchanged body, and data appended after the final tag never releases the last chunk.
    #[test]
    #[allow(clippy::arithmetic_side_effects, reason = "offsets within a test message of a few hundred octets")]
    fn mutations_never_release_forged_plaintext(
        aead in prop_oneof![Just(AeadAlgorithm::Ocb), Just(AeadAlgorithm::Gcm), Just(AeadAlgorithm::Eax)],
        // Often whole chunks: the case where only the final tag tells the last chunk.
        len in prop_oneof![0..64 * 5 + 1usize, (0..6usize).prop_map(|k| k * 64)],
        threads in 1..5usize,
        m in mutation(),
    ) {
        let sym = SymmetricAlgorithm::Aes128;
        let plain = data(len);
        let good = encrypt(sym, aead, 0, &plain, 64);
        // The chunks start after the 36 octets of fields (version, algorithms, salt).
        let fields = 36;
        let chunks = good.len() - fields;
        let mut body = good.clone();
        let appended = matches!(m, Mutation::Append { .. });
        match m {
            Mutation::Flip { at, bit } => body[fields + at % chunks] ^= 1 << bit,
            Mutation::Cut { at } => body.truncate(fields + at % chunks),
            Mutation::Insert { at, junk } => {
                let at = fields + at % (chunks + 1);
                let _ = body.splice(at..at, junk);
            }
            Mutation::Delete { at, len } => {
                let at = fields + at % chunks;
                let _ = body.drain(at..(at + len).min(body.len()));
            }
            Mutation::Append { junk } => body.extend(junk),
        }
        let mut src = &body[..];
        let header = SeipdHeader::read_from(&mut src).unwrap();
        let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
        r.set_threads(threads);
        let mut out = Vec::new();
        let result = r.read_to_end(&mut out);
        prop_assert!(plain.starts_with(&out), "released octets that are not the plaintext");
        prop_assert_eq!(result.is_ok(), body == good);
        if appended && !plain.is_empty() {
            prop_assert!(out.len() < plain.len(), "the last chunk was released");
        }
    }
}

#[test]
fn every_truncation_fails() {
    for (sym, aead) in MODES {
        for len in [64 * 3, 64 * 3 - 10, 0] {
            let body = encrypt(sym, aead, 0, &data(len), 64);
            for cut in 0..body.len() {
                let r = decrypt(sym, &body[..cut]);
                assert!(r.is_err(), "{aead:?} len {len} cut at {cut} decrypted");
            }
        }
    }
}

#[test]
fn every_bit_flip_fails() {
    for (sym, aead) in MODES {
        let body = encrypt(sym, aead, 0, &data(64 * 2 + 10), 64);
        for i in 0..body.len() {
            for bit in 0..8 {
                let mut bad = body.clone();
                bad[i] ^= 1 << bit;
                assert!(decrypt(sym, &bad).is_err(), "{aead:?} flip {i}.{bit}");
            }
        }
    }
}

#[test]
fn short_tails_never_panic_and_are_classified() {
    for (sym, aead) in MODES {
        let header = SeipdHeader { sym, aead, chunk_size_octet: 0, salt: SALT };
        let mut fields = Vec::new();
        header.write_to(&mut fields).unwrap();
        for n in 0..=2 * TAG_LEN + 1 {
            let mut body = fields.clone();
            body.extend(std::iter::repeat_n(0xa5u8, n));
            let r = decrypt(sym, &body);
            match n {
                0..TAG_LEN => assert!(matches!(r, Err(Error::Truncated(_))), "n={n}: {r:?}"),
                TAG_LEN => assert!(matches!(r, Err(Error::Decrypt)), "n={n}: {r:?}"),
                17..=32 => assert!(matches!(r, Err(Error::Malformed(_))), "n={n}: {r:?}"),
                _ => assert!(matches!(r, Err(Error::Decrypt)), "n={n}: {r:?}"),
            }
        }
    }
}

/// `flush` pushes out every full chunk written so far, whatever the thread count, so a
/// reader on the other end can decrypt up to there; the stream still finishes normally.
#[test]
fn flush_writes_every_full_chunk() {
    let sym = SymmetricAlgorithm::Aes128;
    let plain = data(64 * 9 + 5);
    for threads in [1, 2, 3] {
        let mut w = SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 0, SALT).unwrap();
        w.set_threads(threads);
        w.write_all(&plain[..64 * 7 + 3]).unwrap();
        w.flush().unwrap();
        // Fields, then seven chunks with their tags (the eighth, short one stays buffered).
        assert_eq!(w.inner.len(), 36 + 7 * (64 + 16), "{threads} threads");
        w.write_all(&plain[64 * 7 + 3..]).unwrap();
        let body = w.finish().unwrap();
        assert_eq!(decrypt(sym, &body).unwrap(), plain);
    }
}

/// With the default chunk size, `policy::seipd::SOLO_OCTETS` is 16 chunks (each buffer also holds a tag,
/// and the reader's a look-ahead: rounded up, not down); the pipeline's depth stays within
/// its `IN_FLIGHT_BUDGET` for the largest chunks.
#[test]
fn four_mib_of_default_chunks_is_sixteen_solo_chunks() {
    for buf_len in [(256 << 10) + TAG_LEN, (256 << 10) + TAG_LEN + LOOKAHEAD] {
        assert_eq!(policy::seipd::solo_chunks(buf_len), 16);
    }
    assert_eq!(policy::seipd::solo_chunks(1 << 10), 16);
    assert_eq!(policy::seipd::solo_chunks((4 << 20) + TAG_LEN), 1);
    let work: Work<Job> = Arc::new(|_: &mut Job| {});
    let mut p = chunk_pipeline(work, (4 << 20) + TAG_LEN);
    p.set_threads(4);
    p.submit(Job::new(0, SecretVec::zeroed(4), 4), false);
    assert_eq!(p.depth(), 2);
}

/// With the production setting, the first chunks (16 of 64 octets here) run on the calling
/// thread: messages of 17 or 18 chunks start no thread, a longer one does, and the
/// ciphertext and plaintext are the same as with one thread.
#[test]
fn solo_chunks_start_no_thread_and_agree() {
    let sym = SymmetricAlgorithm::Aes128;
    // 17 chunks: the last one inline; 18: one queued chunk after the solo ones, done by the
    // calling thread; 60: workers.
    for (len, threads_started) in [(64 * 16 + 5, false), (64 * 17 + 5, false), (64 * 60 + 5, true)] {
        let plain = data(len);
        let one = encrypt_t(sym, AeadAlgorithm::Ocb, 0, &plain, 1000, 1);
        let mut w = SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 0, SALT).unwrap();
        w.set_threads(2);
        w.write_all(&plain).unwrap();
        let before_finish = w.pipeline.worker_count();
        let two = w.finish().unwrap();
        assert_eq!(two, one, "len {len}");
        assert_eq!(before_finish > 0, threads_started, "len {len}");

        let mut src = &one[..];
        let header = SeipdHeader::read_from(&mut src).unwrap();
        let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
        r.set_threads(2);
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).unwrap();
        assert_eq!(out, plain);
        assert_eq!(r.pipeline.worker_count() > 0, threads_started, "reader, len {len}");
    }
}

/// Holding each chunk's last octets for the next chunk writes the same packet as copying
/// them into the part writer: through a `PartialBodyWriter`, whose 64 KiB parts never end
/// where a chunk and its tag do, for lengths around chunk boundaries, with one and two
/// threads, in one write or many, with and without a flush in the middle. With the larger
/// parts of data written through (as `Encryptor` frames it), the parts differ but the
/// body is the same.
#[test]
fn held_tails_give_the_same_packet() {
    let sym = SymmetricAlgorithm::Aes128;
    let chunk = 64 << 10;
    let run = |plain: &[u8], hold: bool, threads: usize, split: usize, flush_after: Option<usize>| {
        let framed = PartialBodyWriter::new(Vec::new(), Tag::Seipd);
        let mut w = SeipdWriter::new(framed, &key(sym), sym, AeadAlgorithm::Ocb, 10, SALT).unwrap();
        w.set_threads(threads);
        w.pipeline.set_solo_jobs(1);
        w.set_hold_tails(hold);
        for (i, piece) in plain.chunks(split.max(1)).enumerate() {
            w.write_all(piece).unwrap();
            if flush_after == Some(i) {
                w.flush().unwrap();
            }
        }
        w.finish().unwrap().finish().unwrap()
    };
    for len in [0, 1, chunk - 1, chunk, chunk + 1, 5 * chunk + 100, 12 * chunk] {
        let plain = data(len);
        let reference = run(&plain, false, 1, len, None);
        for threads in [1, 2] {
            for (split, flush_after) in [(len, None), (10_000, None), (10_000, Some(20))] {
                let held = run(&plain, true, threads, split, flush_after);
                assert!(
                    held == reference,
                    "len {len}, {threads} threads, split {split}, flush {flush_after:?}"
                );
            }
        }
    }
    // Parts up to 2^18, as `Encryptor` frames it: as long as a chunk and its tag allow.
    let run_large = |plain: &[u8], octet: u8, hold: bool, split: usize, max_exp: u8| {
        let framed = PartialBodyWriter::new(Vec::new(), Tag::Seipd).with_max_part_exp(max_exp);
        let mut w = SeipdWriter::new(framed, &key(sym), sym, AeadAlgorithm::Ocb, octet, SALT).unwrap();
        w.set_threads(2);
        w.pipeline.set_solo_jobs(1);
        w.set_hold_tails(hold);
        for piece in plain.chunks(split.max(1)) {
            w.write_all(piece).unwrap();
        }
        w.finish().unwrap().finish().unwrap()
    };
    for (octet, len) in [(10, 12 * chunk + 5), (12, 20 * chunk + 100)] {
        let plain = data(len);
        // The body framed in 64 KiB parts only.
        let reference = packets(&run_large(&plain, octet, false, len, 16));
        for (hold, split) in [(true, len), (true, 10_000), (false, 10_000)] {
            let framed = run_large(&plain, octet, hold, split, crate::packet::partial::SEIPD_MAX_PART_EXP);
            assert_eq!(packets(&framed), reference, "octet {octet}, hold {hold}, split {split}");
            let exps = part_exps(&framed);
            assert!(exps.iter().all(|e| (16..=18).contains(e)), "octet {octet}: {exps:?}");
            // 64 KiB chunks give 64 KiB parts, 256 KiB chunks parts of 256 KiB.
            let most = if octet == 12 && hold { 18 } else { 16 };
            assert!(exps.iter().filter(|&&e| e == most).count() * 2 > exps.len(), "{exps:?}");
        }
    }
}

#[test]
fn only_the_first_chunk_buffer_starts_small() {
    // 64 KiB chunks (octet 10). A short message gets a 4 KiB buffer, on the writer and the
    // reader; a short chunk after a full one gets a whole slot (with one thread the
    // writer reuses the first chunk's buffer, done and written by then).
    let sym = SymmetricAlgorithm::Aes128;
    let chunk = 64 << 10;
    let slot = chunk + 16;
    for (len, writer_buf, reader_buf) in [(6, FIRST_READ_LEN, FIRST_READ_LEN), (chunk + 6, slot, slot + 32)] {
        let plain = data(len);
        for threads in [1, 2] {
            let mut w = SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 10, SALT).unwrap();
            w.set_threads(threads);
            w.pipeline.set_solo_jobs(1);
            w.write_all(&plain).unwrap();
            assert_eq!(w.cur.len(), writer_buf, "{len} octets, {threads} threads");
            let body = w.finish().unwrap();

            let mut r = reader_t(&body, &key(sym), threads).unwrap();
            let mut first = [0u8; 1];
            r.read_exact(&mut first).unwrap();
            if len < chunk {
                // The one buffer was decrypted in place and is the window.
                assert_eq!(r.window.as_ref().map(|w| w.len()), Some(reader_buf), "{threads} threads");
            } else if threads > 1 {
                // It reads ahead; with one thread it reads the tail into the first
                // chunk's buffer once that has been read.
                let (tail, n) = r.tail.as_ref().expect("the reader met EOF in its second buffer");
                assert_eq!((tail.len(), *n), (reader_buf, 6 + 16 + 16));
            }
            let mut rest = Vec::new();
            let _ = r.read_to_end(&mut rest).unwrap();
            assert_eq!([&first[..], &rest].concat(), plain);
        }
    }
}

#[test]
fn errors_poison_and_wrong_keys_fail() {
    let sym = SymmetricAlgorithm::Aes128;
    let body = encrypt(sym, AeadAlgorithm::Ocb, 0, &data(300), 300);
    let mut bad = body.clone();
    bad[40] ^= 1; // first chunk
    let mut src = &bad[..];
    let header = SeipdHeader::read_from(&mut src).unwrap();
    let mut r = SeipdReader::new(src, &key(sym), &header).unwrap();
    let mut buf = [0u8; 10];
    assert!(r.read(&mut buf).is_err());
    assert!(r.read(&mut buf).is_err());
    assert_eq!(buf, [0; 10], "no unauthenticated plaintext released");
    let wrong = SessionKey::from_bytes(&[0x43; 16]);
    assert!(matches!(decrypt_with(&body, &wrong, false), Err(Error::Decrypt)));
    let short = SessionKey::from_bytes(&[0x42; 15]);
    assert!(matches!(decrypt_with(&body, &short, false), Err(Error::Decrypt)));
    assert!(SeipdWriter::new(Vec::new(), &short, sym, AeadAlgorithm::Ocb, 0, SALT).is_err());
    assert!(SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 17, SALT).is_err());
    assert!(matches!(
        SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Unknown(7), 0, SALT),
        Err(Error::Unsupported(_))
    ));
}

/// Reads at most `steps[i % steps.len()]` octets per call, with an `Interrupted` error
/// before every third read.
struct Uneven<'a> {
    data: &'a [u8],
    steps: &'a [usize],
    i: usize,
}

impl Read for Uneven<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.i = self.i.wrapping_add(1);
        if self.i.is_multiple_of(3) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let step = self.steps.get(self.i.checked_rem(self.steps.len()).unwrap_or(0)).copied().unwrap_or(1);
        let n = buf.len().min(step).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Dropping a reader or writer with chunks in flight joins the workers (no hang, no
/// panic), and a sink error with chunks in flight poisons the writer.
#[test]
fn dropping_mid_stream_with_jobs_in_flight() {
    let sym = SymmetricAlgorithm::Aes128;
    let body = encrypt_t(sym, AeadAlgorithm::Ocb, 0, &data(64 * 40 + 3), 64, 1);
    for threads in [2, 3, 4, 8] {
        for reads in [1, 2, 5] {
            let mut r = reader_t(&body, &key(sym), threads).unwrap();
            let mut buf = [0u8; 64];
            for _ in 0..reads {
                r.read_exact(&mut buf).unwrap();
            }
            assert!(r.pipeline.in_flight() > 0);
            drop(r);
        }
        let mut w = SeipdWriter::new(Vec::new(), &key(sym), sym, AeadAlgorithm::Ocb, 0, SALT).unwrap();
        w.set_threads(threads);
        w.pipeline.set_solo_jobs(1);
        w.write_all(&data(64 * 5 + 1)).unwrap();
        drop(w);

        struct Failing(usize);
        impl Write for Failing {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::other("full"));
                }
                self.0 -= 1;
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut w = SeipdWriter::new(Failing(3), &key(sym), sym, AeadAlgorithm::Ocb, 0, SALT).unwrap();
        w.set_threads(threads);
        let mut failed = false;
        for _ in 0..100 {
            if w.write_all(&data(64)).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed);
        assert!(w.write_all(b"x").is_err());
        assert!(w.finish().is_err());
    }
}

/// Short and interrupted reads from the source, any thread count: the same plaintext, and
/// every truncation (including right after a full buffer) fails.
#[test]
fn uneven_source_reads_and_truncation_at_buffer_edges() {
    let sym = SymmetricAlgorithm::Aes128;
    for len in [0, 1, 63, 64, 65, 128, 64 * 6, 64 * 6 + 1] {
        let plain = data(len);
        let body = encrypt_t(sym, AeadAlgorithm::Ocb, 0, &plain, 1000, 1);
        let (fields, chunks) = body.split_at(36);
        for threads in [1, 2, 3] {
            for steps in [&[1usize][..], &[16, 17, 1], &[112, 5], &[usize::MAX]] {
                for cut in (0..=chunks.len()).rev() {
                    let mut src = fields;
                    let header = SeipdHeader::read_from(&mut src).unwrap();
                    let inner = Uneven { data: &chunks[..cut], steps, i: 0 };
                    let mut r = SeipdReader::new(inner, &key(sym), &header).unwrap();
                    r.set_threads(threads);
                    let mut out = Vec::new();
                    let result = r.read_to_end(&mut out);
                    if cut == chunks.len() {
                        let _ = result.unwrap();
                        assert_eq!(out, plain);
                    } else {
                        assert!(result.is_err(), "len {len} cut {cut} t {threads} {steps:?}");
                        assert!(plain.starts_with(&out));
                        // Only whole chunks before the cut, never the last chunk.
                        let n = len.div_ceil(64);
                        let whole =
                            (0..n).filter(|k| (k * 80 + 80).min(k * 80 + 16 + len - 64 * k) <= cut).count();
                        assert!(out.len() <= 64 * whole.min(n.saturating_sub(1)), "len {len} cut {cut}");
                    }
                }
            }
        }
    }
}

// ---- RFC 9580 vectors ----

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

fn hexf(json: &serde_json::Value, name: &str) -> Vec<u8> {
    hex::decode(json[name].as_str().unwrap()).unwrap()
}

/// Dearmors a message (no CRC line in these files).
fn dearmor(text: &str) -> Vec<u8> {
    let b64: String = text
        .lines()
        .skip_while(|l| !l.starts_with("-----BEGIN"))
        .skip(1)
        .skip_while(|l| !l.is_empty())
        .skip(1)
        .take_while(|l| !l.starts_with("-----END") && !l.starts_with('='))
        .collect();
    base64::engine::general_purpose::STANDARD.decode(b64).unwrap()
}

/// Reads packets from a whole message; returns (tag, body) pairs.
fn packets(mut bytes: &[u8]) -> Vec<(Tag, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some(h) = Header::read_from(&mut bytes).unwrap() {
        let mut r = PartialBodyReader::new(&mut bytes, h.length);
        let mut body = Vec::new();
        let _ = r.read_to_end(&mut body).unwrap();
        out.push((h.tag, body));
    }
    out
}

/// Checks every SEIPD intermediate of an A.8–A.11 JSON and decrypts its SEIPD packet.
fn check_seipd_vector(v: &serde_json::Value) {
    let session_key = SessionKey::from_bytes(&hexf(v, "session_key"));
    let seipd_packet = hexf(v, "seipd_packet");
    let pk = packets(&seipd_packet);
    assert_eq!(pk.len(), 1);
    assert_eq!(pk[0].0, Tag::Seipd);
    let body = &pk[0].1;
    let header = SeipdHeader::read_from(&mut &body[..]).unwrap();
    assert_eq!(header.associated_data().to_vec(), hexf(v, "hkdf_info"));
    assert_eq!(header.associated_data().to_vec(), hexf(v, "chunk0_aad"));

    // HKDF output = message key ‖ IV.
    let (okm, key_len) = derive_keys(session_key.as_bytes(), &header).unwrap();
    assert_eq!(*okm, hexf(v, "hkdf_output"));
    assert_eq!(okm[..key_len], hexf(v, "message_key"));
    assert_eq!(okm[key_len..], hexf(v, "iv"));

    // Nonces and the final AD.
    let cipher = SeipdCipher::new(&session_key, &header).unwrap();
    let nonce_len = header.aead.nonce_len().unwrap();
    assert_eq!(cipher.nonce(0).unwrap()[..nonce_len], hexf(v, "chunk0_nonce"));
    assert_eq!(cipher.nonce(1).unwrap()[..nonce_len], hexf(v, "final_nonce"));
    let plaintext = [hexf(v, "literal_data_packet"), hexf(v, "padding_packet")].concat();
    let total = u64::try_from(plaintext.len()).unwrap();
    assert_eq!(cipher.final_ad(total).to_vec(), hexf(v, "final_aad"));

    // The chunk (A.8 prints it) and the final tag, by the pure functions.
    let mut chunk = plaintext.clone();
    let tag = cipher.seal_chunk(0, &mut chunk).unwrap();
    chunk.extend_from_slice(&tag);
    if v.get("chunk0_encrypted").is_some() {
        assert_eq!(chunk, hexf(v, "chunk0_encrypted"));
    }
    let (after_fields, final_tag) = body[36..].split_at(chunk.len());
    assert_eq!(after_fields, chunk);
    assert_eq!(final_tag, cipher.seal_final(1, total).unwrap());

    // The streaming reader decrypts to literal ‖ padding, at any read size.
    assert_eq!(decrypt_with(body, &session_key, false).unwrap(), plaintext);
    assert_eq!(decrypt_with(body, &session_key, true).unwrap(), plaintext);

    // The streaming writer, framed, reproduces the packet byte for byte.
    let w = PartialBodyWriter::new(Vec::new(), Tag::Seipd);
    let mut w =
        SeipdWriter::new(w, &session_key, header.sym, header.aead, header.chunk_size_octet, header.salt)
            .unwrap();
    w.write_all(&plaintext).unwrap();
    assert_eq!(w.finish().unwrap().finish().unwrap(), seipd_packet);
}

#[test]
fn rfc9580_a8_x25519_ocb() {
    let v = json(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a08-x25519-aead-ocb.json")));
    check_seipd_vector(&v);
    let msg = dearmor(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/a08-x25519-aead-ocb-message.asc"
    )));
    let pk = packets(&msg);
    assert_eq!(pk.iter().map(|p| p.0).collect::<Vec<_>>(), [Tag::Pkesk, Tag::Seipd]);
    let session_key = SessionKey::from_bytes(&hexf(&v, "session_key"));
    let plain = decrypt_with(&pk[1].1, &session_key, false).unwrap();
    assert_eq!(plain, [hexf(&v, "literal_data_packet"), hexf(&v, "padding_packet")].concat());
}

/// A.9 (EAX), A.10 (OCB), A.11 (GCM): SKESK → session key → SEIPD → literal packet.
#[test]
fn rfc9580_a9_a10_a11_skesk_messages() {
    let cases = [
        (
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a09-aead-eax.json")),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a09-aead-eax-message.asc")),
        ),
        (
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a10-aead-ocb.json")),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a10-aead-ocb-message.asc")),
        ),
        (
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a11-aead-gcm.json")),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/a11-aead-gcm-message.asc")),
        ),
    ];
    for (json_text, armored) in cases {
        let v = json(json_text);
        check_seipd_vector(&v);
        let pk = packets(&dearmor(armored));
        assert_eq!(pk.iter().map(|p| p.0).collect::<Vec<_>>(), [Tag::Skesk, Tag::Seipd]);
        let skesk = <crate::packet::skesk::Skesk as crate::packet::PacketBody>::parse(&pk[0].1).unwrap();
        let session_key =
            crate::message::skesk::decrypt_session_key(&skesk, &hexf(&v, "s2k_derived_key")).unwrap();
        assert_eq!(session_key.as_bytes(), hexf(&v, "session_key"));
        let plain = decrypt_with(&pk[1].1, &session_key, false).unwrap();
        let mut lit = crate::message::literal::LiteralReader::new(&plain[..]).unwrap();
        let mut text = Vec::new();
        let _ = lit.read_to_end(&mut text).unwrap();
        assert_eq!(text, b"Hello, world!");
        assert_eq!(lit.into_inner(), hexf(&v, "padding_packet"));
    }
}

/// Defence in depth: a chunk whose index is not the next position is never released,
/// whatever returned it.
#[test]
fn release_refuses_a_chunk_out_of_order() {
    let sym = SymmetricAlgorithm::Aes128;
    let body = encrypt(sym, AeadAlgorithm::Gcm, 0, &data(300), 300);
    let mut r = reader_t(&body, &key(sym), 1).unwrap();
    for wrong in [1, 2, u64::MAX] {
        let e = r.release(wrong, SecretVec::zeroed(64), 64).unwrap_err();
        assert!(matches!(e, Error::Internal(_)), "{e:?}");
        assert!(r.window.is_none());
    }
    r.release(0, SecretVec::zeroed(64), 64).unwrap();
    assert!(r.release(0, SecretVec::zeroed(64), 64).is_err(), "chunk 0 twice");
    r.release(1, SecretVec::zeroed(64), 64).unwrap();
}
