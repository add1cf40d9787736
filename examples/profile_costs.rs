//! The cost of each small-message operation in each key profile, measured side by side in one
//! process on one thread: signing (the key passed by reference and as an `Arc`), verifying,
//! encrypting to one certificate, decrypting with a reused `Decryptor`, and key generation.
//!
//! ```text
//! cargo run --release --example profile_costs [ROUNDS [ITERATIONS]]
//!     ROUNDS (default 5) interleaved rounds of every operation in both profiles, ITERATIONS
//!     (default 200) operations on 100-octet messages each; prints the median per operation
//!     in µs, wall time and, where /proc gives it, the thread's CPU time, and the ratio of the
//!     security profile to the default one.
//! ```

use std::io::Read;
use std::sync::Arc;
use std::time::Instant;

use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile, Signer, Tsk, Verifier};

/// The operations, in the order they are printed.
const OPS: [&str; 6] = ["sign (by reference)", "sign (Arc)", "verify", "encrypt", "decrypt", "generate key"];
/// The profiles compared: the default one first, the ratio is the second over the first.
const PROFILES: [Profile; 2] = [Profile::Rfc9580, Profile::Pqc];

/// Everything one profile's operations need, made once.
struct Fixture {
    key: Tsk,
    shared: Arc<Tsk>,
    signature: Vec<u8>,
    message: Vec<u8>,
    decryptor: Decryptor,
}

fn fixture(profile: Profile, data: &[u8]) -> sixpgp::Result<Fixture> {
    let key = KeyBuilder::new(profile).user_id("Costs <costs@example.org>").generate()?;
    let shared = Arc::new(key.clone());
    let signature = Signer::new().key(&key).sign_bytes(data)?;
    let message = Encryptor::new([&key.to_cert()]).encrypt_bytes(data)?;
    let decryptor = Decryptor::new([&key]);
    Ok(Fixture { key, shared, signature, message, decryptor })
}

/// This thread's CPU time in nanoseconds, where Linux's /proc tells it.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Runs `op` `n` times; returns (wall, CPU) µs per operation (CPU 0 where unknown).
fn time(n: usize, mut op: impl FnMut() -> sixpgp::Result<()>) -> sixpgp::Result<(f64, f64)> {
    let cpu0 = thread_cpu_ns();
    let start = Instant::now();
    for _ in 0..n {
        op()?;
    }
    let wall = start.elapsed().as_secs_f64() * 1e6 / n as f64;
    let cpu = match (cpu0, thread_cpu_ns()) {
        (Some(a), Some(b)) => b.saturating_sub(a) as f64 / 1e3 / n as f64,
        _ => 0.0,
    };
    Ok((wall, cpu))
}

/// One operation of `f`'s fixture.
fn run(op: &str, f: &Fixture, profile: Profile, data: &[u8]) -> sixpgp::Result<()> {
    match op {
        "sign (by reference)" => Signer::new().key(&f.key).sign_bytes(data).map(drop),
        "sign (Arc)" => Signer::new().key(Arc::clone(&f.shared)).sign_bytes(data).map(drop),
        "verify" => {
            let v = Verifier::new([&f.key.to_cert()]).verify_bytes(&f.signature, data)?;
            if v.iter().all(|v| v.is_good()) { Ok(()) } else { Err(sixpgp::Error::BadSignature("verify")) }
        }
        "encrypt" => Encryptor::new([&f.key.to_cert()]).encrypt_bytes(data).map(drop),
        "decrypt" => {
            let mut reader = f.decryptor.reader(f.message.as_slice())?;
            let mut out = Vec::new();
            let _ = reader.read_to_end(&mut out)?;
            reader.finish().map(drop)
        }
        _ => KeyBuilder::new(profile).user_id("Costs <costs@example.org>").generate().map(drop),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let rounds = args.first().copied().unwrap_or(5).max(1);
    let iterations = args.get(1).copied().unwrap_or(200).max(1);
    let data = [0x42u8; 100];
    let fixtures = PROFILES.iter().map(|&p| fixture(p, &data)).collect::<sixpgp::Result<Vec<_>>>()?;
    // [op][profile] -> per-round (wall, CPU) figures.
    let mut wall = vec![vec![Vec::new(); PROFILES.len()]; OPS.len()];
    let mut cpu = wall.clone();
    for round in 0..rounds {
        for (o, op) in OPS.iter().enumerate() {
            // Key generation is slow: a tenth of the iterations.
            let n = if *op == "generate key" { iterations.div_ceil(10) } else { iterations };
            // The order of the profiles alternates from round to round.
            for i in 0..PROFILES.len() {
                let p = if round % 2 == 0 { i } else { PROFILES.len() - 1 - i };
                let (w, c) = time(n, || run(op, &fixtures[p], PROFILES[p], &data))?;
                wall[o][p].push(w);
                cpu[o][p].push(c);
            }
        }
    }
    println!(
        "{rounds} interleaved rounds of {iterations} operations (100 octets), one thread; medians, µs per operation"
    );
    println!(
        "{:<20} {:>12} {:>12} {:>12} {:>12} {:>10} {:>10}",
        "operation",
        "default wall",
        "security wall",
        "default CPU",
        "security CPU",
        "wall ratio",
        "CPU ratio"
    );
    for (o, op) in OPS.iter().enumerate() {
        let (dw, sw) = (median(&mut wall[o][0]), median(&mut wall[o][1]));
        let (dc, sc) = (median(&mut cpu[o][0]), median(&mut cpu[o][1]));
        let ratio = |a: f64, b: f64| if a > 0.0 { format!("{:.2}x", b / a) } else { "-".into() };
        println!(
            "{op:<20} {dw:>12.1} {sw:>13.1} {dc:>12.1} {sc:>12.1} {:>10} {:>10}",
            ratio(dw, sw),
            ratio(dc, sc)
        );
    }
    // The cost of passing the key by reference against sharing it as an `Arc`.
    for (p, profile) in PROFILES.iter().enumerate() {
        let by_ref = median(&mut wall[0][p]);
        let arc = median(&mut wall[1][p]);
        println!("{:<8} signing key by reference / as Arc: {:.2}x", profile.name(), by_ref / arc);
    }
    Ok(())
}
