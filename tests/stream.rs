//! The streaming contract through the public API, with 64-octet chunks: every
//! truncation and every bit flip is refused (OCB, GCM and EAX), write splits do not change the output, read
//! sizes do not change the plaintext; proptest round trips.
#![allow(
    clippy::unwrap_used,
    clippy::cast_possible_truncation,
    reason = "test helpers fail loudly; test data is generated from small counters"
)]

mod common;

use std::io::{BufRead, Read, Write};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::TestRng;
use proptest::prelude::*;
use sixpgp::{
    AeadAlgorithm, Cert, DataFormat, Decryptor, Encryptor, Error, KeyBuilder, Profile, SymmetricAlgorithm,
    Tsk,
};

fn t0() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_700_000_000)
}

/// One key per profile, generated once.
fn keys() -> &'static [(Tsk, Cert)] {
    static KEYS: OnceLock<Vec<(Tsk, Cert)>> = OnceLock::new();
    KEYS.get_or_init(|| {
        Profile::ALL
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let tsk = KeyBuilder::new(*p)
                    .user_id("Stream <stream@example.org>")
                    .creation_time(t0())
                    .rng(TestRng(100 + i as u64))
                    .generate()
                    .unwrap();
                let cert = tsk.to_cert();
                (tsk, cert)
            })
            .collect()
    })
}

fn plaintext(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(131) >> 2) as u8).collect()
}

/// Encrypts to the classic key with 64-octet chunks and a fixed RNG, writing `split` octets at
/// a time.
fn encrypt_small(plain: &[u8], split: usize) -> Vec<u8> {
    encrypt_small_with(plain, split, None)
}

/// The negotiated suite (AES-OCB) and the other AEAD modes, forced.
const SUITES: [Option<(SymmetricAlgorithm, AeadAlgorithm)>; 3] = [
    None,
    Some((SymmetricAlgorithm::Aes256, AeadAlgorithm::Gcm)),
    Some((SymmetricAlgorithm::Aes128, AeadAlgorithm::Eax)),
];

/// [`encrypt_small`] with `suite` forced.
fn encrypt_small_with(
    plain: &[u8],
    split: usize,
    suite: Option<(SymmetricAlgorithm, AeadAlgorithm)>,
) -> Vec<u8> {
    let cert = &keys()[0].1;
    let mut e = Encryptor::new([cert]).at(t0()).chunk_size(64).rng(TestRng(7));
    if let Some((sym, aead)) = suite {
        e = e.cipher_suite(sym, aead);
    }
    let mut w = e.writer(Vec::new()).unwrap();
    for piece in plain.chunks(split.max(1)) {
        w.write_all(piece).unwrap();
    }
    w.finish().unwrap()
}

fn decrypt(msg: &[u8], tsk: &Tsk) -> sixpgp::Result<Vec<u8>> {
    let mut r = Decryptor::new([tsk]).reader(msg)?;
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
    Ok(out)
}

/// ~3 chunks: 150 octets of data plus the 8-octet literal header in 64-octet chunks.
const SMALL: usize = 150;

#[test]
fn every_truncation_is_refused() {
    let tsk = &keys()[0].0;
    for suite in SUITES {
        let msg = encrypt_small_with(&plaintext(SMALL), SMALL, suite);
        assert_eq!(decrypt(&msg, tsk).unwrap(), plaintext(SMALL));
        for cut in 0..msg.len() {
            assert!(decrypt(&msg[..cut], tsk).is_err(), "{suite:?}: cut at {cut} of {}", msg.len());
        }
    }
}

#[test]
fn every_bit_flip_is_refused() {
    let tsk = &keys()[0].0;
    for suite in SUITES {
        let msg = encrypt_small_with(&plaintext(SMALL), SMALL, suite);
        for i in 0..msg.len() {
            for bit in 0..8 {
                let mut bad = msg.clone();
                bad[i] ^= 1 << bit;
                assert!(decrypt(&bad, tsk).is_err(), "{suite:?}: flip {i}.{bit}");
            }
        }
    }
}

