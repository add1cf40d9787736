//! The seekable reader against sequential decryption, on good and hostile messages.

use std::io::{Cursor, Read, Seek, SeekFrom, Write};

use proptest::prelude::*;

use super::*;
use crate::message::decrypt::Decryptor;
use crate::message::encrypt::Encryptor;
use crate::message::seipd::SeipdWriter;
use crate::packet::partial::PartialBodyWriter;

const KEY: [u8; 16] = [7; 16];
const CHUNK: usize = 64;

fn plain(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(131) >> 2).to_le_bytes()[0]).collect()
}

fn session_key() -> SessionKey {
    SessionKey::from_bytes(&KEY)
}

/// A certificate to encrypt to (messages are opened with their session key).
fn cert() -> &'static crate::key::Cert {
    static CERT: std::sync::OnceLock<crate::key::Cert> = std::sync::OnceLock::new();
    CERT.get_or_init(|| {
        crate::key::KeyBuilder::new(crate::key::Profile::Rfc9580)
            .user_id("Bob <bob@example.org>")
            .creation_time(crate::key::from_timestamp(1_750_000_000))
            .generate()
            .unwrap()
            .to_cert()
    })
}

/// A message of `data` with 64-octet chunks, and its session key; with `known` the length
/// is announced in advance (fixed framing).
fn message(data: &[u8], known: bool) -> (Vec<u8>, SessionKey) {
    let mut e = Encryptor::new([cert()])
        .cipher_suite(SymmetricAlgorithm::Aes128, AeadAlgorithm::Ocb)
        .chunk_size(CHUNK)
        .at(crate::key::from_timestamp(1_750_000_100));
    if known {
        e = e.plaintext_len(data.len() as u64);
    }
    let mut w = e.writer(Vec::new()).unwrap();
    w.write_all(data).unwrap();
    let key = SessionKey::from_bytes(w.session_key().1.as_bytes());
    (w.finish().unwrap(), key)
}

fn open_with(msg: &[u8], key: SessionKey) -> Result<SeekableReader<Cursor<Vec<u8>>>> {
    Decryptor::default()
        .session_key(key, Some(SymmetricAlgorithm::Aes128))
        .seekable_reader(Cursor::new(msg.to_vec()))
}

/// `inner` (the packets inside the encryption) in a SEIPDv2 packet under `KEY`.
fn raw(inner: &[u8]) -> Vec<u8> {
    let framed = PartialBodyWriter::new(Vec::new(), Tag::Seipd);
    let mut w =
        SeipdWriter::new(framed, &session_key(), SymmetricAlgorithm::Aes128, AeadAlgorithm::Ocb, 0, [1; 32])
            .unwrap();
    w.write_all(inner).unwrap();
    w.finish().unwrap().finish().unwrap()
}

fn read_range(r: &mut SeekableReader<Cursor<Vec<u8>>>, from: u64, len: usize) -> Result<Vec<u8>> {
    let _ = r.seek(SeekFrom::Start(from)).map_err(Error::from_io)?;
    let mut out = vec![0u8; len];
    let mut got = 0;
    while got < len {
        match r.read(&mut out[got..]).map_err(Error::from_io)? {
            0 => break,
            n => got += n,
        }
    }
    out.truncate(got);
    Ok(out)
}

/// Whatever the framing and wherever the read, the octets are those of the plaintext there;
/// the end is `Ok(0)` after the final check; `finish` reports the length.
#[test]
fn reads_anywhere_match_the_plaintext() {
    for known in [true, false] {
        for len in [0, 1, 63, 64, 65, 200, 5000, 70_000, 140_000] {
            let data = plain(len);
            let (msg, key) = message(&data, known);
            let mut r = open_with(&msg, key).unwrap();
            assert_eq!(r.len().unwrap(), len as u64);
            for (from, n) in
                [(0, 10), (len / 3, 100), (len / 2, 7000), (len.saturating_sub(5), 100), (len, 4)]
            {
                let got = read_range(&mut r, from as u64, n).unwrap();
                let end = (from + n).min(len);
                assert_eq!(got, data[from.min(len)..end], "known {known} len {len} from {from}");
            }
            if len > 0 {
                assert_eq!(r.seek(SeekFrom::End(-1)).unwrap(), len as u64 - 1);
            }
            let mut all = Vec::new();
            let _ = r.seek(SeekFrom::Start(0)).unwrap();
            let _ = r.read_to_end(&mut all).unwrap();
            assert_eq!(all, data);
            let summary = r.finish().unwrap();
            assert_eq!((summary.len, summary.unchecked_signatures), (len as u64, 0));
        }
    }
}

