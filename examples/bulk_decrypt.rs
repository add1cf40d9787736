//! Decrypts a batch of small messages with one `Decryptor` on all cores
//! (`Decryptor::decrypt_all`) and prints messages per second, for X25519 and
//! ML-KEM-768+X25519 keys.
//!
//! `cargo run --release --example bulk_decrypt [MESSAGES [THREADS]]` (default 20 000 messages
//! of 100 octets, all cores).

use std::io::Write;
use std::time::Instant;

use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};

fn main() -> sixpgp::Result<()> {
    let count: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let threads = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    for profile in [Profile::Rfc9580, Profile::Pqc] {
        let key = KeyBuilder::new(profile).user_id("Bulk <bulk@example.org>").generate()?;
        let cert = key.to_cert();
        // A few hundred distinct messages, reused round robin (encryption is not measured).
        let distinct: Vec<Vec<u8>> = (0..count.min(500))
            .map(|i| {
                let mut w = Encryptor::new([&cert]).writer(Vec::new())?;
                w.write_all(&[u8::try_from(i % 251).unwrap_or(0); 100])?;
                w.finish()
            })
            .collect::<sixpgp::Result<_>>()?;
        let batch: Vec<&[u8]> = (0..count).map(|i| distinct[i % distinct.len()].as_slice()).collect();
        // One decryptor for the whole batch, spread over `threads` threads.
        let decryptor = Decryptor::new([&key]).threads(threads);
        let start = Instant::now();
        let total = decryptor
            .decrypt_all(&batch)
            .into_iter()
            .map(|r| r.map(|(plain, _)| plain.len()))
            .sum::<sixpgp::Result<usize>>()?;
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(total, 100 * count);
        println!(
            "{:<8} {count} messages of 100 octets on {threads} threads: {:.0} messages/s",
            profile.name(),
            count as f64 / secs
        );
    }
    Ok(())
}
