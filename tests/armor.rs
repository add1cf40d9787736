//! ASCII armor (RFC 9580 §6) through the public API: vectors, variants, errors, round trips.
#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::io::{self, BufRead, BufReader, Read, Write};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use proptest::prelude::*;
use sixpgp::{ArmorKind, ArmorReader, ArmorWriter, Error, Limit, Limits, Unsupported};

macro_rules! data {
    ($name:literal) => {
        ($name, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/", $name)))
    };
}

/// Every armored vector except the cleartext signed message, with its kind.
const VECTORS: &[((&str, &str), ArmorKind)] = &[
    (data!("a01-v4-ed25519legacy-public-key.asc"), ArmorKind::PublicKey),
    (data!("a02-v4-ed25519legacy-signature.asc"), ArmorKind::Signature),
    (data!("a03-v6-certificate.asc"), ArmorKind::PublicKey),
    (data!("a04-v6-secret-key.asc"), ArmorKind::PrivateKey),
    (data!("a05-v6-secret-key-locked.asc"), ArmorKind::PrivateKey),
    (data!("a07-inline-signed-message.asc"), ArmorKind::Message),
    (data!("a08-x25519-aead-ocb-message.asc"), ArmorKind::Message),
    (data!("a09-aead-eax-message.asc"), ArmorKind::Message),
    (data!("a10-aead-ocb-message.asc"), ArmorKind::Message),
    (data!("a11-aead-gcm-message.asc"), ArmorKind::Message),
    (data!("a12-1-argon2-aes128-message.asc"), ArmorKind::Message),
    (data!("a12-2-argon2-aes192-message.asc"), ArmorKind::Message),
    (data!("a12-3-argon2-aes256-message.asc"), ArmorKind::Message),
    (data!("v6-eddsa-sample-message.asc"), ArmorKind::Message),
    (data!("v6-eddsa-sample-pk.asc"), ArmorKind::PublicKey),
    (data!("v6-eddsa-sample-sk.asc"), ArmorKind::PrivateKey),
    (data!("v6-mldsa-65-sample-message.asc"), ArmorKind::Message),
    (data!("v6-mldsa-65-sample-pk.asc"), ArmorKind::PublicKey),
    (data!("v6-mldsa-65-sample-signature.asc"), ArmorKind::Signature),
    (data!("v6-mldsa-65-sample-sk.asc"), ArmorKind::PrivateKey),
];

/// Dearmors `input` with `read_to_end`, returning the kind and the data.
fn dearmor(input: &[u8]) -> Result<(Option<ArmorKind>, Vec<u8>), Error> {
    let mut r = ArmorReader::new(input);
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).map_err(Error::from_io)?;
    Ok((r.kind(), out))
}

/// Dearmors `input` one octet at a time, from a source that gives one octet at a time.
fn dearmor_bytewise(input: &[u8]) -> Result<Vec<u8>, Error> {
    let mut r = ArmorReader::new(BufReader::with_capacity(1, input));
    let mut out = Vec::new();
    let mut byte = [0_u8; 1];
    loop {
        match r.read(&mut byte).map_err(Error::from_io)? {
            0 => return Ok(out),
            _ => out.push(byte[0]),
        }
    }
}

/// Armors `data` in one write.
fn armor(data: &[u8], kind: ArmorKind) -> Vec<u8> {
    let mut w = ArmorWriter::new(Vec::new(), kind).unwrap();
    w.write_all(data).unwrap();
    w.finish().unwrap()
}

/// The base64 body of an armored file, decoded independently of the crate.
fn reference_decode(text: &str) -> Vec<u8> {
    let body: String = text
        .lines()
        .skip_while(|l| !l.is_empty())
        .skip(1)
        .take_while(|l| !l.starts_with("-----END"))
        .collect();
    STANDARD.decode(body).unwrap()
}

/// CRC24 of RFC 9580 §6.1, for writing a correct checksum line.
fn crc24(data: &[u8]) -> u32 {
    let mut crc: u32 = 0x00B7_04CE;
    for &b in data {
        crc ^= u32::from(b) << 16;
        for _ in 0..8 {
            crc <<= 1;
            if crc & 0x0100_0000 != 0 {
                crc ^= 0x0186_4CFB;
            }
        }
    }
    crc & 0x00FF_FFFF
}

