//! The AEAD of one SEIPDv2 chunk, in place, one core: what `openssl speed -evp aes-256-ocb
//! -bytes 262144` measures (with `-decrypt` for decryption). `cargo bench --features
//! bench-internals --bench aead`; `SECTIONS=aead scripts/compare.sh` runs both side by side.
#![allow(missing_docs, reason = "criterion_group! generates an undocumented function")]
#![allow(clippy::unwrap_used, reason = "a benchmark fails loudly")]

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sixpgp::bench_internals::KeyedAead;
use sixpgp::{AeadAlgorithm, SymmetricAlgorithm};

const SUITES: [(SymmetricAlgorithm, AeadAlgorithm, &str); 5] = [
    (SymmetricAlgorithm::Aes128, AeadAlgorithm::Ocb, "aes128-ocb"),
    (SymmetricAlgorithm::Aes256, AeadAlgorithm::Ocb, "aes256-ocb"),
    (SymmetricAlgorithm::Aes128, AeadAlgorithm::Gcm, "aes128-gcm"),
    (SymmetricAlgorithm::Aes256, AeadAlgorithm::Gcm, "aes256-gcm"),
    (SymmetricAlgorithm::Aes256, AeadAlgorithm::Eax, "aes256-eax"),
];

fn aead(c: &mut Criterion) {
    let mut group = c.benchmark_group("aead");
    for len in [1 << 10, 1 << 14, 1 << 18] {
        let _ = group.throughput(Throughput::Bytes(len as u64));
        for (sym, mode, name) in SUITES {
            let key = vec![0x42u8; sym.key_len().unwrap()];
            let cipher = KeyedAead::new(sym, mode, &key).unwrap();
            let nonce = vec![0x24u8; mode.nonce_len().unwrap()];
            let mut buf = vec![0x5au8; len];
            let _ = group.bench_function(BenchmarkId::new(format!("{name}/encrypt"), len), |b| {
                b.iter(|| cipher.seal(&nonce, b"\xd2\x02\x09\x02\x10", &mut buf).unwrap())
            });
            let mut msg = vec![0x5au8; len];
            let tag = cipher.seal(&nonce, b"\xd2\x02\x09\x02\x10", &mut msg).unwrap();
            // Decrypting in place turns the buffer into plaintext: each run gets a fresh copy of
            // the ciphertext, made outside the timed part (the copy is not negligible against the
            // decryption).
            let _ = group.bench_function(BenchmarkId::new(format!("{name}/decrypt"), len), |b| {
                b.iter_batched_ref(
                    || msg.clone(),
                    |buf| cipher.open(&nonce, b"\xd2\x02\x09\x02\x10", buf, &tag).unwrap(),
                    BatchSize::LargeInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, aead);
criterion_main!(benches);
