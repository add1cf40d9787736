//! Encryption of 256 KiB to 1, 10 and 50 recipients, X25519 (`encrypt_256KiB`) and
//! ML-KEM-768+X25519 (`encrypt_256KiB_pqc`, the pqc-encryption profile: Ed25519 self-signatures):
//! per recipient the checks of the certificate's self-signatures (direct-key signature and
//! subkey binding), one KEM and one key wrap; the data is encrypted once.
//!
//! A `Cert` remembers the signature checks it has done, so each iteration gets freshly parsed
//! certificates (parsing is not timed), as a process that reads them from files would.
//!
//! `encrypt_256KiB_prepared` encrypts to the same 50 X25519 certificates evaluated once
//! beforehand (`Recipients`), as a mailing list or backup tool would for message after message:
//! per recipient only the key agreement and the key wrap remain.
#![allow(missing_docs, reason = "criterion_group! generates an undocumented function")]
#![allow(clippy::unwrap_used, reason = "a benchmark fails loudly")]

use std::io::Write;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use std::sync::Arc;
use std::time::SystemTime;

use sixpgp::{BufferPool, Cert, Encryptor, KeyBuilder, Profile, Purpose, Recipients};

const SIZE: usize = 256 * 1024;

fn certs(profile: Profile) -> Vec<Vec<u8>> {
    (0..50)
        .map(|i| {
            KeyBuilder::new(profile)
                .user_id(format!("R{i} <r{i}@example.org>"))
                .generate()
                .unwrap()
                .to_cert()
                .to_vec()
        })
        .collect()
}

fn recipients(c: &mut Criterion) {
    let plain = vec![0x5au8; SIZE];
    // One pool for the encryptors, as a program that sends many messages keeps: each message
    // reuses the chunk buffer the one before left.
    let pool = BufferPool::default();
    let mut group = c.benchmark_group("recipients");
    let _ = group.sample_size(20);
    for (name, profile) in
        [("encrypt_256KiB", Profile::Rfc9580), ("encrypt_256KiB_pqc", Profile::PqcEncryption)]
    {
        let certs = certs(profile);
        for n in [1usize, 10, 50] {
            let to = &certs[..n];
            let _ = group.bench_with_input(BenchmarkId::new(name, n), &plain, |b, plain| {
                b.iter_batched(
                    || to.iter().map(|c| Cert::from_bytes(c).unwrap()).collect::<Vec<Cert>>(),
                    |to| {
                        let mut w = Encryptor::new(to)
                            .buffer_pool(pool.clone())
                            .writer(Vec::with_capacity(SIZE + 4096 + n * 100))
                            .unwrap();
                        w.write_all(plain).unwrap();
                        w.finish().unwrap()
                    },
                    BatchSize::SmallInput,
                )
            });
        }
        if profile == Profile::Rfc9580 {
            for n in [1usize, 10, 50] {
                let to: Vec<Cert> = certs[..n].iter().map(|c| Cert::from_bytes(c).unwrap()).collect();
                let prepared = Arc::new(Recipients::new(&to, SystemTime::now(), Purpose::Any).unwrap());
                let id = BenchmarkId::new("encrypt_256KiB_prepared", n);
                let _ = group.bench_with_input(id, &plain, |b, plain| {
                    b.iter(|| {
                        let mut w = Encryptor::default()
                            .buffer_pool(pool.clone())
                            .prepared(Arc::clone(&prepared))
                            .writer(Vec::with_capacity(SIZE + 4096 + n * 100))
                            .unwrap();
                        w.write_all(plain).unwrap();
                        w.finish().unwrap()
                    })
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, recipients);
criterion_main!(benches);