/// Inserts `line` before the END line of `text`.
fn insert_before_end(text: &str, line: &str) -> String {
    let at = text.find("-----END").unwrap();
    format!("{}{line}\n{}", &text[..at], &text[at..])
}

#[test]
fn vectors_dearmor() {
    for ((name, text), kind) in VECTORS {
        let (got_kind, data) = dearmor(text.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got_kind, Some(*kind), "{name}");
        assert_eq!(data, reference_decode(text), "{name}");
        assert!(data[0] & 0x80 != 0, "{name}: not an OpenPGP packet");
        assert_eq!(dearmor_bytewise(text.as_bytes()).unwrap(), data, "{name}");
    }
}

#[test]
fn vectors_without_headers_rearmor_identically() {
    for ((name, text), kind) in VECTORS {
        if text.contains("Comment:") {
            continue;
        }
        let (_, data) = dearmor(text.as_bytes()).unwrap();
        assert_eq!(String::from_utf8(armor(&data, *kind)).unwrap(), *text, "{name}");
    }
}

#[test]
fn a08_matches_the_published_packets() {
    let (_, text) = data!("a08-x25519-aead-ocb-message.asc");
    let (_, json) = data!("a08-x25519-aead-ocb.json");
    let json: serde_json::Value = serde_json::from_str(json).unwrap();
    let expected = [
        hex::decode(json["pkesk_packet"].as_str().unwrap()).unwrap(),
        hex::decode(json["seipd_packet"].as_str().unwrap()).unwrap(),
    ]
    .concat();
    assert_eq!(dearmor(text.as_bytes()).unwrap().1, expected);
}

#[test]
fn comment_headers_are_skipped() {
    for (name, text) in [
        data!("a12-1-argon2-aes128-message.asc"),
        data!("a12-2-argon2-aes192-message.asc"),
        data!("a12-3-argon2-aes256-message.asc"),
    ] {
        assert!(text.contains("\nComment: "), "{name}");
        let mut r = ArmorReader::new(text.as_bytes());
        assert_eq!(r.detect().unwrap(), Some(ArmorKind::Message));
        assert!(r.is_armored());
        let mut data = Vec::new();
        let _ = r.read_to_end(&mut data).unwrap();
        assert_eq!(data, reference_decode(text), "{name}");
    }
    // Other headers too.
    let (_, text) = data!("a10-aead-ocb-message.asc");
    let with_headers = text.replacen("-----\n\n", "-----\nVersion: 1\nHash: SHA512\nX-Unknown: x:y\n\n", 1);
    assert_eq!(dearmor(with_headers.as_bytes()).unwrap(), dearmor(text.as_bytes()).unwrap());
}

#[test]
fn cleartext_signature_framework_is_unsupported() {
    let (_, text) = data!("a06-cleartext-signed-message.asc");
    assert!(matches!(
        dearmor(text.as_bytes()),
        Err(Error::Unsupported(Unsupported::Feature("cleartext signature framework")))
    ));
}

#[test]
fn crlf_and_trailing_whitespace() {
    for ((name, text), _) in VECTORS {
        let expected = dearmor(text.as_bytes()).unwrap();
        let crlf = text.replace('\n', "\r\n");
        assert_eq!(dearmor(crlf.as_bytes()).unwrap(), expected, "{name} CRLF");
        assert_eq!(dearmor_bytewise(crlf.as_bytes()).unwrap(), expected.1, "{name} CRLF");
        let spaces = text.replace('\n', " \t \n");
        assert_eq!(dearmor(spaces.as_bytes()).unwrap(), expected, "{name} spaces");
        let both = text.replace('\n', "  \r\n");
        assert_eq!(dearmor(both.as_bytes()).unwrap(), expected, "{name} both");
        let leading = format!("\n\r\n  \t\n{text}");
        assert_eq!(dearmor(leading.as_bytes()).unwrap(), expected, "{name} leading");
    }
}

