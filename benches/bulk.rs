//! Per-message cost of decrypting 100-octet messages with one `Decryptor`
//! ([`Decryptor::decrypt_bytes`]), X25519 and ML-KEM-768+X25519 keys, one thread. For a
//! figure on all cores, run `cargo run --release --example bulk_decrypt`.
#![allow(missing_docs, reason = "criterion_group! generates an undocumented function")]
#![allow(clippy::unwrap_used, reason = "a benchmark fails loudly")]

use std::io::Write;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};

fn bulk(c: &mut Criterion) {
    let mut group = c.benchmark_group("bulk");
    let _ = group.sample_size(20);
    let _ = group.throughput(Throughput::Elements(1));
    for profile in [Profile::Rfc9580, Profile::Pqc] {
        let key = KeyBuilder::new(profile).user_id("Bulk <bulk@example.org>").generate().unwrap();
        let cert = key.to_cert();
        let mut w = Encryptor::new([&cert]).writer(Vec::new()).unwrap();
        w.write_all(&[0x5a; 100]).unwrap();
        let msg = w.finish().unwrap();
        let decryptor = Decryptor::new([&key]).threads(1);
        let _ = group.bench_with_input(BenchmarkId::new("decrypt_100B", profile.name()), &msg, |b, msg| {
            b.iter(|| decryptor.decrypt_bytes(msg).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bulk);
criterion_main!(benches);
