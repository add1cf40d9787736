//! SEIPDv2 throughput, in process, to an X25519 recipient:
//!
//! - `suite/…`: 16 MiB messages by cipher suite (AES-128/256 × OCB/GCM), chunk size (1 KiB to
//!   4 MiB, the largest RFC 9580 allows) and threads (1, or the default: the available cores),
//!   encrypt (`copy_from`) and decrypt;
//! - `size/…`: whole messages of 1 KiB to 64 MiB with the defaults (AES-256-OCB here, the
//!   suite a v6 key prefers, 256 KiB chunks), including the key agreement per message;
//! - `armored/…`: 16 MiB ASCII-armored messages with the defaults, one thread or the default
//!   (base64 then runs on workers beside the AEAD's).
//!
//! `cargo bench --bench throughput -- suite/` runs one group. The figures are only meaningful
//! as ratios measured in one run on one machine; see README.md.
#![allow(missing_docs, reason = "criterion_group! generates an undocumented function")]
#![allow(clippy::unwrap_used, reason = "a benchmark fails loudly")]

use std::io::{self, BufRead};
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sixpgp::{
    AeadAlgorithm, BufferPool, Cert, Decryptor, Encryptor, KeyBuilder, Profile, SymmetricAlgorithm, Tsk,
};

const SUITES: [(SymmetricAlgorithm, AeadAlgorithm, &str); 4] = [
    (SymmetricAlgorithm::Aes128, AeadAlgorithm::Ocb, "aes128-ocb"),
    (SymmetricAlgorithm::Aes256, AeadAlgorithm::Ocb, "aes256-ocb"),
    (SymmetricAlgorithm::Aes128, AeadAlgorithm::Gcm, "aes128-gcm"),
    (SymmetricAlgorithm::Aes256, AeadAlgorithm::Gcm, "aes256-gcm"),
];
const CHUNKS: [usize; 4] = [1 << 10, 1 << 16, 1 << 18, 1 << 22];
const SIZES: [usize; 6] = [1 << 10, 1 << 16, 1 << 18, 1 << 20, 1 << 24, 1 << 26];

/// The message, for the decryption benchmarks.
fn encrypt(e: Encryptor, plain: &[u8]) -> Vec<u8> {
    let mut w = e.writer(Vec::with_capacity(plain.len() + plain.len() / 64 + 4096)).unwrap();
    let _ = w.copy_from(&mut &plain[..]).unwrap();
    w.finish().unwrap()
}

/// Encrypts into a sink that discards the ciphertext: what is timed is the library (the
/// plaintext is copied into chunk buffers, encrypted, framed and written out), not growing a
/// `Vec`.
fn encrypt_to_sink(e: Encryptor, plain: &[u8]) {
    let mut w = e.writer(io::sink()).unwrap();
    let _ = w.copy_from(&mut &plain[..]).unwrap();
    let _ = w.finish().unwrap();
}

/// Decrypts and reads the plaintext in place (`BufRead`), keeping only its length.
fn decrypt(d: &Decryptor, msg: &[u8]) -> usize {
    let mut r = d.reader(msg).unwrap();
    let mut total = 0;
    loop {
        let n = r.fill_buf().unwrap().len();
        if n == 0 {
            break;
        }
        r.consume(n);
        total += n;
    }
    let _ = r.finish().unwrap();
    total
}

/// Benchmarks `encrypt/<label>` (encryptors from `make`) and `decrypt/<label>` (of one message
/// made by `make`, with `threads`). As a program that handles many messages does, the
/// encryptors share one buffer pool and one decryptor serves every iteration, so that each
/// message reuses the chunk buffers the one before left.
fn encrypt_and_decrypt(
    group: &mut BenchmarkGroup<'_, WallTime>,
    label: &str,
    make: impl Fn() -> Encryptor,
    plain: &[u8],
    key: &Tsk,
    threads: Option<usize>,
) {
    let pool = BufferPool::default();
    let _ = group.bench_with_input(BenchmarkId::new("encrypt", label), plain, |b, plain| {
        b.iter(|| encrypt_to_sink(make().buffer_pool(pool.clone()), plain))
    });
    let msg = encrypt(make(), plain);
    let mut d = Decryptor::new([key]);
    if let Some(n) = threads {
        d = d.threads(n);
    }
    let _ = group
        .bench_with_input(BenchmarkId::new("decrypt", label), &msg, |b, msg| b.iter(|| decrypt(&d, msg)));
}

/// A group of a few samples of about 2 s each (the messages are large, and the run should stay
/// short on a small machine).
fn short_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    let _ = group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group
}

fn suites(c: &mut Criterion, key: &Tsk, cert: &Cert) {
    let len = 1 << 24;
    let plain = vec![0x5au8; len];
    let mut group = short_group(c, "suite");
    let _ = group.throughput(Throughput::Bytes(len as u64));
    for (sym, aead, name) in SUITES {
        for chunk in CHUNKS {
            for threads in [Some(1), None] {
                let label = format!(
                    "{name}/chunk-{}K/threads-{}",
                    chunk >> 10,
                    threads.map_or("all".into(), |n| n.to_string())
                );
                let make = || {
                    let e = Encryptor::new([cert]).cipher_suite(sym, aead).chunk_size(chunk);
                    match threads {
                        Some(n) => e.threads(n),
                        None => e,
                    }
                };
                encrypt_and_decrypt(&mut group, &label, make, &plain, key, threads);
            }
        }
    }
    group.finish();
}

fn sizes(c: &mut Criterion, key: &Tsk, cert: &Cert) {
    let mut group = short_group(c, "size");
    for len in SIZES {
        let plain = vec![0x5au8; len];
        let _ = group.throughput(Throughput::Bytes(len as u64));
        encrypt_and_decrypt(&mut group, &len.to_string(), || Encryptor::new([cert]), &plain, key, None);
    }
    group.finish();
}

fn armored(c: &mut Criterion, key: &Tsk, cert: &Cert) {
    let len = 1 << 24;
    let plain = vec![0x5au8; len];
    let mut group = short_group(c, "armored");
    let _ = group.throughput(Throughput::Bytes(len as u64));
    for threads in [Some(1), None] {
        let label = format!("threads-{}", threads.map_or("all".into(), |n| n.to_string()));
        let make = || {
            let e = Encryptor::new([cert]).armor(true);
            match threads {
                Some(n) => e.threads(n),
                None => e,
            }
        };
        encrypt_and_decrypt(&mut group, &label, make, &plain, key, threads);
    }
    group.finish();
}

fn throughput(c: &mut Criterion) {
    let key = KeyBuilder::new(Profile::Rfc9580).user_id("Bench <bench@example.org>").generate().unwrap();
    let cert = key.to_cert();
    suites(c, &key, &cert);
    sizes(c, &key, &cert);
    armored(c, &key, &cert);
}

criterion_group!(benches, throughput);
criterion_main!(benches);