#[test]
fn any_line_length() {
    let (_, text) = data!("v6-mldsa-65-sample-message.asc");
    let expected = dearmor(text.as_bytes()).unwrap();
    let body = STANDARD.encode(&expected.1);
    for width in [1, 3, 4, 5, 63, 64, 65, 76, 77, 1000, body.len()] {
        let lines: Vec<String> =
            body.as_bytes().chunks(width).map(|c| String::from_utf8(c.to_vec()).unwrap()).collect();
        let armored =
            format!("-----BEGIN PGP MESSAGE-----\n\n{}\n-----END PGP MESSAGE-----\n", lines.join("\n"));
        assert_eq!(dearmor(armored.as_bytes()).unwrap(), expected, "width {width}");
        assert_eq!(dearmor_bytewise(armored.as_bytes()).unwrap(), expected.1);
        let crlf = armored.replace('\n', "\r\n");
        assert_eq!(dearmor(crlf.as_bytes()).unwrap(), expected, "width {width} CRLF");
        // A space or tab inside a line (the line-at-a-time fast path must hand it to the
        // character-by-character path, which skips it).
        for (i, ws) in [(10, " "), (40, "\t"), (63, " ")] {
            let mut spaced = armored.clone();
            let at = armored.find("\n\n").unwrap() + 2 + i.min(body.len().saturating_sub(1));
            spaced.insert_str(at, ws);
            assert_eq!(dearmor(spaced.as_bytes()).unwrap(), expected, "width {width} space at {i}");
        }
    }
    // `=` inside a full line is data after padding, whichever path sees it.
    let mut bad = STANDARD.encode([7u8; 96]).into_bytes();
    bad[20] = b'=';
    let armored = format!(
        "-----BEGIN PGP MESSAGE-----\n\n{}\n-----END PGP MESSAGE-----\n",
        String::from_utf8(bad).unwrap()
    );
    assert!(matches!(dearmor(armored.as_bytes()), Err(Error::Malformed(_))));
    assert!(matches!(dearmor_bytewise(armored.as_bytes()), Err(Error::Malformed(_))));
    // Padding split from its quad, blank lines and inner whitespace in the body.
    let armored = "-----BEGIN PGP SIGNATURE-----\n\nw\n\n g\t\r\n=\n=\n-----END PGP SIGNATURE-----";
    assert_eq!(dearmor(armored.as_bytes()).unwrap().1, b"\xc2");
}

#[test]
fn checksum_right_wrong_or_absent() {
    for ((name, text), _) in VECTORS {
        let expected = dearmor(text.as_bytes()).unwrap();
        let crc = crc24(&expected.1).to_be_bytes();
        let right = format!("={}", STANDARD.encode(&crc[1..]));
        for line in [right.as_str(), "=AAAA", "=////", "=abcd  \r"] {
            let with = insert_before_end(text, line);
            assert_eq!(dearmor(with.as_bytes()).unwrap(), expected, "{name} {line}");
            assert_eq!(dearmor_bytewise(with.as_bytes()).unwrap(), expected.1);
        }
        let with_crlf = insert_before_end(text, &right).replace('\n', "\r\n");
        assert_eq!(dearmor(with_crlf.as_bytes()).unwrap(), expected, "{name}");
    }
}

#[test]
fn writer_output_shape() {
    for len in [0, 1, 2, 3, 47, 48, 49, 96, 1000, 100_000] {
        let data: Vec<u8> = (0..len).map(|i: u32| u8::try_from(i % 253).unwrap()).collect();
        let text = String::from_utf8(armor(&data, ArmorKind::Message)).unwrap();
        assert!(text.starts_with("-----BEGIN PGP MESSAGE-----\n\n"));
        assert!(text.ends_with("\n-----END PGP MESSAGE-----\n"));
        assert!(!text.contains('\r'));
        for line in text.lines() {
            assert!(line.len() <= 76);
            assert!(!line.starts_with('='), "checksum line written");
        }
        assert_eq!(dearmor(text.as_bytes()).unwrap(), (Some(ArmorKind::Message), data));
    }
    assert_eq!(
        dearmor(&armor(b"", ArmorKind::PrivateKey)).unwrap(),
        (Some(ArmorKind::PrivateKey), Vec::new())
    );
}

#[test]
fn binary_passes_through() {
    for ((name, text), _) in VECTORS {
        let binary = dearmor(text.as_bytes()).unwrap().1;
        let mut r = ArmorReader::new(&binary[..]);
        assert_eq!(r.detect().unwrap(), None);
        assert!(!r.is_armored());
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).unwrap();
        assert_eq!(out, binary, "{name}");
        assert_eq!(dearmor_bytewise(&binary).unwrap(), binary, "{name}");
    }
    let mut r = ArmorReader::new(&b"\xc2\x00"[..]);
    assert_eq!(r.fill_buf().unwrap(), b"\xc2\x00");
    assert_eq!(r.kind(), None);
}

