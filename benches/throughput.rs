//! Encryption and decryption throughput, 1 KiB to 16 MiB, X25519 recipient.

use std::io::{Read, Write};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};

const SIZES: [usize; 4] = [1 << 10, 1 << 16, 1 << 20, 1 << 24];

fn throughput(c: &mut Criterion) {
    let key = KeyBuilder::new(Profile::Rfc9580).user_id("Bench <bench@example.org>").generate().unwrap();
    let cert = key.to_cert();
    let mut group = c.benchmark_group("message");
    group.sample_size(10);
    for size in SIZES {
        let plain = vec![0x5au8; size];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("encrypt", size), &plain, |b, plain| {
            b.iter(|| {
                let mut w = Encryptor::new([&cert]).writer(Vec::with_capacity(size + 4096)).unwrap();
                w.write_all(plain).unwrap();
                w.finish().unwrap()
            })
        });
        let mut w = Encryptor::new([&cert]).writer(Vec::new()).unwrap();
        w.write_all(&plain).unwrap();
        let msg = w.finish().unwrap();
        group.bench_with_input(BenchmarkId::new("decrypt", size), &msg, |b, msg| {
            b.iter(|| {
                let mut r = Decryptor::new([&key]).reader(&msg[..]).unwrap();
                let mut out = Vec::with_capacity(size);
                r.read_to_end(&mut out).unwrap();
                out
            })
        });
    }
    group.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
