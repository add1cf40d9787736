//! The tests of the async adapters.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing, reason = "test code")]

use std::future::Future;
use std::io::{self, Write};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use futures_io::{AsyncRead, AsyncWrite};

use super::read::DEPTH;
use super::{PIECE, lock};
use crate::error::Error;
use crate::key::{KeyBuilder, Profile};
use crate::message::{Decryptor, Encryptor, Signer};

/// An in-memory async source handing out `step` octets per poll.
struct Mem {
    data: Vec<u8>,
    pos: usize,
    step: usize,
}

impl AsyncRead for Mem {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, out: &mut [u8]) -> Poll<io::Result<usize>> {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let n = rest.len().min(out.len()).min(self.step);
        out[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Poll::Ready(Ok(n))
    }
}

/// Polls `f` to completion on this thread (the reader's thread wakes nothing we wait on:
/// spin with a short sleep).
fn block_on<T>(mut f: impl FnMut(&mut Context<'_>) -> Poll<T>) -> T {
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(t) = f(&mut cx) {
            return t;
        }
        std::thread::sleep(Duration::from_micros(50));
    }
}

/// A sink that is never ready: the spool keeps what the blocking writer produced.
struct Stuck;

impl AsyncWrite for Stuck {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Pending
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Pending
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Pending
    }
}

#[test]
fn a_dropped_writer_drops_its_spool() {
    let key = KeyBuilder::new(Profile::Rfc9580).user_id("a").generate().unwrap();
    // Inline-signed output carries the plaintext itself.
    let mut set_up = Box::pin(Signer::new().key(key).async_inline_writer(Stuck));
    let mut w = block_on(|cx| set_up.as_mut().poll(cx)).unwrap();
    let mut cx = Context::from_waker(Waker::noop());
    // The one-pass signature packets are in the spool, and the sink never takes them.
    assert!(matches!(Pin::new(&mut w).poll_write(&mut cx, &[0x42; 3000]), Poll::Pending));
    assert!(!lock(w.spool()).is_empty());
    let spool = Arc::downgrade(w.spool());
    drop(w);
    // Nothing else holds the spool: it was dropped, and it is zeroizing.
    assert!(spool.upgrade().is_none());
}

#[test]
fn a_dropped_reader_stops_its_thread_and_drops_every_buffer() {
    let key = KeyBuilder::new(Profile::Rfc9580).user_id("a").generate().unwrap();
    let cert = key.to_cert();
    let plaintext = vec![0x5a; 3 * PIECE * DEPTH];
    let mut w = Encryptor::new([cert]).chunk_size(4096).writer(Vec::new()).unwrap();
    w.write_all(&plaintext).unwrap();
    let message = w.finish().unwrap();

    let decryptor = Arc::new(Decryptor::new([key]));
    let mut r = decryptor.async_reader(Mem { data: message, pos: 0, step: 1000 }).unwrap();
    let mut out = [0u8; 100];
    let n = block_on(|cx| Pin::new(&mut r).poll_read(cx, &mut out)).unwrap();
    assert!(n > 0);
    let alive = r.alive();
    drop(r);
    // The thread ends (and with it the blocking reader and every queued piece, each of
    // them zeroizing) once it notices: its input is gone and its output refused.
    let start = Instant::now();
    while alive.upgrade().is_some() {
        assert!(start.elapsed() < Duration::from_secs(20), "the reader's thread is still running");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The thread gives up between S2K derivations once the stream is dropped, rather than
/// run every derivation the message and the passwords ask for first.
#[test]
fn a_dropped_reader_stops_between_s2k_derivations() {
    const WRONG: u32 = 8;
    let mut w = Encryptor::new(Vec::<crate::Cert>::new()).password("right").writer(Vec::new()).unwrap();
    w.write_all(b"x").unwrap();
    let message = w.finish().unwrap();
    let mut decryptor = Decryptor::new(Vec::<crate::Tsk>::new())
        .limits(crate::Limits::default().with_max_s2k_derivations(WRONG as usize));
    for i in 0..WRONG {
        decryptor = decryptor.password(format!("wrong {i}"));
    }
    // All the derivations, on the blocking path.
    let start = Instant::now();
    assert!(matches!(decryptor.decrypt_bytes(&message), Err(Error::BadPassword)));
    let all = start.elapsed();

    let decryptor = Arc::new(decryptor);
    let mut r = decryptor.async_reader(Mem { data: message, pos: 0, step: 1 << 20 }).unwrap();
    let mut out = [0u8; 16];
    let mut cx = Context::from_waker(Waker::noop());
    // The thread has the whole message and is in its first derivation.
    for _ in 0..100 {
        assert!(Pin::new(&mut r).poll_read(&mut cx, &mut out).is_pending());
    }
    std::thread::sleep(all / (WRONG * 2));
    let alive = r.alive();
    let start = Instant::now();
    drop(r);
    while alive.upgrade().is_some() {
        assert!(start.elapsed() < all * 2, "the reader's thread is still running");
        std::thread::sleep(Duration::from_millis(1));
    }
    // The derivation under way finishes; the other ones are not started.
    assert!(start.elapsed() < all / 2, "{:?} after the drop, {all:?} for every derivation", start.elapsed());
}
