//! The tests of [`ArmorReader`].

use super::scan::B64_CAP;
use super::*;
use crate::armor::base64::decoded_len;
use crate::error::Error;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// Binary input passes vectored reads straight to the source, filling every slice;
/// armored input fills the first non-empty one.
#[test]
fn vectored_reads_of_binary_and_armored_input() {
    let binary: Vec<u8> = (0..200u8).map(|i| i | 0x80).collect();
    let mut r = ArmorReader::new(&binary[..]);
    assert!(r.detect().unwrap().is_none());
    let (mut a, mut b) = ([0u8; 50], [0u8; 100]);
    let n = r.read_vectored(&mut [io::IoSliceMut::new(&mut a), io::IoSliceMut::new(&mut b)]).unwrap();
    assert_eq!(n, 150);
    assert_eq!((&a[..], &b[..]), (&binary[..50], &binary[50..150]));

    let mut w = crate::armor::ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap();
    io::Write::write_all(&mut w, &binary).unwrap();
    let text = w.finish().unwrap();
    let mut r = ArmorReader::new(&text[..]);
    let mut out = Vec::new();
    loop {
        let (mut a, mut b) = ([0u8; 0], [0u8; 7]);
        let n = r.read_vectored(&mut [io::IoSliceMut::new(&mut a), io::IoSliceMut::new(&mut b)]).unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&b[..n]);
    }
    assert_eq!(out, binary);
}

/// Reads `input` to its end or first error, `read_size` octets at a time, with `threads`
/// and blocks of `block_len`; returns what was read and the kind of error, if any.
fn read_threaded(
    input: &[u8],
    threads: usize,
    block_len: usize,
    read_size: usize,
) -> (Vec<u8>, Option<std::mem::Discriminant<Error>>) {
    let mut r = ArmorReader::new(input).threads(threads).block_len(block_len);
    let mut out = Vec::new();
    let mut buf = vec![0; read_size];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return (out, None),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Some(std::mem::discriminant(&Error::from_io(e)))),
        }
    }
}

