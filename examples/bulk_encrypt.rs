//! Encrypts a batch of small values to one recipient with one `Encryptor` on all cores
//! (`Encryptor::encrypt_all`), checks a sample by decryption, and prints messages per second.
//!
//! ```text
//! cargo run --release --example bulk_encrypt [MESSAGES [THREADS]]
//!     MESSAGES (default 100 000) values of 100 octets, in memory, to an X25519 key
//!     (profile rfc9580) and to an ML-KEM-768+X25519 key (profile pqc); the best of three
//!     rounds each.
//! ```

use std::time::Instant;

use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};

/// Rounds per profile; the best counts (the machine may be shared).
const ROUNDS: usize = 3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let threads = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let values: Vec<[u8; 100]> = (0..count).map(|i| [u8::try_from(i % 251).unwrap_or(0); 100]).collect();
    for profile in [Profile::Rfc9580, Profile::Pqc] {
        let key = KeyBuilder::new(profile).user_id("Bulk <bulk@example.org>").generate()?;
        let encryptor = Encryptor::new([key.to_cert()]).threads(threads);
        let mut best = 0f64;
        let mut messages = Vec::new();
        for _ in 0..ROUNDS {
            let start = Instant::now();
            messages = encryptor.encrypt_all(&values)?;
            best = best.max(count as f64 / start.elapsed().as_secs_f64());
        }
        // A sample decrypts to its value.
        let decryptor = Decryptor::new([&key]);
        for i in (0..count).step_by((count / 100).max(1)) {
            if decryptor.decrypt_bytes(&messages[i])?.0 != values[i] {
                return Err(format!("message {i} does not decrypt to its value").into());
            }
        }
        println!(
            "{:<8} {count} values of 100 octets to one recipient on {threads} threads: {best:.0} messages/s ({} octets each)",
            profile.name(),
            messages.first().map_or(0, Vec::len)
        );
    }
    Ok(())
}
