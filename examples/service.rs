//! One decryptor, built once from owned keys, shared by several threads, each decrypting its
//! own messages: the reusable part (keys, expanded post-quantum keys, limits) lives in the
//! `Decryptor`, each message gets its own reader.
//!
//! `cargo run --example service` runs a self-contained demonstration.

use std::io::Read;
use std::sync::Arc;
use std::thread;

use sixpgp::{Decryptor, Encryptor, KeyBuilder, Limits, Profile};

fn main() -> sixpgp::Result<()> {
    let key = KeyBuilder::new(Profile::Pqc).user_id("Service <service@example.org>").generate()?;
    let cert = key.to_cert();

    // Built once: the key moves into the decryptor, which lives as long as the service.
    let decryptor = Arc::new(Decryptor::new([key]).limits(Limits::default()));

    let workers: Vec<_> = (0..4u32)
        .map(|worker| {
            let decryptor = Arc::clone(&decryptor);
            let cert = cert.clone();
            thread::spawn(move || -> sixpgp::Result<usize> {
                let mut done = 0;
                for i in 0..5u32 {
                    let text = format!("message {i} for worker {worker}");
                    let message = Encryptor::new([&cert]).encrypt_bytes(text.as_bytes())?;
                    let mut reader = decryptor.reader(&message[..])?;
                    let mut plaintext = String::new();
                    let _ = reader.read_to_string(&mut plaintext)?;
                    let _summary = reader.finish()?;
                    assert_eq!(plaintext, text);
                    done += 1;
                }
                Ok(done)
            })
        })
        .collect();
    let mut total = 0;
    for w in workers {
        total += w.join().map_err(|_| sixpgp::Error::InvalidArgument("worker panicked"))??;
    }
    println!("{total} messages decrypted by 4 threads sharing one decryptor");
    Ok(())
}
