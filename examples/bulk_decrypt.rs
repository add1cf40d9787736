//! Decrypts a batch of small messages with one `Decryptor` on all cores
//! (`Decryptor::decrypt_all`) and prints messages per second.
//!
//! ```text
//! cargo run --release --example bulk_decrypt [MESSAGES [THREADS]]
//!     A self-contained demo: MESSAGES (default 20 000) messages of 100 octets, in memory,
//!     for X25519 and ML-KEM-768+X25519 keys.
//! cargo run --release --example bulk_decrypt -- make FILE MESSAGES [armored|lines] [pqc]
//!     Writes a data set: MESSAGES messages of 100 octets to FILE, either as armored blocks one
//!     after another (the default) or as one base64-encoded binary message per line, and the
//!     secret key that decrypts them to FILE.key.
//! cargo run --release --example bulk_decrypt -- file FILE [KEY [THREADS]]
//!     Decrypts such a file (the layout is detected; KEY defaults to FILE.key) and prints its
//!     rate, and the rate of the same messages in binary, decoded beforehand, in the same run
//!     (the best of three alternating rounds each).
//! ```

use std::io::{Read, Write};
use std::time::Instant;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sixpgp::{ArmorReader, Decryptor, Encryptor, KeyBuilder, Profile, Tsk};

/// The first line of an armored message.
const BEGIN: &[u8] = b"-----BEGIN PGP MESSAGE-----";
/// The last line of an armored message.
const END: &[u8] = b"-----END PGP MESSAGE-----";
/// Alternating rounds of the file mode.
const ROUNDS: usize = 3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("make") => make(&args[1..]),
        Some("file") => file(&args[1..]),
        _ => demo(&args),
    }
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The in-memory demo of both profiles.
fn demo(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let threads = args.get(1).and_then(|a| a.parse().ok()).unwrap_or_else(default_threads).max(1);
    for profile in [Profile::Rfc9580, Profile::Pqc] {
        let key = KeyBuilder::new(profile).user_id("Bulk <bulk@example.org>").generate()?;
        // A few hundred distinct messages, reused round robin (encryption is not measured).
        let distinct = encrypt_messages(&key, count.min(500), false)?;
        let batch: Vec<&[u8]> = (0..count).map(|i| distinct[i % distinct.len()].as_slice()).collect();
        let rate = decrypt_rate(&key, &batch, threads)?;
        println!(
            "{:<8} {count} messages of 100 octets on {threads} threads: {rate:.0} messages/s",
            profile.name()
        );
    }
    Ok(())
}

/// `count` messages of 100 octets to `key`'s certificate, armored or binary.
fn encrypt_messages(key: &Tsk, count: usize, armor: bool) -> sixpgp::Result<Vec<Vec<u8>>> {
    let cert = key.to_cert();
    (0..count)
        .map(|i| {
            let mut w = Encryptor::new([&cert]).armor(armor).writer(Vec::new())?;
            w.write_all(&[u8::try_from(i % 251).unwrap_or(0); 100])?;
            w.finish()
        })
        .collect()
}

/// Decrypts `batch` with one shared `Decryptor` and returns messages per second.
fn decrypt_rate<M: AsRef<[u8]> + Sync>(key: &Tsk, batch: &[M], threads: usize) -> sixpgp::Result<f64> {
    let decryptor = Decryptor::new([key]).threads(threads);
    let start = Instant::now();
    let total = decryptor
        .decrypt_all(batch)
        .into_iter()
        .map(|r| r.map(|(plain, _)| plain.len()))
        .sum::<sixpgp::Result<usize>>()?;
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(total, 100 * batch.len());
    Ok(batch.len() as f64 / secs)
}

