//! Encryption and decryption throughput, 1 KiB to 16 MiB, X25519 recipient.
#![allow(missing_docs, reason = "criterion_group! generates an undocumented function")]
#![allow(clippy::unwrap_used, reason = "a benchmark fails loudly")]

use std::io::{Read, Write};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};

const SIZES: [usize; 4] = [1 << 10, 1 << 16, 1 << 20, 1 << 24];

fn throughput(c: &mut Criterion) {
    let key = KeyBuilder::new(Profile::Rfc9580).user_id("Bench <bench@example.org>").generate().unwrap();
    let cert = key.to_cert();
    let mut group = c.benchmark_group("message");
    let _ = group.sample_size(10);
    for size in SIZES {
        let plain = vec![0x5au8; size];
        let _ = group.throughput(Throughput::Bytes(size as u64));
        let _ = group.bench_with_input(BenchmarkId::new("encrypt", size), &plain, |b, plain| {
            b.iter(|| {
                let mut w = Encryptor::new([&cert]).writer(Vec::with_capacity(size + 4096)).unwrap();
                w.write_all(plain).unwrap();
                w.finish().unwrap()
            })
        });
        let mut w = Encryptor::new([&cert]).writer(Vec::new()).unwrap();
        w.write_all(&plain).unwrap();
        let msg = w.finish().unwrap();
        let _ = group.bench_with_input(BenchmarkId::new("decrypt", size), &msg, |b, msg| {
            b.iter(|| {
                let mut r = Decryptor::new([&key]).reader(&msg[..]).unwrap();
                let mut out = Vec::with_capacity(size);
                let _ = r.read_to_end(&mut out).unwrap();
                out
            })
        });
    }
    group.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
