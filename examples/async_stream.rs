//! Encrypts and signs 8 MiB to a fresh key from async code, then decrypts and verifies it,
//! under tokio (through `tokio-util`'s compat layer), streaming through an in-memory pipe
//! whose two ends run as separate tasks. Self-contained: no arguments, no files.
//!
//! ```sh
//! cargo run --example async_stream --features async
//! ```

use std::sync::Arc;

use futures_io::AsyncWrite;
use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::compat::{
    FuturesAsyncReadCompatExt, FuturesAsyncWriteCompatExt, TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt,
};

const SIZE: usize = 8 << 20;

fn pattern(i: usize) -> u8 {
    u8::try_from((i * 31 + i / 4096) % 251).unwrap_or(0)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let alice = KeyBuilder::new(Profile::Pqc).user_id("Alice <alice@example.org>").generate()?;
    let cert = alice.to_cert();
    let alice = Arc::new(alice);

    // A pipe of 64 KiB: the writer task waits whenever the reader task falls behind.
    let (ciphertext_in, ciphertext_out) = tokio::io::duplex(64 * 1024);

    let writer = {
        let alice = Arc::clone(&alice);
        let cert = cert.clone();
        tokio::spawn(async move {
            let sink = ciphertext_in.compat_write();
            let w = Encryptor::new([cert]).signer(alice).async_writer(sink).await?;
            let mut w = w.compat_write();
            let block: Vec<u8> = (0..SIZE).map(pattern).collect();
            for piece in block.chunks(100_000) {
                w.write_all(piece).await?;
            }
            let mut sink = w.into_inner().finish().await?;
            futures_close(&mut sink).await?;
            Ok::<_, sixpgp::Error>(())
        })
    };

    let decryptor = Arc::new(Decryptor::new([alice]).verify_with([cert]));
    let mut r = decryptor.async_reader(ciphertext_out.compat())?.compat();
    let mut received = 0usize;
    let mut buf = vec![0u8; 50_000];
    loop {
        let n = r.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        for (k, b) in buf[..n].iter().enumerate() {
            if *b != pattern(received + k) {
                return Err("plaintext differs".into());
            }
        }
        received += n;
    }
    let summary = r.into_inner().finish().await?;
    writer.await??;
    assert_eq!(received, SIZE);
    let good = summary.verifications.iter().filter(|v| v.is_good()).count();
    println!("decrypted {received} octets through async streams; {good} good signature(s)");
    if good == 0 {
        return Err("no good signature".into());
    }
    Ok(())
}

/// Closes a `futures-io` writer (shuts the pipe down so the reader sees its end).
async fn futures_close<W: AsyncWrite + Unpin>(w: &mut W) -> std::io::Result<()> {
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *w).poll_close(cx)).await
}