/// `threads(n)` counts the calling thread: at most n − 1 workers ever run, and with n ≥ 2 a
/// long body starts at least one.
#[test]
fn threads_count_the_calling_thread() {
    let data: Vec<u8> = (0..200_000_u32).map(|i| (i * 7 % 251) as u8).collect();
    let text = armored(&data, 64, false, false);
    for threads in 1..=3 {
        let mut r = ArmorReader::new(&text[..]).threads(threads).block_len(4096);
        let (mut out, mut buf, mut most) = (Vec::new(), vec![0; 1000], 0);
        loop {
            let n = r.read(&mut buf).unwrap();
            most = most.max(r.blocks.as_ref().map_or(0, |b| b.worker_count()));
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        assert_eq!(out, data);
        assert!(most < threads, "{threads} threads ran {most} workers");
        assert!(threads == 1 || most >= 1, "{threads} threads ran no worker");
    }
}

/// An armored block of `data` with lines of `line_len` characters (the last one shorter),
/// LF or CRLF, and a checksum line if asked.
fn armored(data: &[u8], line_len: usize, crlf: bool, checksum: bool) -> Vec<u8> {
    let eol = if crlf { "\r\n" } else { "\n" };
    let b64 = STANDARD.encode(data);
    let mut text = format!("-----BEGIN PGP MESSAGE-----{eol}Comment: test{eol}{eol}");
    for line in b64.as_bytes().chunks(line_len) {
        text.push_str(std::str::from_utf8(line).unwrap());
        text.push_str(eol);
    }
    if checksum {
        text.push_str("=AAAA");
        text.push_str(eol);
    }
    text.push_str("-----END PGP MESSAGE-----");
    text.push_str(eol);
    text.into_bytes()
}

/// Lines with an LF before the 64th or 76th octet and another LF there (LF or CRLF line
/// ends, from the first lines or after many plain ones): the fast paths take the 64 or 76
/// octets as a line, refuse it (an LF is not base64) and leave it to the
/// one-character-at-a-time scanner, which reads the two lines they are. A CRLF line of 64
/// characters followed by one of 9 puts an LF at 76 too.
#[test]
fn an_early_line_break_before_a_usual_line_length() {
    let data: Vec<u8> = (0..200_000u32).map(|i| (i % 253) as u8).collect();
    let b64 = STANDARD.encode(&data);
    let cases = [
        (64usize, 8usize, "\n", 0usize),
        (76, 12, "\n", 0),
        (64, 1, "\n", 300),
        (64, 63, "\n", 300),
        (64, 8, "\r\n", 0),
        (76, 40, "\r\n", 300),
    ];
    for (line, cut, eol, start) in cases {
        let mut text = b"-----BEGIN PGP MESSAGE-----\n\n".to_vec();
        let (mut rest, mut i) = (b64.as_bytes(), 0);
        while !rest.is_empty() {
            // From line `start` on, every third line: an LF after `cut` characters and
            // as many characters fewer, so that the line's own LF is at `line` again.
            let early = i >= start && i % 3 == 1 && rest.len() > line;
            let take = if early { line - eol.len() } else { line.min(rest.len()) };
            let (chars, after) = rest.split_at(take);
            let begin = text.len();
            text.extend_from_slice(chars);
            if early {
                text.insert(begin + cut, b'\n');
            }
            text.extend_from_slice(eol.as_bytes());
            if early {
                assert_eq!(text.len() - begin, line + 1);
            }
            (rest, i) = (after, i + 1);
        }
        text.extend_from_slice(b"-----END PGP MESSAGE-----\n");
        for (threads, block_len) in [(1, BLOCK_TEXT_LEN), (2, 4096), (3, 1000), (2, BLOCK_TEXT_LEN)] {
            let (out, err) = read_threaded(&text, threads, block_len, 4096);
            assert_eq!(err, None, "{line} {cut} {eol:?} {start} {threads} {block_len}");
            assert!(out == data, "{line} {cut} {eol:?} {start} {threads} {block_len}");
        }
    }
    // Lines of 64 and 9 characters in turn, with CRLF: the 9-character line's LF is at 76
    // from the start of the 64-character one.
    let mut text = b"-----BEGIN PGP MESSAGE-----\n\n".to_vec();
    let (mut rest, mut long) = (b64.as_bytes(), true);
    while !rest.is_empty() {
        let (chars, after) = rest.split_at((if long { 64 } else { 9 }).min(rest.len()));
        text.extend_from_slice(chars);
        text.extend_from_slice(b"\r\n");
        (rest, long) = (after, !long);
    }
    text.extend_from_slice(b"-----END PGP MESSAGE-----\n");
    for (threads, block_len) in [(1, BLOCK_TEXT_LEN), (2, 4096), (3, 1000), (2, BLOCK_TEXT_LEN)] {
        let (out, err) = read_threaded(&text, threads, block_len, 4096);
        assert_eq!(err, None, "64/9 CRLF {threads} {block_len}");
        assert!(out == data, "64/9 CRLF {threads} {block_len}");
    }
}

#[test]
fn threaded_reading_of_long_bodies() {
    let data: Vec<u8> =
        (0..3 * 1024 * 1024 + 7_u32).map(|i| ((i.wrapping_mul(2_654_435_761) >> 13) % 251) as u8).collect();
    for (line_len, crlf, checksum) in
        [(64, false, false), (76, true, true), (60, false, true), (65, false, false)]
    {
        let input = armored(&data, line_len, crlf, checksum);
        for threads in [2, 3] {
            let mut r = ArmorReader::new(&input[..]).threads(threads);
            let mut out = Vec::new();
            let mut buf = vec![0; 100_000];
            loop {
                let n = r.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
                assert!(r.out.len() <= BLOCK_TEXT_LEN);
                // Read ahead: at most the blocks in flight and the carried-over line.
                assert!(r.ahead.text.len() <= 10 * BLOCK_TEXT_LEN);
            }
            assert!(out == data, "line length {line_len}, {threads} threads");
            assert!(matches!(r.state, State::Done));
            assert!(r.blocks.is_none());
        }
    }
}

#[test]
fn threaded_errors_are_the_sequential_ones() {
    let data: Vec<u8> = (0..600_000_u32).map(|i| (i % 253) as u8).collect();
    let good = armored(&data, 64, false, false);
    let body_start = good.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
    let mut cases = Vec::new();
    // A character that is not base64, a stray padding, blanks, an empty line and a short
    // line, deep inside the third block.
    for (at, what) in
        [(&b"*"[..], "star"), (b"=", "pad"), (b" ", "blank"), (b"\n", "newline"), (b"\nAB", "short")]
            .into_iter()
            .map(|(w, n)| (body_start + 2 * BLOCK_TEXT_LEN + 1000, (w, n)))
    {
        let mut input = good.clone();
        drop(input.splice(at..at, what.0.iter().copied()));
        cases.push((what.1, input));
    }
    cases.push(("truncated", good[..good.len() - 40].to_vec()));
    cases.push(("cut in the body", good[..body_start + BLOCK_TEXT_LEN + 3].to_vec()));
    let mut wrong_end = good.clone();
    let end = wrong_end.len() - 12;
    wrong_end[end] = b'X';
    cases.push(("wrong END", wrong_end));
    for (name, input) in cases {
        let (seq_out, seq_err) = read_threaded(&input, 1, BLOCK_TEXT_LEN, 1 << 20);
        for threads in [2, 3] {
            let (out, err) = read_threaded(&input, threads, BLOCK_TEXT_LEN, 1 << 20);
            assert_eq!(err, seq_err, "{name}");
            assert!(seq_out.starts_with(&out) || out.starts_with(&seq_out), "{name}");
            if err.is_none() {
                assert!(out == seq_out, "{name}");
            }
        }
        if name == "newline" || name == "blank" {
            // Whitespace is allowed: a line the threads leave to the scanner.
            assert_eq!(seq_err, None);
            assert!(seq_out == data);
        } else {
            assert!(seq_err.is_some(), "{name}");
        }
    }
}

/// A source that gives `data`, then fails every read.
fn then_failing(data: &[u8]) -> impl BufRead + '_ {
    struct Fail;
    impl Read for Fail {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::ErrorKind::ConnectionReset.into())
        }
    }
    io::BufReader::with_capacity(8192, data.chain(Fail))
}