#[test]
fn stops_after_the_end_line() {
    let block = armor(b"\xc2\x00", ArmorKind::Signature);
    let input = [&block[..], b"after"].concat();
    let mut r = ArmorReader::new(&input[..]);
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).unwrap();
    assert_eq!(out, b"\xc2\x00");
    assert_eq!(r.read(&mut [0; 4]).unwrap(), 0);
    assert_eq!(r.into_inner(), b"after");
    // No final newline after the END line is fine.
    assert_eq!(dearmor(&block[..block.len() - 1]).unwrap().1, b"\xc2\x00");
}

#[test]
fn truncation_is_an_error() {
    for ((name, text), _) in VECTORS.iter().take(5) {
        let text = text.as_bytes();
        // The whole text minus its final LF still has a complete END line.
        for cut in 0..text.len() - 1 {
            let result = dearmor(&text[..cut]);
            assert!(matches!(result, Err(Error::Truncated("armor"))), "{name} cut at {cut}: {result:?}");
        }
    }
    let (_, text) = data!("a03-v6-certificate.asc");
    let with_crc = insert_before_end(text, "=AAAA");
    let cut = with_crc.find("=AAAA").unwrap() + 5;
    assert!(matches!(dearmor(&with_crc.as_bytes()[..cut]), Err(Error::Truncated(_))));
}

#[test]
fn malformed_input_is_rejected() {
    let (_, text) = data!("a03-v6-certificate.asc");
    let body_start = text.find("\n\n").unwrap() + 2;
    let cases: Vec<(String, &str)> = vec![
        (format!("junk\n{text}"), "text before BEGIN"),
        (text.replacen("PUBLIC KEY BLOCK", "PUBLIC KEY", 1), "unknown label"),
        (text.replacen("-----BEGIN PGP", "-----BEGIN  PGP", 1), "BEGIN line"),
        (text.replace("-----END PGP PUBLIC KEY BLOCK", "-----END PGP MESSAGE"), "END label"),
        (text.replace("-----END PGP PUBLIC KEY BLOCK-----", "-----END PGP"), "END line"),
        (text.replacen("\n\n", "\nno colon here\n\n", 1), "header line"),
        (text.replacen("\n\n", "\n", 1), "missing blank line"),
        (format!("{}*{}", &text[..body_start], &text[body_start..]), "bad char"),
        (format!("{}-{}", &text[..body_start + 5], &text[body_start + 5..]), "bad char"),
        (insert_before_end(text, "AAA"), "incomplete quad"),
        (insert_before_end(text, "A==="), "bad padding"),
        (insert_before_end(text, "AAAAA"), "incomplete quad"),
        (text.replacen("\n\n", "\n\nAA==AAAA\n", 1), "data after padding"),
        (text.replacen("\n\n", "\n\nAA==\n==\n", 1), "too much padding"),
        (text.replacen("\n\n", "\n\nAB==\n", 1), "non-canonical bits"),
        (text.replacen("-----\n", &format!("-----{}\n", " ".repeat(2000)), 1), "long BEGIN"),
        (format!("{}{}\n", text.trim_end(), " ".repeat(2000)), "long END"),
    ];
    for (input, what) in &cases {
        let result = dearmor(input.as_bytes());
        assert!(matches!(result, Err(Error::Malformed(_))), "{what}: {result:?}");
        let result = dearmor_bytewise(input.as_bytes());
        assert!(matches!(result, Err(Error::Malformed(_))), "{what} bytewise: {result:?}");
    }
    // Errors keep their type through io::Error and are returned again on later reads.
    let mut r = ArmorReader::new(cases[0].0.as_bytes());
    let err = r.read(&mut [0; 16]).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(matches!(Error::from_io(err), Error::Malformed(_)));
    assert!(matches!(Error::from_io(r.read(&mut [0; 16]).unwrap_err()), Error::Malformed(_)));
    assert!(matches!(r.detect(), Err(Error::Malformed(_))));
    // Empty or whitespace-only input.
    assert!(matches!(dearmor(b""), Err(Error::Truncated("armor"))));
    assert!(matches!(dearmor(b" \r\n\n"), Err(Error::Truncated("armor"))));
}