#[test]
fn no_unauthenticated_plaintext_before_an_error() {
    let tsk = &keys()[0].0;
    let plain = plaintext(SMALL);
    for suite in SUITES {
        let msg = encrypt_small_with(&plain, SMALL, suite);
        // Damage the last chunk: the first chunks may come out, the damaged one never does.
        let mut bad = msg.clone();
        let n = bad.len();
        bad[n - 40] ^= 0x80;
        let mut r = Decryptor::new([tsk]).reader(&bad[..]).unwrap();
        let mut out = Vec::new();
        let err = r.read_to_end(&mut out).unwrap_err();
        assert!(matches!(Error::from_io(err), Error::Decrypt), "{suite:?}");
        assert!(
            out.len() < plain.len() && plain.starts_with(&out),
            "{suite:?}: {} octets released",
            out.len()
        );
        // Poisoned afterwards.
        assert!(r.read(&mut [0u8; 4]).is_err());
    }
}

#[test]
fn write_splits_give_identical_ciphertext() {
    let plain = plaintext(SMALL + 300);
    let reference = encrypt_small(&plain, plain.len());
    for split in [1, 2, 3, 63, 64, 65, 100, 1000] {
        assert_eq!(encrypt_small(&plain, split), reference, "split {split}");
    }
}

#[test]
fn one_byte_reads_give_the_same_plaintext() {
    let tsk = &keys()[0].0;
    let plain = plaintext(SMALL + 300);
    let msg = encrypt_small(&plain, 17);
    let mut r = Decryptor::new([tsk]).reader(&msg[..]).unwrap();
    let mut out = Vec::new();
    let mut b = [0u8; 1];
    while r.read(&mut b).unwrap() == 1 {
        out.push(b[0]);
    }
    assert_eq!(out, plain);
    assert!(r.finish().is_ok());
    // BufRead gives the same too.
    let mut r = Decryptor::new([tsk]).reader(&msg[..]).unwrap();
    let mut out = Vec::new();
    loop {
        let buf = r.fill_buf().unwrap();
        if buf.is_empty() {
            break;
        }
        let n = buf.len().min(5);
        out.extend_from_slice(&buf[..n]);
        r.consume(n);
    }
    assert_eq!(out, plain);
}

#[test]
fn drop_without_finish_gives_an_undecryptable_message() {
    let tsk = &keys()[0].0;
    let cert = &keys()[0].1;
    let mut sink = Vec::new();
    {
        let mut w = Encryptor::new([cert]).at(t0()).chunk_size(64).writer(&mut sink).unwrap();
        w.write_all(&plaintext(500)).unwrap();
        drop(w);
    }
    assert!(decrypt(&sink, tsk).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn round_trips(
        len in 0usize..3000,
        chunk_exp in 6u32..11,
        recipients in 0usize..8,
        password in prop::bool::weighted(0.2),
        armor: bool,
        hidden: bool,
        utf8: bool,
        padding in prop::option::of(0usize..300),
        split in 1usize..700,
    ) {
        let keys = keys();
        // A bit mask over the three keys; with no key, a password is needed.
        let chosen: Vec<usize> = (0..3).filter(|i| recipients & (1 << i) != 0).collect();
        let password = password || chosen.is_empty();
        let plain = plaintext(len);
        let mut e = Encryptor::new(chosen.iter().map(|&i| &keys[i].1))
            .at(t0())
            .chunk_size(1 << chunk_exp)
            .armor(armor)
            .hidden_recipients(hidden)
            .format(if utf8 { DataFormat::Utf8 } else { DataFormat::Binary });
        if password {
            e = e.password("correct horse");
        }
        if let Some(p) = padding {
            e = e.padding(p);
        }
        let mut w = e.writer(Vec::new()).unwrap();
        for piece in plain.chunks(split) {
            w.write_all(piece).unwrap();
        }
        let msg = w.finish().unwrap();
        for &i in &chosen {
            prop_assert_eq!(decrypt(&msg, &keys[i].0).unwrap(), plain.clone());
        }
        for (i, (tsk, _)) in keys.iter().enumerate() {
            if !chosen.contains(&i) {
                let refused = matches!(Decryptor::new([tsk]).reader(&msg[..]), Err(Error::NoDecryptionKey { .. }));
                prop_assert!(refused);
            }
        }
        if password {
            let mut r = Decryptor::default().password("correct horse").reader(&msg[..]).unwrap();
            let mut out = Vec::new();
            let _ = r.read_to_end(&mut out).unwrap();
            prop_assert_eq!(out, plain);
            prop_assert_eq!(
                r.literal().format(),
                if utf8 { DataFormat::Utf8 } else { DataFormat::Binary }
            );
        }
    }
}

/// The thread count changes neither the ciphertext nor the plaintext, and truncation is still
/// caught with several threads decrypting ahead.
#[test]
fn thread_counts_agree() {
    let (tsk, cert) = &keys()[0];
    let plain = plaintext(64 * 37 + 5);
    let encrypt = |threads: usize| {
        let mut w = Encryptor::new([cert])
            .at(t0())
            .chunk_size(64)
            .threads(threads)
            .rng(TestRng(9))
            .writer(Vec::new())
            .unwrap();
        w.write_all(&plain).unwrap();
        w.finish().unwrap()
    };
    let one = encrypt(1);
    for threads in [2, 3, 4] {
        assert_eq!(encrypt(threads), one, "{threads} threads");
    }
    for threads in [1, 2, 4] {
        let mut r = Decryptor::new([tsk]).threads(threads).reader(&one[..]).unwrap();
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).unwrap();
        assert_eq!(out, plain, "{threads} threads");
        let cut = &one[..one.len() - 20];
        let mut r = Decryptor::new([tsk]).threads(threads).reader(cut).unwrap();
        assert!(r.read_to_end(&mut Vec::new()).is_err(), "{threads} threads, truncated");
    }
}