/// The threaded path reads no further than the block holding the END line (the sequential
/// reader stops right after it): a source that fails (or would block) after the armor
/// gives the same result. Its failure before the END line comes after the text read before
/// it, as it does for the sequential reader, so a malformed body is reported as such.
#[test]
fn threaded_reading_stops_at_the_end_line_and_keeps_source_errors_in_place() {
    let data: Vec<u8> = (0..1_000_000_u32).map(|i| (i % 249) as u8).collect();
    let input = armored(&data, 64, false, false);
    for threads in [1, 2, 3] {
        let mut out = Vec::new();
        let r = ArmorReader::new(then_failing(&input)).threads(threads).read_to_end(&mut out);
        assert!(r.is_ok() && out == data, "{threads} threads");

        // Cut in the body: the source's error, after the octets before it.
        let cut = &input[..input.len() / 2];
        let mut out = Vec::new();
        let err = ArmorReader::new(then_failing(cut)).threads(threads).read_to_end(&mut out).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset, "{threads} threads");
        assert!(data.starts_with(&out) && out.len() > data.len() / 3, "{threads} threads");

        // A bad character in the first line, then a source that fails 300 KiB later.
        let mut bad = input[..300_000].to_vec();
        let first_line = bad.windows(2).position(|w| w == b"\n\n").unwrap() + 3;
        bad[first_line] = b'*';
        let err =
            ArmorReader::new(then_failing(&bad)).threads(threads).read_to_end(&mut Vec::new()).unwrap_err();
        assert!(matches!(Error::from_io(err), Error::Malformed(_)), "{threads} threads");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Whatever the input (well formed lines of any length, then edits), the threaded path
    /// reads the same octets and fails with the same error as the one-line-at-a-time path,
    /// for any block length and thread count.
    #[test]
    fn threaded_and_sequential_paths_agree(
        data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2000),
        line_len in proptest::sample::select(vec![4_usize, 8, 12, 60, 64, 76, 5, 63, 65, 1000]),
        crlf in proptest::prelude::any::<bool>(),
        checksum in proptest::prelude::any::<bool>(),
        edits in proptest::collection::vec(
            (proptest::prelude::any::<proptest::sample::Index>(),
             proptest::sample::select(b"=-* \t\r\nA".to_vec()), 0_u8..3),
            0..3),
        block_len in proptest::sample::select(vec![1_usize, 3, 66, 100, 131, 700, 5000]),
        threads in 2_usize..4,
        read_size in proptest::sample::select(vec![1_usize, 7, 4096]),
    ) {
        let mut input = armored(&data, line_len, crlf, checksum);
        for (at, byte, op) in edits {
            let at = at.index(input.len());
            match op {
                0 => input[at] = byte,
                1 => input.insert(at, byte),
                _ => { let _ = input.remove(at); }
            }
        }
        let (seq_out, seq_err) = read_threaded(&input, 1, block_len, read_size);
        let (out, err) = read_threaded(&input, threads, block_len, read_size);
        proptest::prop_assert_eq!(&err, &seq_err, "input {:?}", String::from_utf8_lossy(&input));
        proptest::prop_assert!(seq_out.starts_with(&out) || out.starts_with(&seq_out));
        if err.is_none() {
            proptest::prop_assert_eq!(out, seq_out);
        }
    }
}