#[test]
fn header_overflow() {
    let (_, text) = data!("a12-1-argon2-aes128-message.asc");
    let comment = format!("Comment: {}\n", "x".repeat(70));
    let many = text.replacen("\n\n", &format!("\n{}\n", comment.repeat(60)), 1);
    assert!(matches!(dearmor(many.as_bytes()), Err(Error::LimitExceeded(Limit::ArmorHeaders))));
    let long = text.replacen("\n\n", &format!("\nComment: {}\n\n", "y".repeat(5000)), 1);
    assert!(matches!(dearmor(long.as_bytes()), Err(Error::LimitExceeded(Limit::ArmorHeaders))));
    // A custom limit: the two A.12 comments (102 octets with the blank line) fit exactly.
    let limits = Limits::default().with_max_armor_header_len(102);
    let mut out = Vec::new();
    let _ = ArmorReader::with_limits(text.as_bytes(), &limits).read_to_end(&mut out).unwrap();
    let limits = Limits::default().with_max_armor_header_len(101);
    let err = ArmorReader::with_limits(text.as_bytes(), &limits).read_to_end(&mut out).unwrap_err();
    assert!(matches!(Error::from_io(err), Error::LimitExceeded(Limit::ArmorHeaders)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn round_trip(
        data in proptest::collection::vec(any::<u8>(), 0..4000),
        splits in proptest::collection::vec(1_usize..200, 1..20),
        read_size in 1_usize..300,
        capacity in 1_usize..100,
        crlf in any::<bool>(),
    ) {
        // Write in pieces of the given sizes, cycling.
        let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap();
        let mut rest = &data[..];
        for split in splits.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (head, tail) = rest.split_at((*split).min(rest.len()));
            w.write_all(head).unwrap();
            rest = tail;
        }
        let armored = w.finish().unwrap();
        prop_assert_eq!(&armored, &armor(&data, ArmorKind::Message));
        for line in armored.split(|b| *b == b'\n') {
            prop_assert!(line.len() <= 76);
            prop_assert!(line.first() != Some(&b'='));
        }
        let input = if crlf {
            String::from_utf8(armored).unwrap().replace('\n', "\r\n").into_bytes()
        } else {
            armored
        };
        let mut r = ArmorReader::new(BufReader::with_capacity(capacity, &input[..]));
        let mut out = Vec::new();
        let mut buf = vec![0; read_size];
        loop {
            let n = r.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        prop_assert_eq!(out, data);
    }

    #[test]
    fn mutated_armor_reads_the_same_at_any_read_size(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0_u8..3), 1..4),
        which in any::<prop::sample::Index>(),
    ) {
        let ((_, text), _) = VECTORS[which.index(VECTORS.len())];
        let mut input = text.as_bytes().to_vec();
        for (at, byte, op) in edits {
            let at = at.index(input.len());
            match op {
                0 => input[at] = byte,
                1 => input.insert(at, byte),
                _ => { let _ = input.remove(at); }
            }
        }
        let whole = dearmor(&input);
        let bytewise = dearmor_bytewise(&input);
        match (whole, bytewise) {
            (Ok((_, a)), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!(std::mem::discriminant(&a), std::mem::discriminant(&b)),
            (a, b) => prop_assert!(false, "whole {:?} vs bytewise {:?}", a, b),
        }
    }

    /// The whole-line fast path and the character-by-character path agree: bodies made of
    /// base64 lines of any length with padding, CR, blanks, tabs, dashes and stray newlines
    /// mixed in, read from sources of several buffer sizes (so that lines are split or whole).
    #[test]
    fn fast_and_slow_body_paths_agree(
        pieces in proptest::collection::vec((0_u8..10, 0_usize..90), 0..40),
        checksum in any::<bool>(),
    ) {
        let mut body = Vec::new();
        for (op, n) in pieces {
            match op {
                0..=3 => body.extend(std::iter::repeat_n(b"QUJD"[n % 4], n)),
                4 => body.push(b'='),
                5 => body.push(b'\r'),
                6 => body.push(b'\n'),
                7 => body.push([b' ', b'\t'][n % 2]),
                8 => body.extend_from_slice(b"\r\n"),
                _ => body.push([b'-', b'/', b'+', b'*'][n % 4]),
            }
        }
        let mut input = b"-----BEGIN PGP MESSAGE-----\n\n".to_vec();
        input.extend_from_slice(&body);
        if checksum {
            input.extend_from_slice(b"\n=AAAA");
        }
        input.extend_from_slice(b"\n-----END PGP MESSAGE-----\n");
        let whole = dearmor(&input).map(|(_, d)| d);
        for cap in [1, 2, 63, 65, 66, 77, 78] {
            let mut r = ArmorReader::new(BufReader::with_capacity(cap, &input[..]));
            let mut out = Vec::new();
            let split = r.read_to_end(&mut out).map(|_| out).map_err(Error::from_io);
            match (&whole, split) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, &b, "cap {}", cap),
                (Err(a), Err(b)) => prop_assert_eq!(
                    std::mem::discriminant(a),
                    std::mem::discriminant(&b),
                    "cap {}: {:?} vs {:?}", cap, a, b
                ),
                (a, b) => prop_assert!(false, "cap {}: whole {:?} vs split {:?}", cap, a, b),
            }
        }
    }

    #[test]
    fn arbitrary_input_never_panics(input in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = dearmor(&input);
        let prefixed = [&b"-----BEGIN PGP MESSAGE-----\n\n"[..], &input].concat();
        let _ = dearmor(&prefixed);
    }
}

