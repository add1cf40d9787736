//! 100 MiB encrypted and decrypted through the async adapters at once (two tokio tasks joined
//! by a small pipe), at bounded memory: neither side holds the message. A test binary of its
//! own, so that the process's peak memory is this test's alone.
#![cfg(all(feature = "async", target_os = "linux"))]
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation, reason = "a test fails by panicking")]

use std::sync::Arc;

use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::compat::{
    FuturesAsyncReadCompatExt, FuturesAsyncWriteCompatExt, TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt,
};

/// Peak resident memory of this process (VmHWM), KiB.
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap();
    line.trim().trim_end_matches("kB").trim().parse().unwrap()
}

const SIZE: usize = 100 << 20;

fn byte(i: usize) -> u8 {
    (i * 13 + i / 65_521) as u8
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundred_mib_round_trip_at_bounded_memory() {
    let alice = Arc::new(KeyBuilder::new(Profile::Rfc9580).user_id("alice").generate().unwrap());
    let cert = alice.to_cert();
    let (pipe_in, pipe_out) = tokio::io::duplex(256 * 1024);
    let before = peak_kib();

    let writer = tokio::spawn(async move {
        let mut w = Encryptor::new([cert]).async_writer(pipe_in.compat_write()).await.unwrap().compat_write();
        let mut block = vec![0u8; 1 << 20];
        let mut written = 0;
        while written < SIZE {
            for (k, b) in block.iter_mut().enumerate() {
                *b = byte(written + k);
            }
            w.write_all(&block).await.unwrap();
            written += block.len();
        }
        let mut sink = w.into_inner().finish().await.unwrap().into_inner();
        sink.shutdown().await.unwrap();
    });

    let decryptor = Arc::new(Decryptor::new([alice]));
    let mut r = decryptor.async_reader(pipe_out.compat()).unwrap().compat();
    let mut buf = vec![0u8; 256 * 1024];
    let mut read = 0;
    loop {
        let n = r.read(&mut buf).await.unwrap();
        if n == 0 {
            break;
        }
        assert!(buf[..n].iter().enumerate().all(|(k, b)| *b == byte(read + k)), "at {read}");
        read += n;
    }
    let _summary = r.into_inner().finish().await.unwrap();
    writer.await.unwrap();
    assert_eq!(read, SIZE);
    let grown = peak_kib().saturating_sub(before);
    // The chunk pipelines' in-flight bounds (8 MiB each way), the channels and spool, thread
    // stacks: far below the 100 MiB that went through.
    assert!(grown < 32 * 1024, "peak memory grew by {grown} KiB");
    eprintln!("peak memory grew by {grown} KiB for {} MiB each way", SIZE >> 20);
}
