//! The `futures-io` adapters (feature `async`) under a tokio runtime, through `tokio-util`'s
//! compat layer: round trips, sign+encrypt and decrypt+verify, inline signing and
//! verification, and truncated or tampered messages failing exactly as on the blocking path.
#![cfg(feature = "async")]
#![allow(
    clippy::unwrap_used,
    clippy::cast_possible_truncation,
    reason = "a test fails by panicking; test data comes from small counters"
)]

use std::io::{Read, Write};
use std::sync::Arc;

use sixpgp::{Cert, Decryptor, Encryptor, Error, KeyBuilder, Profile, SignatureMode, Signer, Tsk, Verifier};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::compat::{FuturesAsyncReadCompatExt, FuturesAsyncWriteCompatExt};

fn key(name: &str) -> (Arc<Tsk>, Cert) {
    let tsk = KeyBuilder::new(Profile::Rfc9580).user_id(name).generate().unwrap();
    let cert = tsk.to_cert();
    (Arc::new(tsk), cert)
}

fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

/// Encrypts `plaintext` through the async writer, writing it in pieces of `step`.
async fn encrypt_async(encryptor: Encryptor, plaintext: &[u8], step: usize) -> Vec<u8> {
    let mut w = encryptor.async_writer(Vec::new().compat_write_vec()).await.unwrap().compat_write();
    for piece in plaintext.chunks(step) {
        w.write_all(piece).await.unwrap();
    }
    w.into_inner().finish().await.unwrap().into_inner()
}

/// Decrypts through the async reader: the plaintext read, and the end (`finish`'s result or
/// the first error).
async fn decrypt_async(
    decryptor: &Arc<Decryptor>,
    message: &[u8],
) -> (Vec<u8>, Result<sixpgp::DecryptSummary, Error>) {
    let mut r = Arc::clone(decryptor).async_reader(futures_source(message.to_vec())).unwrap().compat();
    let mut out = Vec::new();
    let mut buf = vec![0u8; 10_000];
    loop {
        match r.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Err(Error::from_io(e))),
        }
    }
    (out, r.into_inner().finish().await)
}

/// The blocking path's answer for the same message.
fn decrypt_blocking(
    decryptor: &Decryptor,
    message: &[u8],
) -> (Vec<u8>, Result<sixpgp::DecryptSummary, Error>) {
    let mut r = match decryptor.reader(message) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Err(e)),
    };
    let mut out = Vec::new();
    let mut buf = vec![0u8; 10_000];
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Err(Error::from_io(e))),
        }
    }
    (out, r.finish())
}

/// A `futures-io` source over owned bytes.
fn futures_source(bytes: Vec<u8>) -> impl futures_io::AsyncRead + Unpin + Send + 'static {
    tokio_util::compat::TokioAsyncReadCompatExt::compat(std::io::Cursor::new(bytes))
}

/// `Vec<u8>` as a `futures-io` sink.
trait VecSink {
    fn compat_write_vec(self) -> tokio_util::compat::Compat<Vec<u8>>;
}

