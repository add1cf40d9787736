//! Key generation throughput per profile.
#![allow(missing_docs, reason = "criterion_group! generates an undocumented function")]

use criterion::{Criterion, criterion_group, criterion_main};
use sixpgp::{KeyBuilder, Profile};

fn keygen(c: &mut Criterion) {
    let mut group = c.benchmark_group("keygen");
    for profile in Profile::ALL {
        let _ = group.bench_function(profile.name(), |b| {
            b.iter(|| KeyBuilder::new(profile).user_id("Bench <bench@example.org>").generate())
        });
    }
    group.finish();
}

criterion_group!(benches, keygen);
criterion_main!(benches);