#[cfg(feature = "fuzzing")]
#[test]
fn fuzz_corpus_replays() {
    // The published package carries no `fuzz/` directory (see tests/fuzz_corpus.rs).
    if !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz")).is_dir() {
        eprintln!("skipped: no fuzz/ directory (the published package does not carry the fuzz corpus)");
        return;
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus/armor");
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let input = std::fs::read(entry.unwrap().path()).unwrap();
        sixpgp::fuzzing::armor(&input);
        count += 1;
    }
    assert!(count >= 5);
}

/// A valid body whose one line of 2 MiB has a blank after every quad. A scanner that looks for
/// the line's end again after each run of characters is quadratic in the line's length (hours
/// for this), whatever the thread count or source buffer.
#[test]
fn long_lines_with_blanks_read_in_linear_time() {
    let data: Vec<u8> = (0..1_500_000_u32).map(|i| (i % 251) as u8).collect();
    let mut body = Vec::new();
    for quad in STANDARD.encode(&data).as_bytes().chunks(4) {
        body.extend_from_slice(quad);
        body.push(b' ');
    }
    let input = [&b"-----BEGIN PGP MESSAGE-----\n\n"[..], &body, b"\n-----END PGP MESSAGE-----\n"].concat();
    for threads in [1, 2] {
        let mut out = Vec::new();
        let _ = ArmorReader::new(&input[..]).threads(threads).read_to_end(&mut out).unwrap();
        assert!(out == data, "{threads} threads, whole input");
        out.clear();
        let source = BufReader::with_capacity(8192, &input[..]);
        let _ = ArmorReader::new(source).threads(threads).read_to_end(&mut out).unwrap();
        assert!(out == data, "{threads} threads, 8 KiB buffers");
    }
}

/// The thread count does not change where the source is left: right after the END line, so a
/// second armored block that follows can be read from it.
#[test]
fn into_inner_is_after_the_end_line_whatever_the_threads() {
    let first: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Message).unwrap();
    w.write_all(&first).unwrap();
    let mut input = w.finish().unwrap();
    let mut w = ArmorWriter::new(Vec::new(), ArmorKind::Signature).unwrap();
    w.write_all(b"second block").unwrap();
    let second = w.finish().unwrap();
    input.extend_from_slice(&second);
    for threads in [1, 2, 4] {
        for buf in [512, 1 << 16] {
            let mut r = ArmorReader::new(BufReader::with_capacity(buf, &input[..])).threads(threads);
            let mut out = Vec::new();
            let _ = r.read_to_end(&mut out).unwrap();
            assert!(out == first, "{threads} threads, {buf}");
            let mut rest = Vec::new();
            let _ = r.into_inner().read_to_end(&mut rest).unwrap();
            assert!(rest == second, "{threads} threads, {buf}: {} octets left", rest.len());
        }
    }
}