#[test]
fn memory_stays_bounded() {
    // One 1 MiB base64 line.
    let data: Vec<u8> = (0..768 * 1024_u32).map(|i| (i % 251) as u8).collect();
    let armored = [
        &b"-----BEGIN PGP MESSAGE-----\n\n"[..],
        STANDARD.encode(&data).as_bytes(),
        b"\n-----END PGP MESSAGE-----\n",
    ]
    .concat();
    let mut r = ArmorReader::new(&armored[..]);
    let mut out = Vec::new();
    let mut buf = [0_u8; 5000];
    loop {
        let n = r.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
        assert!(r.b64.capacity() <= B64_CAP);
        assert!(r.out.len() <= decoded_len(B64_CAP));
    }
    assert_eq!(out, data);
    assert!(matches!(r.state, State::Done));
}

/// A source that fails with `Interrupted` before every refill of its 7-octet buffer.
struct Interrupting<'a> {
    data: &'a [u8],
    buffered: usize,
    interrupt: bool,
}

impl Read for Interrupting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Interrupting<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.buffered == 0 {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Err(io::ErrorKind::Interrupted.into());
            }
            self.buffered = self.data.len().min(7);
        }
        Ok(&self.data[..self.buffered])
    }
    fn consume(&mut self, amount: usize) {
        self.data = &self.data[amount..];
        self.buffered = self.buffered.checked_sub(amount).unwrap();
    }
}

#[test]
fn interrupted_sources_are_retried() {
    let armored =
        b"-----BEGIN PGP MESSAGE-----\nComment: x\n\nwgABAgMEBQYHCAkK\n=AAAA\n-----END PGP MESSAGE-----\n";
    let mut r = ArmorReader::new(Interrupting { data: armored, buffered: 0, interrupt: false });
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).unwrap();
    assert_eq!(out, b"\xc2\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a");
}

/// `err` has the kind and the message of `(kind, text)`.
fn assert_same(err: &io::Error, (kind, text): (io::ErrorKind, &str)) {
    assert_eq!((err.kind(), err.to_string().as_str()), (kind, text));
}

/// After the first error, every later call (`read`, `fill_buf`, `detect`) returns it again:
/// for an error of the source before detection, in binary pass-through (where a retry is
/// still a retry), in the body, and for bad input.
#[test]
fn errors_poison() {
    struct Broken<'a>(&'a [u8], io::ErrorKind);
    impl Read for Broken<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::new(self.1, "broken"));
            }
            self.0.read(buf)
        }
    }
    let broken = (io::ErrorKind::BrokenPipe, "broken");
    let armored = b"-----BEGIN PGP MESSAGE-----\n\nwgABAgME";
    for (input, first) in [(&b""[..], broken), (b"\xc2\x00\x01", broken), (&armored[..], broken)] {
        for threads in [1, 2] {
            let mut r = ArmorReader::new(io::BufReader::new(Broken(input, io::ErrorKind::BrokenPipe)))
                .threads(threads);
            let err = io::copy(&mut r, &mut io::sink()).unwrap_err();
            assert_same(&err, first);
            assert_same(&r.read(&mut [0; 4]).unwrap_err(), first);
            assert_same(&r.fill_buf().unwrap_err(), first);
            assert_same(&r.detect().unwrap_err().into(), first);
        }
    }
    // Interrupted in pass-through is returned as it is, and not kept.
    let mut r = ArmorReader::new(io::BufReader::new(Broken(b"\xc2\x00", io::ErrorKind::Interrupted)));
    assert_eq!(r.read(&mut [0; 8]).unwrap(), 2);
    assert_eq!(r.read(&mut [0; 8]).unwrap_err().kind(), io::ErrorKind::Interrupted);
    assert_eq!(r.read(&mut [0; 8]).unwrap_err().kind(), io::ErrorKind::Interrupted);
    // Bad input: the kind and the message of the first error, whatever is called next.
    let mut r = ArmorReader::new(&b"-----BEGIN PGP MESSAGE-----\n\nwg!A\n-----END PGP MESSAGE-----\n"[..]);
    let err = r.read(&mut [0; 4]).unwrap_err();
    let first = (err.kind(), err.to_string());
    assert!(matches!(Error::from_io(err), Error::Malformed(_)));
    let first = (first.0, first.1.as_str());
    assert_same(&r.read(&mut [0; 4]).unwrap_err(), first);
    assert_same(&r.fill_buf().unwrap_err(), first);
    let again = r.detect().unwrap_err();
    assert!(matches!(again, Error::Malformed(_)));
    assert_same(&again.into(), first);
}