impl VecSink for Vec<u8> {
    fn compat_write_vec(self) -> tokio_util::compat::Compat<Vec<u8>> {
        tokio_util::compat::TokioAsyncWriteCompatExt::compat_write(self)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_trip_matches_the_blocking_path() {
    let (alice, cert) = key("alice");
    let decryptor = Arc::new(Decryptor::new([Arc::clone(&alice)]));
    for len in [0, 1, 4095, 4096, 200_000, 1 << 20] {
        let plaintext = data(len);
        let message = encrypt_async(Encryptor::new([cert.clone()]).chunk_size(4096), &plaintext, 7777).await;
        // The blocking reader reads what the async writer wrote, and the other way round.
        assert_eq!(decrypt_blocking(&decryptor, &message).0, plaintext);
        let (out, end) = decrypt_async(&decryptor, &message).await;
        assert_eq!(out, plaintext, "{len}");
        let _summary = end.unwrap();
        let mut w = Encryptor::new([cert.clone()]).armor(true).writer(Vec::new()).unwrap();
        w.write_all(&plaintext).unwrap();
        let (out, end) = decrypt_async(&decryptor, &w.finish().unwrap()).await;
        assert_eq!(out, plaintext);
        let _summary = end.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_encrypt_then_decrypt_verify() {
    let (alice, alice_cert) = key("alice");
    let (bob, bob_cert) = key("bob");
    let plaintext = data(300_000);
    let message =
        encrypt_async(Encryptor::new([bob_cert]).signer(Arc::clone(&alice)).armor(true), &plaintext, 10_000)
            .await;
    let decryptor = Arc::new(Decryptor::new([bob]).verify_with([alice_cert.clone()]));
    let (out, end) = decrypt_async(&decryptor, &message).await;
    assert_eq!(out, plaintext);
    let summary = end.unwrap();
    assert_eq!(summary.verifications.len(), 1);
    assert!(summary.verifications[0].is_good());
    assert_eq!(summary.verifications[0].cert(), Some(alice_cert.fingerprint()));

    // Inline signing and verification, async both ways.
    let mut w = Signer::new()
        .key(Arc::clone(&alice))
        .mode(SignatureMode::Binary)
        .async_inline_writer(Vec::new().compat_write_vec())
        .await
        .unwrap()
        .compat_write();
    w.write_all(&plaintext).await.unwrap();
    let signed = w.into_inner().finish().await.unwrap().into_inner();
    let mut r = Verifier::new([alice_cert]).async_inline_reader(futures_source(signed)).unwrap().compat();
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).await.unwrap();
    assert_eq!(out, plaintext);
    let verdicts = r.into_inner().finish().await.unwrap();
    assert!(verdicts.iter().all(|v| v.is_good()) && verdicts.len() == 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncated_and_tampered_messages_fail_as_on_the_blocking_path() {
    let (alice, cert) = key("alice");
    let decryptor = Arc::new(Decryptor::new([alice]));
    let plaintext = data(3000);
    let message = encrypt_async(Encryptor::new([cert]).chunk_size(64), &plaintext, 1000).await;
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for cut in
        (0..message.len()).step_by(37).chain([message.len() - 1, message.len() - 16, message.len() - 17])
    {
        cases.push(message[..cut].to_vec());
    }
    for pos in (0..message.len()).step_by(53).chain([message.len() - 1]) {
        let mut flipped = message.clone();
        flipped[pos] ^= 0x10;
        cases.push(flipped);
    }
    let mut extra = message.clone();
    extra.push(0);
    cases.push(extra);
    for case in &cases {
        let (blocking_out, blocking) = decrypt_blocking(&decryptor, case);
        let (async_out, asynchronous) = decrypt_async(&decryptor, case).await;
        let blocking = blocking.map(|_| ()).unwrap_err();
        let asynchronous = asynchronous.map(|_| ()).unwrap_err();
        assert_eq!(format!("{asynchronous:?}"), format!("{blocking:?}"), "{} octets", case.len());
        // The same plaintext is released before the error (only authenticated chunks).
        assert_eq!(async_out, blocking_out);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_sink_poisons_the_writer() {
    #[derive(Debug)]
    struct Broken;
    impl futures_io::AsyncWrite for Broken {
        fn poll_write(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            _: &[u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            std::task::Poll::Ready(Err(std::io::Error::other("disk full")))
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_close(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }
    let (_, cert) = key("alice");
    let mut w = Encryptor::new([cert]).chunk_size(64).async_writer(Broken).await.unwrap().compat_write();
    let mut failed = None;
    for _ in 0..10 {
        if let Err(e) = w.write_all(&[0u8; 1000]).await {
            failed = Some(e);
            break;
        }
    }
    assert!(failed.unwrap().to_string().contains("disk full"));
    // Every later call reports the first error again, and so does finish.
    let again = w.write_all(b"x").await.unwrap_err();
    assert!(again.to_string().contains("disk full"), "{again}");
    let err = w.into_inner().finish().await.unwrap_err();
    assert!(matches!(&err, Error::Io(e) if e.to_string().contains("disk full")), "{err:?}");
}

/// An RNG that notes the thread of every draw.
struct ThreadNoting {
    state: u64,
    threads: Arc<std::sync::Mutex<Vec<std::thread::ThreadId>>>,
}

impl sixpgp::rand_core::TryRng for ThreadNoting {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.try_next_u64()? as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.threads.lock().unwrap().push(std::thread::current().id());
        self.state =
            self.state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        Ok(self.state)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let v = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(())
    }
}

impl sixpgp::rand_core::TryCryptoRng for ThreadNoting {}

/// The set-up of an async writer (here an Argon2 run for the password, and the key agreement
/// with the recipient) is done off the executor's thread: the randomness it draws (the session
/// key, the S2K salt, the ephemeral key) is drawn elsewhere, and the message still decrypts.
#[tokio::test(flavor = "current_thread")]
async fn async_writer_set_up_runs_off_the_executor() {
    let (tsk, cert) = key("alice");
    let threads = Arc::new(std::sync::Mutex::new(Vec::new()));
    let rng = ThreadNoting { state: 7, threads: Arc::clone(&threads) };
    let executor = std::thread::current().id();
    let mut w = Encryptor::new([cert])
        .password("pw")
        .rng(rng)
        .async_writer(Vec::new().compat_write_vec())
        .await
        .unwrap()
        .compat_write();
    let set_up = threads.lock().unwrap().clone();
    assert!(!set_up.is_empty());
    assert!(set_up.iter().all(|t| *t != executor), "set-up drew randomness on the executor's thread");
    w.write_all(b"set up elsewhere").await.unwrap();
    let message = w.into_inner().finish().await.unwrap().into_inner();
    for decryptor in [Decryptor::new([tsk]), Decryptor::new(Vec::<Tsk>::new()).password("pw")] {
        assert_eq!(decryptor.decrypt_bytes(&message).unwrap().0, b"set up elsewhere");
    }
}