/// `make FILE MESSAGES [armored|lines] [pqc]`.
fn make(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let (Some(path), Some(count)) = (args.first(), args.get(1).and_then(|a| a.parse::<usize>().ok())) else {
        return Err("usage: make FILE MESSAGES [armored|lines] [pqc]".into());
    };
    let lines = args.get(2).is_some_and(|a| a == "lines");
    let profile = if args.iter().any(|a| a == "pqc") { Profile::Pqc } else { Profile::Rfc9580 };
    let key = KeyBuilder::new(profile).user_id("Bulk <bulk@example.org>").generate()?;
    std::fs::write(format!("{path}.key"), key.to_vec().as_slice())?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for message in encrypt_messages(&key, count, !lines)? {
        if lines {
            out.write_all(STANDARD.encode(&message).as_bytes())?;
            out.write_all(b"\n")?;
        } else {
            out.write_all(&message)?;
        }
    }
    out.flush()?;
    println!(
        "{count} {} messages to {path}, key in {path}.key",
        if lines { "base64-line" } else { "armored" }
    );
    Ok(())
}

/// `file FILE [KEY [THREADS]]`.
fn file(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = args.first() else {
        return Err("usage: file FILE [KEY [THREADS]]".into());
    };
    let key_path = args.get(1).cloned().unwrap_or_else(|| format!("{path}.key"));
    let threads = args.get(2).and_then(|a| a.parse().ok()).unwrap_or_else(default_threads).max(1);
    let key = Tsk::from_bytes(&std::fs::read(key_path)?)?;
    let data = std::fs::read(path)?;
    let armored = data.trim_ascii_start().starts_with(BEGIN);

    // The messages as the file has them, and in binary for the comparison (decoded untimed),
    // in alternating rounds; the best round of each counts (the machine may be shared).
    let blocks = if armored { armored_blocks(&data) } else { Vec::new() };
    let lines: Vec<&[u8]> = if armored {
        Vec::new()
    } else {
        data.split(|&b| b == b'\n').map(<[u8]>::trim_ascii).filter(|l| !l.is_empty()).collect()
    };
    let binary = if armored {
        blocks
            .iter()
            .map(|b| {
                let mut out = Vec::new();
                let _ = ArmorReader::new(*b).read_to_end(&mut out)?;
                Ok(out)
            })
            .collect::<std::io::Result<Vec<_>>>()?
    } else {
        decode_lines(&lines, threads)?
    };
    let (mut rate, mut binary_rate) = (0f64, 0f64);
    for _ in 0..ROUNDS {
        let as_given = if armored {
            decrypt_rate(&key, &blocks, threads)?
        } else {
            // One base64 message per line: decoding is part of the work, spread over the
            // same number of threads as the decryption.
            let start = Instant::now();
            let decoded = decode_lines(&lines, threads)?;
            let decode_secs = start.elapsed().as_secs_f64();
            let n = decoded.len() as f64;
            n / (decode_secs + n / decrypt_rate(&key, &decoded, threads)?)
        };
        rate = rate.max(as_given);
        binary_rate = binary_rate.max(decrypt_rate(&key, &binary, threads)?);
    }
    println!(
        "{path}: {} {} messages on {threads} threads: {rate:.0} messages/s; binary: {binary_rate:.0} messages/s ({:.2}x)",
        binary.len(),
        if armored { "armored" } else { "base64-line" },
        rate / binary_rate
    );
    Ok(())
}

/// The armored blocks of `data`, each from its `BEGIN` line to the end of its `END` line.
fn armored_blocks(data: &[u8]) -> Vec<&[u8]> {
    let mut blocks = Vec::new();
    let mut rest = data;
    while let Some(start) = find(rest, BEGIN) {
        let from = &rest[start..];
        let Some(end) = find(from, END) else { break };
        let mut stop = end + END.len();
        while from.get(stop).is_some_and(|b| *b == b'\r' || *b == b'\n') {
            stop += 1;
        }
        blocks.push(&from[..stop]);
        rest = &from[stop..];
    }
    blocks
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Decodes base64 `lines` on `threads` threads.
fn decode_lines(lines: &[&[u8]], threads: usize) -> Result<Vec<Vec<u8>>, base64::DecodeError> {
    let per = lines.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = lines
            .chunks(per)
            .map(|part| {
                s.spawn(move || part.iter().map(|l| STANDARD.decode(l)).collect::<Result<Vec<_>, _>>())
            })
            .collect();
        let mut all = Vec::with_capacity(lines.len());
        for part in parts {
            all.extend(part.join().unwrap_or_else(|_| Ok(Vec::new()))?);
        }
        Ok(all)
    })
}