/// The last chunk is released only together with a verified final tag, whatever the thread
/// count and even when the message is a whole number of chunks (the reader looks ahead two
/// tags, so a full buffer proves that more than the final tag follows).
#[test]
fn last_chunk_waits_for_the_final_tag() {
    let (tsk, cert) = &keys()[0];
    // The literal packet adds 8 or 9 octets of framing: with both, one of the two lengths makes
    // the SEIPD plaintext an exact number of chunks.
    for (chunks, framing) in [1usize, 2, 3, 4, 5].into_iter().flat_map(|c| [(c, 8), (c, 9)]) {
        let plain = plaintext(64 * chunks - framing);
        for threads in [1, 2, 3] {
            let mut w = Encryptor::new([cert])
                .at(t0())
                .chunk_size(64)
                .threads(threads)
                .rng(TestRng(11))
                .writer(Vec::new())
                .unwrap();
            w.write_all(&plain).unwrap();
            let mut msg = w.finish().unwrap();
            // The message ends with the SEIPD packet, which ends with the final tag.
            *msg.last_mut().unwrap() ^= 1;
            let mut r = match Decryptor::new([tsk]).threads(threads).reader(&msg[..]) {
                Ok(r) => r,
                // A one-chunk message: the literal header is in the last chunk already.
                Err(e) => {
                    assert!(matches!(e, Error::Decrypt), "{e:?}");
                    continue;
                }
            };
            let mut released = Vec::new();
            let mut byte = [0u8; 1];
            let err = loop {
                match r.read(&mut byte) {
                    Ok(0) => panic!("a bad final tag ended cleanly ({chunks} chunks, {threads} threads)"),
                    Ok(_) => released.push(byte[0]),
                    Err(e) => break e,
                }
            };
            assert!(matches!(Error::from_io(err), Error::Decrypt));
            // The last SEIPD chunk holds the end of the literal data: had it been released,
            // the whole plaintext would have been.
            assert!(
                released.len() < plain.len(),
                "all {} octets released ({chunks} chunks, {threads} threads) before the final tag failed",
                released.len()
            );
            assert_eq!(released[..], plain[..released.len()]);
        }
    }
}

/// Hands out at most `step` octets per read, the step cycling through 1..=max, to exercise
/// every split of the direct-read path.
struct Dribble<'a> {
    data: &'a [u8],
    step: usize,
    max: usize,
}

impl Read for Dribble<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.step = self.step % self.max + 1;
        let n = buf.len().min(self.step).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// `EncryptWriter::copy_from` gives byte for byte the ciphertext of `write_all`, for part