/// A source that counts the octets read from it.
struct Counted(Cursor<Vec<u8>>, u64);

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.read(buf)?;
        self.1 += n as u64;
        Ok(n)
    }
}

impl Seek for Counted {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.0.seek(to)
    }
}

/// With the length announced, the message has fixed lengths: a read in the middle reads the
/// session-key packets, the first chunk (the literal header) and the chunks it touches, not
/// the framing of the whole message. Without, it also reads the framing, and the chunks that
/// hold the literal packet's partial lengths.
#[test]
fn announced_length_seeks_in_constant_reads() {
    let data = plain(400_000);
    for known in [true, false] {
        let (msg, key) = message(&data, known);
        let decryptor = Decryptor::default().session_key(key, Some(SymmetricAlgorithm::Aes128));
        let mut r = decryptor.seekable_reader(Counted(Cursor::new(msg.clone()), 0)).unwrap();
        let _ = r.seek(SeekFrom::Start(300_000)).unwrap();
        let mut out = [0u8; 100];
        r.read_exact(&mut out).unwrap();
        assert_eq!(out[..], data[300_000..300_100]);
        let read = r.chunks.source().inner.1;
        if known {
            assert!(read < 4096 + 8 * (CHUNK as u64 + 16), "{read} octets read");
        }
    }
}

/// A modified chunk in the middle: the reads that touch it fail with `Decrypt`, the others
/// return the right octets; the end still checks.
#[test]
fn modified_chunk_fails_only_where_read() {
    let data = plain(64 * 40);
    for known in [true, false] {
        let (mut msg, key) = message(&data, known);
        let at = msg.len() / 2;
        msg[at] ^= 0x20;
        let mut r = open_with(&msg, key).unwrap();
        let mut failed = 0;
        for from in (0..data.len()).step_by(32) {
            match read_range(&mut r, from as u64, 32) {
                Ok(got) => assert_eq!(got, data[from..from + 32]),
                Err(e) => {
                    assert!(matches!(e, Error::Decrypt), "{e:?}");
                    failed += 1;
                }
            }
        }
        assert!((1..=6).contains(&failed), "{failed} failed reads");
    }
}

/// Truncated at any point after the first chunk: open fails, or every read is right or an
/// error, and the end never checks.
#[test]
fn truncation_fails_the_end() {
    let data = plain(64 * 10 + 5);
    for known in [true, false] {
        let (msg, key) = message(&data, known);
        for cut in (msg.len() - 200..msg.len()).step_by(3) {
            let Ok(mut r) = open_with(&msg[..cut], SessionKey::from_bytes(key.as_bytes())) else { continue };
            for from in [0usize, 100, 600] {
                if let Ok(got) = read_range(&mut r, from as u64, 40) {
                    assert_eq!(got, data[from..(from + 40).min(data.len())]);
                }
            }
            assert!(r.finish().is_err(), "cut {cut}");
        }
    }
}

/// Two chunks swapped: each fails under the other's index.
#[test]
fn swapped_chunks_fail() {
    let data = plain(64 * 10);
    let (mut msg, key) = message(&data, true);
    let slot = CHUNK + 16;
    // The plaintext is the literal packet: 9 octets of header, then the data.
    let p = data.len() + 9;
    let chunks = p.div_ceil(CHUNK);
    let last = p - (chunks - 1) * CHUNK;
    let first = msg.len() - 16 - (chunks - 1) * slot - (last + 16);
    let (a, b) = (first + 2 * slot, first + 5 * slot);
    let chunk_a = msg[a..a + slot].to_vec();
    msg.copy_within(b..b + slot, a);
    msg[b..b + slot].copy_from_slice(&chunk_a);
    let mut r = open_with(&msg, key).unwrap();
    assert!(matches!(read_range(&mut r, 2 * 64, 10), Err(Error::Decrypt)));
    assert!(matches!(read_range(&mut r, 5 * 64 + 3, 10), Err(Error::Decrypt)));
    assert_eq!(read_range(&mut r, 3 * 64, 64).unwrap(), data[192..256]);
}

