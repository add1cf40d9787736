//! Decrypting 100-octet messages with one `Decryptor`, X25519 and ML-KEM-768+X25519 keys:
//! per message on one thread ([`Decryptor::decrypt_bytes`]), and batches of 1 000 on all
//! cores ([`Decryptor::decrypt_all`]; throughput in messages per second), and batches of 1 000
//! values encrypted on all cores ([`Encryptor::encrypt_all`]). The examples
//! `cargo run --release --example bulk_decrypt` and `bulk_encrypt` do 100 000.
#![allow(missing_docs, reason = "criterion_group! generates an undocumented function")]
#![allow(clippy::unwrap_used, reason = "a benchmark fails loudly")]

use std::io::Write;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};

fn bulk(c: &mut Criterion) {
    let mut group = c.benchmark_group("bulk");
    let _ = group.sample_size(20);
    for profile in [Profile::Rfc9580, Profile::Pqc] {
        let key = KeyBuilder::new(profile).user_id("Bulk <bulk@example.org>").generate().unwrap();
        let cert = key.to_cert();
        let mut w = Encryptor::new([&cert]).writer(Vec::new()).unwrap();
        w.write_all(&[0x5a; 100]).unwrap();
        let msg = w.finish().unwrap();
        let decryptor = Decryptor::new([&key]).threads(1);
        let _ = group.throughput(Throughput::Elements(1));
        let _ = group.bench_with_input(BenchmarkId::new("decrypt_100B", profile.name()), &msg, |b, msg| {
            b.iter(|| decryptor.decrypt_bytes(msg).unwrap())
        });
        let batch = vec![msg.clone(); 1000];
        let all_cores = Decryptor::new([&key]);
        let _ = group.throughput(Throughput::Elements(1000));
        let _ = group.bench_with_input(
            BenchmarkId::new("decrypt_all_1000x100B", profile.name()),
            &batch,
            |b, batch| b.iter(|| all_cores.decrypt_all(batch).into_iter().map(Result::unwrap).count()),
        );
        let values = vec![[0x5a_u8; 100]; 1000];
        let encryptor = Encryptor::new([&cert]);
        let _ = group.bench_with_input(
            BenchmarkId::new("encrypt_all_1000x100B", profile.name()),
            &values,
            |b, values| b.iter(|| encryptor.encrypt_all(values).unwrap()),
        );
    }
    group.finish();
}

criterion_group!(benches, bulk);
criterion_main!(benches);