/// boundaries that fall on, before and after chunk boundaries, any read sizes, chunks shorter
/// than a part and any thread count; and writes after it still work.
#[test]
fn copy_from_gives_the_same_ciphertext_as_write_all() {
    let (tsk, cert) = &keys()[0];
    let part = 1 << 16;
    let lens = [
        0,
        1,
        511,
        part - 9,
        part - 8,
        part,
        part + 1,
        3 * part + 7,
        4 * part - 9,
        4 * part + 1,
        9 * part + 123,
    ];
    for chunk in [64, part, 2 * part, 4 * part] {
        for len in lens {
            let plain = plaintext(len);
            let encryptor = || Encryptor::new([cert]).at(t0()).chunk_size(chunk).rng(TestRng(11));
            let mut w = encryptor().writer(Vec::new()).unwrap();
            w.write_all(&plain).unwrap();
            w.write_all(b"tail").unwrap();
            let reference = w.finish().unwrap();
            for (max, threads) in [(usize::MAX, 2), (usize::MAX, 1), (7000, 3), (3, 2)] {
                if max == 3 && len > 2 * part {
                    continue;
                }
                let mut w = encryptor().threads(threads).writer(Vec::new()).unwrap();
                let n = w.copy_from(&mut Dribble { data: &plain, step: 0, max }).unwrap();
                assert_eq!(n, len as u64);
                w.write_all(b"tail").unwrap();
                let msg = w.finish().unwrap();
                assert!(msg == reference, "chunk {chunk} len {len} max read {max} threads {threads}");
            }
            let mut expected = plain.clone();
            expected.extend_from_slice(b"tail");
            assert_eq!(decrypt(&reference, tsk).unwrap(), expected);
        }
    }
}

/// A read error in the middle of `copy_from` is reported, and the writer stays failed.
#[test]
fn copy_from_read_errors_poison_the_writer() {
    struct Failing(usize);
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("disk on fire"));
            }
            let n = buf.len().min(self.0);
            buf[..n].fill(1);
            self.0 -= n;
            Ok(n)
        }
    }
    let cert = &keys()[0].1;
    for fail_at in [0, 10, 70_000, 300_000] {
        let mut w = Encryptor::new([cert]).writer(Vec::new()).unwrap();
        let err = w.copy_from(&mut Failing(fail_at)).unwrap_err();
        assert!(matches!(err, Error::Io(_)), "{err:?}");
        assert!(w.write_all(b"x").is_err());
        assert!(w.finish().is_err());
    }
}

/// A source whose `read` reports more octets than it was given fails `copy_from` (what it
/// wrote cannot be known, and the buffer must not be encrypted as if it had), signing or not,
/// and the writer stays failed.
#[test]
fn copy_from_refuses_a_reader_that_overstates_its_count() {
    struct Liar;
    impl Read for Liar {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(9);
            Ok(buf.len() + 100)
        }
    }
    let (tsk, cert) = &keys()[0];
    for signed in [false, true] {
        let mut encryptor = Encryptor::new([cert]);
        if signed {
            encryptor = encryptor.signer(tsk);
        }
        let mut w = encryptor.writer(Vec::new()).unwrap();
        w.write_all(&[1u8; 512]).unwrap();
        let err = w.copy_from(&mut Liar).unwrap_err();
        assert!(matches!(&err, Error::Io(e) if e.kind() == std::io::ErrorKind::InvalidData), "{err:?}");
        assert!(w.write_all(b"x").is_err());
        assert!(w.finish().is_err());
    }
}

/// A long armored message read from a source that fails once the message has been read (a
/// socket with nothing more to give would block there): the decryptor, whose armor reader
/// reads large blocks straight from the source, stops at the read that brings the END line,
/// whatever the thread count, in reads of any size; text after the END line in that read is
/// ignored, as it is with one thread.
#[test]
fn armored_decryption_reads_no_further_than_the_end_line() {
    struct Socket<'a> {
        data: &'a [u8],
        step: usize,
    }
    impl Read for Socket<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.data.is_empty() {
                return Err(std::io::Error::other("read past the message"));
            }
            let n = buf.len().min(self.step).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }
    let (tsk, cert) = &keys()[0];
    let plain = plaintext(6 << 20);
    let mut w = Encryptor::new([cert]).armor(true).rng(TestRng(3)).writer(Vec::new()).unwrap();
    w.write_all(&plain).unwrap();
    let armored = w.finish().unwrap();
    let mut trailing = armored.clone();
    trailing.extend_from_slice(b"\r\nsomething else\n");
    for threads in [1, 2, 4] {
        for step in [1000, 64 << 10, 1 << 20] {
            for (input, name) in [(&armored, "message"), (&trailing, "message and text")] {
                let source = std::io::BufReader::with_capacity(16 << 10, Socket { data: input, step });
                let mut r = Decryptor::new([tsk]).threads(threads).reader(source).unwrap();
                let mut out = Vec::new();
                let got = r.read_to_end(&mut out);
                assert!(got.is_ok(), "{name}, {threads} threads, reads of {step}: {got:?}");
                assert!(out == plain, "{name}, {threads} threads, reads of {step}");
                let _ = r.finish().unwrap();
            }
        }
    }
}