/// Seeking past the end is allowed, as for a file; reading there is `Ok(0)` after the end
/// check; seeking before the start is `InvalidInput`.
#[test]
fn seeks_beyond_the_ends() {
    let data = plain(1000);
    let (msg, key) = message(&data, true);
    let mut r = open_with(&msg, key).unwrap();
    assert_eq!(r.seek(SeekFrom::Start(5000)).unwrap(), 5000);
    assert_eq!(r.read(&mut [0u8; 8]).unwrap(), 0);
    assert_eq!(r.seek(SeekFrom::End(10)).unwrap(), 1010);
    assert_eq!(r.read(&mut [0u8; 8]).unwrap(), 0);
    let e = r.seek(SeekFrom::End(-1001)).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    let _ = r.seek(SeekFrom::Start(0)).unwrap();
    assert_eq!(r.seek(SeekFrom::Current(-1)).unwrap_err().kind(), io::ErrorKind::InvalidInput);
}

/// A literal packet whose fixed length is longer than the encrypted data, or one followed by
/// a packet the grammar does not allow, or signatures that do not match: errors, never
/// other octets.
#[test]
fn lying_inner_framing_fails() {
    // Literal header: tag 11, fixed length 6 + 300, binary, no name, date 0; only 100 octets.
    let mut inner = vec![0xcb, 0xc0, (306 - 192) as u8, b'b', 0, 0, 0, 0, 0];
    inner.extend(plain(100));
    let msg = raw(&inner);
    assert!(matches!(open_with(&msg, session_key()), Err(Error::Malformed(_))));

    // A good literal packet, then a User ID packet.
    let mut inner = vec![0xcb, 6 + 10, b'b', 0, 0, 0, 0, 0];
    inner.extend(plain(10));
    inner.extend([0xcd, 1, b'x']);
    let mut r = open_with(&raw(&inner), session_key()).unwrap();
    assert_eq!(read_range(&mut r, 0, 10).unwrap(), plain(10));
    assert!(matches!(r.read(&mut [0u8; 4]).map_err(Error::from_io), Err(Error::Malformed(_))));
    assert!(matches!(r.finish(), Err(Error::Malformed(_))));

    // A One-Pass Signature with no signature after the data.
    let mut inner = vec![0xc4, 3, 6, 0, 0];
    inner.extend([0xcb, 6 + 10, b'b', 0, 0, 0, 0, 0]);
    inner.extend(plain(10));
    let mut r = open_with(&raw(&inner), session_key()).unwrap();
    assert_eq!(read_range(&mut r, 2, 8).unwrap(), plain(10)[2..]);
    assert!(matches!(r.finish(), Err(Error::Malformed(_))));

    // Partial framing inside whose first part is too short, and data after the literal
    // body's end that a partial length would have covered.
    let mut inner = vec![0xcb, 0xe0 | 4];
    inner.extend(plain(16));
    inner.push(0);
    assert!(open_with(&raw(&inner), session_key()).is_err());
}

/// Armored input is refused at once, whatever follows.
#[test]
fn armored_input_is_refused() {
    let text = b"-----BEGIN PGP MESSAGE-----\n\nwx4=\n-----END PGP MESSAGE-----\n";
    assert!(matches!(open_with(text, session_key()), Err(Error::InvalidArgument(_))));
}

/// Signatures inside are counted, never checked.
#[test]
fn signatures_are_reported_unchecked() {
    let alice = crate::key::KeyBuilder::new(crate::key::Profile::Rfc9580)
        .user_id("Alice <a@example.org>")
        .creation_time(crate::key::from_timestamp(1_750_000_000))
        .generate()
        .unwrap();
    let mut w = crate::message::sign::Signer::new()
        .key(&alice)
        .creation_time(crate::key::from_timestamp(1_750_000_100))
        .inline_writer(Vec::new())
        .unwrap();
    w.write_all(b"signed and sealed").unwrap();
    let inner = w.finish().unwrap();
    let mut r = open_with(&raw(&inner), session_key()).unwrap();
    assert_eq!(read_range(&mut r, 7, 3).unwrap(), b"and");
    assert_eq!(r.finish().unwrap().unchecked_signatures, 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Whatever is done to a message (flipped bits, cuts, inserted or deleted octets, in the
    /// framing or the chunks), a read returns the plaintext's octets at its offset or an
    /// error, and never panics.
    #[test]
    fn mutations_never_give_other_octets(
        known in any::<bool>(),
        at in any::<prop::sample::Index>(),
        what in 0..4u8,
        junk in prop::collection::vec(any::<u8>(), 1..40),
        reads in prop::collection::vec((any::<prop::sample::Index>(), 1..300usize), 1..6),
    ) {
        let data = plain(3000);
        let (good, key) = message(&data, known);
        let mut msg = good.clone();
        let i = at.index(msg.len());
        match what {
            0 => msg[i] ^= junk[0] | 1,
            1 => msg.truncate(i),
            2 => { let _ = msg.splice(i..i, junk.iter().copied()); }
            _ => { let _ = msg.drain(i..(i + junk.len()).min(msg.len())); }
        }
        if let Ok(mut r) = open_with(&msg, key) {
            for (from, n) in reads {
                let from = from.index(data.len() + 10);
                if let Ok(got) = read_range(&mut r, from as u64, n) {
                    let end = (from + n).min(data.len());
                    prop_assert_eq!(&got[..], &data[from.min(end)..end]);
                }
            }
            let _ = r.finish();
        }
    }
}

/// A message written with its length announced (through `write` or `copy_from`, with or
/// without padding, any chunk size) decrypts sequentially too and is the same plaintext;
/// more or less data than announced is an error.
#[test]
fn announced_length_messages_decrypt_sequentially() {
    for len in [0usize, 1, 64, 1000, 70_000] {
        let data = plain(len);
        for (chunk, padding, copy) in [(64, None, false), (64, Some(100), true), (1 << 18, Some(3), false)] {
            let mut e = Encryptor::new([cert()]).chunk_size(chunk).plaintext_len(len as u64);
            if let Some(p) = padding {
                e = e.padding(p);
            }
            let mut w = e.writer(Vec::new()).unwrap();
            if copy {
                assert_eq!(w.copy_from(&mut &data[..]).unwrap(), len as u64);
            } else {
                w.write_all(&data).unwrap();
            }
            let key = SessionKey::from_bytes(w.session_key().1.as_bytes());
            let msg = w.finish().unwrap();
            let decryptor = Decryptor::default().session_key(key, None);
            let mut out = Vec::new();
            let mut r = decryptor.reader(&msg[..]).unwrap();
            let _ = r.read_to_end(&mut out).unwrap();
            assert_eq!(out, data, "len {len} chunk {chunk}");
            drop(r);
            let mut s = decryptor.seekable_reader(Cursor::new(msg)).unwrap();
            assert_eq!(s.len().unwrap(), len as u64);
            assert!(s.finish().is_ok());
        }
    }
    let mut w = Encryptor::new([cert()]).plaintext_len(10).writer(Vec::new()).unwrap();
    assert!(matches!(w.write_all(&[0; 11]).map_err(Error::from_io), Err(Error::InvalidArgument(_))));
    let mut w = Encryptor::new([cert()]).plaintext_len(10).writer(Vec::new()).unwrap();
    w.write_all(&[0; 9]).unwrap();
    assert!(matches!(w.finish(), Err(Error::InvalidArgument(_))));
    let mut w = Encryptor::new([cert()]).plaintext_len(10).writer(Vec::new()).unwrap();
    assert!(matches!(w.copy_from(&mut &[0u8; 12][..]), Err(Error::InvalidArgument(_))));
}

/// `encrypt_bytes` knows the length: it frames the message as `plaintext_len` does, not as a
/// stream of unknown length.
#[test]
fn encrypt_bytes_announces_the_length() {
    let data = plain(70_000);
    let encryptor = || Encryptor::new([cert()]).chunk_size(CHUNK);
    let write = |e: Encryptor| {
        let mut w = e.writer(Vec::new()).unwrap();
        w.write_all(&data).unwrap();
        w.finish().unwrap()
    };
    let fixed = write(encryptor().plaintext_len(data.len() as u64));
    let streamed = write(encryptor());
    assert_ne!(fixed.len(), streamed.len());
    let message = encryptor().encrypt_bytes(&data).unwrap();
    assert_eq!(message.len(), fixed.len());
}
