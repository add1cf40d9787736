//! `futures-io` adapters over the blocking streams (feature `async`): encryption, inline
//! signing, decryption and inline verification from async code, with the same fallible
//! `finish`, the same verdicts, the same errors and bounded memory. From tokio, wrap tokio's
//! I/O types with `tokio_util::compat` (`.compat()`, `.compat_write()`).
//!
//! Design, and what it costs:
//!
//! - Writers ([`AsyncEncryptWriter`], [`AsyncInlineSignWriter`]): their constructors are
//!   `async` and run the blocking writer's set-up (an Argon2 run per password, the key
//!   agreement with every recipient) on a thread of their own, so the executor is never
//!   blocked for it, as with any async `open`. Then the blocking writer writes into an internal
//!   spool, and `poll_write`, `poll_flush` and `poll_close` drain the spool into the async sink
//!   before the blocking writer is given more (at most [`PIECE`] octets per `poll_write`). That
//!   runs on the calling task (a chunk's AEAD costs microseconds); the cost is one more copy of
//!   the output, and the spool holds at most what one step of the blocking writer releases (a
//!   few chunks when its worker threads deliver several at once; all of them at `finish`).
//! - Readers ([`AsyncDecryptReader`], [`AsyncInlineVerifyReader`]): the blocking reader runs on
//!   a thread of its own, fed through two bounded channels ([`DEPTH`] pieces of at most
//!   [`PIECE`] octets each way); the thread wakes the task when it has taken input or produced
//!   output. The cost is one thread per stream and two more copies (input to the thread,
//!   plaintext back), and at most about `2 * DEPTH * PIECE` octets in the channels besides the
//!   blocking reader's own bound. Parsing, S2K runs and decryption may block that thread,
//!   never the async executor.
//!
//! Every buffer that carries data between the two sides is wiped when it is emptied or
//! dropped. Dropping an async reader before its end (a cancelled task) tells its thread, which
//! stops before its next piece, or before its next S2K run while it looks for the session key
//! (the run under way finishes), drops the blocking reader (which wipes its own buffers) and
//! ends.
//!
//! For input from the network, the decryptor or verifier should have
//! [`Limits::untrusted_input`](crate::Limits::untrusted_input): a message then costs at most
//! two Argon2 runs of at most 64 MiB on its thread. Each reader also holds a thread until its
//! stream ends or is dropped, so a server bounds how many it runs at once.

#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use std::future::poll_fn;
use std::io::{self, BufRead, Read, Write};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker, ready};

use futures_io::{AsyncRead, AsyncWrite};
use zeroize::Zeroize;

use crate::crypto::secret::{SecretVec, WipedArray};
use crate::error::{Error, Poison, Result};
use crate::message::{
    DecryptReader, DecryptSummary, Decryptor, EncryptWriter, Encryptor, InlineSignWriter, InlineVerifyReader,
    Signer, Verification, Verifier, read_via_fill_buf,
};

/// The largest piece handed across at once: plaintext per `poll_write`, and each channel
/// message of the readers.
const PIECE: usize = 64 * 1024;

/// Pieces each reader channel holds.
const DEPTH: usize = 4;

/// Locks, ignoring poisoning: the data under the lock is plain octets, valid at every point.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

// ------------------------------------------------------------------------------------------
// Writers
// ------------------------------------------------------------------------------------------

/// The blocking writer's sink: output waiting for the async sink.
#[derive(Debug, Clone, Default)]
struct Spool(Arc<Mutex<SecretVec>>);

impl Write for Spool {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        lock(&self.0).extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A blocking writer of this crate that the async writers drive.
trait BlockingWriter: Write {
    /// The blocking writer's `finish`.
    fn finish_blocking(self) -> Result<()>;
}

impl BlockingWriter for EncryptWriter<Spool> {
    fn finish_blocking(self) -> Result<()> {
        self.finish().map(drop)
    }
}

impl BlockingWriter for InlineSignWriter<Spool> {
    fn finish_blocking(self) -> Result<()> {
        self.finish().map(drop)
    }
}

/// The machinery of the async writers.
struct WriteCore<W, B> {
    /// `None` once finished.
    inner: Option<B>,
    spool: Spool,
    /// Octets of the spool already written to `sink`.
    drained: usize,
    sink: W,
    poison: Poison,
}

impl<W: AsyncWrite + Unpin, B: BlockingWriter> WriteCore<W, B> {
    fn new(inner: B, spool: Spool, sink: W) -> Self {
        Self { inner: Some(inner), spool, drained: 0, sink, poison: Poison::default() }
    }

    /// Writes the spool to the sink; `Ready(Ok)` once it is empty (and wiped).
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let Self { spool, drained, sink, .. } = self;
        let mut buf = lock(&spool.0);
        while let Some(rest) = buf.get(*drained..).filter(|rest| !rest.is_empty()) {
            match ready!(Pin::new(&mut *sink).poll_write(cx, rest)) {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Ok(n) => *drained = drained.saturating_add(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        // Only the written part: the spare capacity was never written (growth wipes the old
        // allocation), and wiping it on every call would cost a chunk's worth per write.
        let used = buf.len();
        buf.wipe_prefix(used);
        buf.clear();
        *drained = 0;
        Poll::Ready(Ok(()))
    }

    /// A step that fails poisons the writer.
    fn guard<T>(&mut self, r: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match r {
            Poll::Ready(Err(e)) => Poll::Ready(Err(self.poison.set_io(e))),
            other => other,
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        self.poison.check_io()?;
        let drained = self.poll_drain(cx);
        ready!(self.guard(drained))?;
        let Some(inner) = self.inner.as_mut() else {
            return Poll::Ready(Err(Error::InvalidArgument("write after finish").into()));
        };
        let piece = data.get(..PIECE).unwrap_or(data);
        let written = Poll::Ready(inner.write(piece));
        self.guard(written)
    }

    /// Drains the spool, runs `step` on the blocking writer (none once it is finished), drains
    /// what that wrote and flushes the sink. A step whose drain was pending runs again on the
    /// next call, which `flush` and `finish` (that takes the writer) both allow.
    fn poll_step(
        &mut self,
        cx: &mut Context<'_>,
        step: impl FnOnce(&mut Option<B>) -> Option<io::Result<()>>,
    ) -> Poll<io::Result<()>> {
        self.poison.check_io()?;
        let drained = self.poll_drain(cx);
        ready!(self.guard(drained))?;
        if let Some(result) = step(&mut self.inner) {
            ready!(self.guard(Poll::Ready(result)))?;
            let drained = self.poll_drain(cx);
            ready!(self.guard(drained))?;
        }
        let flushed = Pin::new(&mut self.sink).poll_flush(cx);
        self.guard(flushed)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_step(cx, |inner| inner.as_mut().map(Write::flush))
    }

    /// Finishes the blocking writer, writes everything out and flushes the sink.
    fn poll_finish(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_step(cx, |inner| inner.take().map(|w| w.finish_blocking().map_err(io::Error::from)))
    }

    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_finish(cx))?;
        let closed = Pin::new(&mut self.sink).poll_close(cx);
        self.guard(closed)
    }
}

macro_rules! async_writer {
    ($(#[$meta:meta])* $name:ident, $blocking:ty) => {
        $(#[$meta])*
        #[must_use = "without `finish` (or `close`) the output is incomplete"]
        pub struct $name<W> {
            core: WriteCore<W, $blocking>,
        }

        impl<W> std::fmt::Debug for $name<W> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name)).field("finished", &self.core.inner.is_none()).finish_non_exhaustive()
            }
        }

        impl<W: AsyncWrite + Unpin> $name<W> {
            /// Closes every layer as the blocking writer's `finish` does, writes all of it to
            /// the sink, flushes the sink and returns it (without closing it).
            ///
            /// # Errors
            /// The blocking writer's errors, and the sink's as [`Error::Io`].
            pub async fn finish(mut self) -> Result<W> {
                poll_fn(|cx| self.core.poll_finish(cx)).await.map_err(Error::from_io)?;
                Ok(self.core.sink)
            }
        }

        impl<W: AsyncWrite + Unpin> AsyncWrite for $name<W> {
            fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
                self.get_mut().core.poll_write(cx, data)
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().core.poll_flush(cx)
            }

            /// Finishes the stream (as [`finish`](Self::finish)), then closes the sink.
            fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().core.poll_close(cx)
            }
        }
    };
}

async_writer!(
    /// [`EncryptWriter`] as a `futures-io` [`AsyncWrite`] (feature `async`), from
    /// [`Encryptor::async_writer`]; from tokio, through `tokio_util::compat`.
    ///
    /// Its set-up runs on a thread of its own while [`Encryptor::async_writer`] is awaited. Then
    /// the blocking writer runs on the calling task and writes into an internal spool, which
    /// `poll_write`, `poll_flush` and `poll_close` drain into the sink before the writer takes
    /// more (at most 64 KiB per `poll_write`). The cost is one more copy of the output; the
    /// spool holds what one step of the blocking writer releases (a few chunks when its worker
    /// threads deliver several at once), and is wiped as it is drained. [`finish`](Self::finish)
    /// (or `poll_close`) is fallible as [`EncryptWriter::finish`] is; dropping the writer without
    /// it leaves the output incomplete.
    AsyncEncryptWriter,
    EncryptWriter<Spool>
);

async_writer!(
    /// [`InlineSignWriter`] as a `futures-io` [`AsyncWrite`] (feature `async`), from
    /// [`Signer::async_inline_writer`]; it works as [`AsyncEncryptWriter`] does.
    AsyncInlineSignWriter,
    InlineSignWriter<Spool>
);

/// What [`off_executor`]'s thread hands back, and whom to wake when it does.
struct Handoff<T> {
    result: Option<T>,
    /// Set when the thread ends, with or without a result.
    done: bool,
    waker: Option<Waker>,
}

/// Marks the handoff done and wakes the task when the thread ends, however it ends.
struct Done<T>(Arc<Mutex<Handoff<T>>>);

impl<T> Drop for Done<T> {
    fn drop(&mut self) {
        let waker = {
            let mut h = lock(&self.0);
            h.done = true;
            h.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// Runs `set_up` on a thread of its own and waits for it without blocking the executor: the
/// async writers' set-up (an Argon2 run per password, the key agreement with every recipient)
/// may take seconds. If the future is dropped first, the thread finishes and its result is
/// dropped.
async fn off_executor<T: Send + 'static>(set_up: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    let handoff = Arc::new(Mutex::new(Handoff { result: None, done: false, waker: None }));
    let done = Done(Arc::clone(&handoff));
    let _ = std::thread::Builder::new()
        .name("sixpgp-async-setup".into())
        .spawn(move || {
            let result = set_up();
            lock(&done.0).result = Some(result);
        })
        .map_err(Error::Io)?;
    poll_fn(|cx| {
        let mut h = lock(&handoff);
        if let Some(result) = h.result.take() {
            return Poll::Ready(result);
        }
        if h.done {
            return Poll::Ready(Err(Error::Io(io::Error::other("the set-up thread ended without a result"))));
        }
        h.waker = Some(cx.waker().clone());
        Poll::Pending
    })
    .await
}

impl Encryptor {
    /// [`Encryptor::writer`] for an async sink (feature `async`).
    ///
    /// The set-up that [`Encryptor::writer`] does before the first octet (an Argon2 run per
    /// [`password`](Encryptor::password), the key agreement with every recipient) runs on a
    /// thread of its own while this future waits, so that it never blocks the executor.
    ///
    /// # Errors
    /// As for [`Encryptor::writer`]; `Io` if the thread cannot be started.
    pub async fn async_writer<W: AsyncWrite + Unpin>(self, sink: W) -> Result<AsyncEncryptWriter<W>> {
        let spool = Spool::default();
        let for_writer = spool.clone();
        let inner = off_executor(move || self.writer(for_writer)).await?;
        Ok(AsyncEncryptWriter { core: WriteCore::new(inner, spool, sink) })
    }
}

impl Signer {
    /// [`Signer::inline_writer`] for an async sink (feature `async`). Its set-up runs on a
    /// thread of its own, as [`Encryptor::async_writer`]'s does.
    ///
    /// # Errors
    /// As for [`Signer::inline_writer`]; `Io` if the thread cannot be started.
    pub async fn async_inline_writer<W: AsyncWrite + Unpin>(
        self,
        sink: W,
    ) -> Result<AsyncInlineSignWriter<W>> {
        let spool = Spool::default();
        let for_writer = spool.clone();
        let inner = off_executor(move || self.inline_writer(for_writer)).await?;
        Ok(AsyncInlineSignWriter { core: WriteCore::new(inner, spool, sink) })
    }
}

// ------------------------------------------------------------------------------------------
// Readers
// ------------------------------------------------------------------------------------------

/// Wakes the task waiting on a reader, if any.
type Wake = Arc<Mutex<Option<Waker>>>;

fn wake(w: &Wake) {
    if let Some(waker) = lock(w).take() {
        waker.wake();
    }
}

/// What the task sends the thread.
enum Input {
    Data(SecretVec),
    End,
    Failed(io::Error),
}

/// What the thread sends the task.
enum Output<T> {
    Data(SecretVec),
    /// The end: the blocking reader's `finish`, or the first error.
    Done(Result<T>),
}

/// The blocking reader's source on the thread.
struct ChannelSource {
    rx: Receiver<Input>,
    buf: SecretVec,
    pos: usize,
    ended: bool,
    wake: Wake,
}

impl BufRead for ChannelSource {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos >= self.buf.len() && !self.ended {
            let input = self.rx.recv();
            // Room in the channel: the task may have input waiting.
            wake(&self.wake);
            match input {
                Ok(Input::Data(data)) => {
                    self.buf = data;
                    self.pos = 0;
                }
                Ok(Input::End) => self.ended = true,
                Ok(Input::Failed(e)) => return Err(e),
                Err(_) => {
                    return Err(io::Error::new(io::ErrorKind::BrokenPipe, "the async stream was dropped"));
                }
            }
        }
        Ok(self.buf.get(self.pos..).unwrap_or_default())
    }

    fn consume(&mut self, amt: usize) {
        self.pos = self.pos.saturating_add(amt).min(self.buf.len());
    }
}

impl Read for ChannelSource {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        read_via_fill_buf(self, out)
    }
}

/// The thread: opens the blocking reader on the channel, sends its plaintext piece by piece,
/// then its `finish`.
fn run<B: Read, T>(
    open: impl FnOnce(ChannelSource, &AtomicBool) -> Result<B>,
    finish: impl FnOnce(B) -> Result<T>,
    source: ChannelSource,
    tx: &SyncSender<Output<T>>,
    wake_task: &Wake,
    cancelled: &AtomicBool,
) {
    let send = |msg| {
        let sent = tx.send(msg).is_ok();
        wake(wake_task);
        sent
    };
    let mut reader = match open(source, cancelled) {
        Ok(reader) => reader,
        Err(e) => {
            let _ = send(Output::Done(Err(e)));
            return;
        }
    };
    // Each piece is a few chunks of work at most: a dropped stream stops the thread here.
    while !cancelled.load(Ordering::Relaxed) {
        let mut piece = SecretVec::zeroed(PIECE);
        match reader.read(&mut piece) {
            Ok(0) => {
                let _ = send(Output::Done(finish(reader)));
                return;
            }
            Ok(n) => {
                piece.truncate(n);
                if !send(Output::Data(piece)) {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                let _ = send(Output::Done(Err(Error::from_io(e))));
                return;
            }
        }
    }
}

/// The machinery of the async readers.
struct ReadCore<R, T> {
    source: R,
    source_done: bool,
    /// A piece read from `source` that the channel had no room for yet.
    pending: Option<Input>,
    to_thread: Option<SyncSender<Input>>,
    from_thread: Receiver<Output<T>>,
    /// Plaintext received and not yet read, from `pos`.
    current: SecretVec,
    pos: usize,
    /// The blocking reader's `finish`, once it came.
    result: Option<T>,
    ended: bool,
    poison: Poison,
    read_buf: SecretVec,
    wake: Wake,
    /// Held by the thread until its last buffer is dropped.
    #[cfg_attr(not(test), allow(dead_code, reason = "read only by the drop test"))]
    alive: Arc<()>,
    /// Set when the stream is dropped: the thread stops before its next piece (or S2K run).
    cancelled: Arc<AtomicBool>,
}

impl<R, T> Drop for ReadCore<R, T> {
    fn drop(&mut self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
}

impl<R: AsyncRead + Unpin, T: Send + 'static> ReadCore<R, T> {
    fn spawn<B: Read + 'static>(
        source: R,
        open: impl FnOnce(ChannelSource, &AtomicBool) -> Result<B> + Send + 'static,
        finish: impl FnOnce(B) -> Result<T> + Send + 'static,
    ) -> Result<Self> {
        let (to_thread, rx) = sync_channel(DEPTH);
        let (tx, from_thread) = sync_channel(DEPTH);
        let wake = Wake::default();
        let alive = Arc::new(());
        let channel =
            ChannelSource { rx, buf: SecretVec::default(), pos: 0, ended: false, wake: Arc::clone(&wake) };
        let cancelled = Arc::new(AtomicBool::new(false));
        let (thread_wake, thread_alive, thread_cancelled) =
            (Arc::clone(&wake), Arc::clone(&alive), Arc::clone(&cancelled));
        let _ = std::thread::Builder::new()
            .name("sixpgp-async".into())
            .spawn(move || {
                let _alive = thread_alive;
                run(open, finish, channel, &tx, &thread_wake, &thread_cancelled);
            })
            .map_err(Error::Io)?;
        Ok(Self {
            source,
            source_done: false,
            pending: None,
            to_thread: Some(to_thread),
            from_thread,
            current: SecretVec::default(),
            pos: 0,
            result: None,
            ended: false,
            poison: Poison::default(),
            read_buf: SecretVec::zeroed(PIECE),
            wake,
            alive,
            cancelled,
        })
    }

    /// Takes what the thread sent; `true` if anything came.
    fn receive(&mut self) -> io::Result<bool> {
        match self.from_thread.try_recv() {
            Ok(Output::Data(data)) => {
                self.current = data;
                self.pos = 0;
                Ok(true)
            }
            Ok(Output::Done(Ok(t))) => {
                self.result = Some(t);
                self.ended = true;
                Ok(true)
            }
            Ok(Output::Done(Err(e))) => Err(self.poison.set(e).into()),
            Err(TryRecvError::Empty) => Ok(false),
            Err(TryRecvError::Disconnected) => {
                Err(self.poison.set(Error::Io(io::Error::other("the stream's thread ended early"))).into())
            }
        }
    }

    /// Reads the source and passes it on while the channel has room; `true` if anything moved.
    fn feed(&mut self, cx: &mut Context<'_>) -> bool {
        if self.pending.is_none() && !self.source_done {
            match Pin::new(&mut self.source).poll_read(cx, &mut self.read_buf) {
                Poll::Ready(Ok(0)) => {
                    self.pending = Some(Input::End);
                    self.source_done = true;
                }
                Poll::Ready(Ok(n)) => {
                    let mut piece = SecretVec::with_capacity(n);
                    piece.extend_from_slice(self.read_buf.get(..n).unwrap_or_default());
                    if let Some(read) = self.read_buf.get_mut(..n) {
                        read.zeroize();
                    }
                    self.pending = Some(Input::Data(piece));
                }
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => return true,
                Poll::Ready(Err(e)) => {
                    self.pending = Some(Input::Failed(e));
                    self.source_done = true;
                }
                Poll::Pending => {}
            }
        }
        let (Some(input), Some(to_thread)) = (self.pending.take(), self.to_thread.as_ref()) else {
            return false;
        };
        match to_thread.try_send(input) {
            Ok(()) => true,
            Err(TrySendError::Full(input)) => {
                self.pending = Some(input);
                false
            }
            // The thread is done with its input: what is left is not needed.
            Err(TrySendError::Disconnected(_)) => {
                self.to_thread = None;
                false
            }
        }
    }

    fn poll_read(&mut self, cx: &mut Context<'_>, out: &mut [u8]) -> Poll<io::Result<usize>> {
        self.poison.check_io()?;
        loop {
            if let Some(available) = self.current.get(self.pos..).filter(|a| !a.is_empty()) {
                let n = available.len().min(out.len());
                if let (Some(dst), Some(src)) = (out.get_mut(..n), available.get(..n)) {
                    dst.copy_from_slice(src);
                }
                self.pos = self.pos.saturating_add(n);
                return Poll::Ready(Ok(n));
            }
            if self.ended {
                return Poll::Ready(Ok(0));
            }
            if self.receive()? || self.feed(cx) {
                continue;
            }
            // Nothing moved: wait for the thread (or the source, which has our waker too).
            *lock(&self.wake) = Some(cx.waker().clone());
            if self.receive()? || self.feed(cx) {
                continue;
            }
            return Poll::Pending;
        }
    }

    /// Reads (and wipes) what the caller did not read, then returns the blocking reader's
    /// `finish`.
    fn poll_finish(&mut self, cx: &mut Context<'_>) -> Poll<Result<T>> {
        let mut scratch = WipedArray::<4096>::new();
        loop {
            self.current.zeroize();
            self.pos = 0;
            match self.poll_read(cx, &mut scratch[..]) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(Error::from_io(e))),
                Poll::Ready(Ok(0)) => break,
                Poll::Ready(Ok(_)) => {}
            }
        }
        Poll::Ready(self.result.take().ok_or(Error::InvalidArgument("finish called twice")))
    }
}

macro_rules! async_reader {
    ($(#[$meta:meta])* $name:ident, $output:ty, $finish_doc:literal) => {
        $(#[$meta])*
        pub struct $name<R> {
            core: ReadCore<R, $output>,
        }

        impl<R> std::fmt::Debug for $name<R> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name)).field("ended", &self.core.ended).finish_non_exhaustive()
            }
        }

        impl<R: AsyncRead + Unpin> $name<R> {
            #[doc = $finish_doc]
            ///
            /// # Errors
            /// As for reading: the first error the stream met.
            pub async fn finish(mut self) -> Result<$output> {
                poll_fn(|cx| self.core.poll_finish(cx)).await
            }

            #[cfg(test)]
            #[allow(dead_code, reason = "the drop test uses one of the two readers")]
            fn alive(&self) -> std::sync::Weak<()> {
                Arc::downgrade(&self.core.alive)
            }
        }

        impl<R: AsyncRead + Unpin> AsyncRead for $name<R> {
            /// `Ok(0)` only once the blocking reader returned it: everything authenticated.
            fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, out: &mut [u8]) -> Poll<io::Result<usize>> {
                self.get_mut().core.poll_read(cx, out)
            }
        }
    };
}

async_reader!(
    /// [`DecryptReader`] as a `futures-io` [`AsyncRead`] (feature `async`), from
    /// [`Decryptor::async_reader`]; from tokio, through `tokio_util::compat`.
    ///
    /// The blocking reader runs on a thread of its own, fed through two bounded channels (4
    /// pieces of at most 64 KiB each way), and wakes the task when it has taken input or
    /// produced plaintext; parsing and decryption never block the executor. The cost is one
    /// thread per stream and two more copies, and at most about 512 KiB in the channels beside
    /// the blocking reader's own bound; every piece is wiped when it is consumed or dropped.
    /// `poll_read` returns `Ok(0)` only once the blocking reader did (everything authenticated),
    /// errors are the blocking reader's (recover them with [`Error::from_io`]), and
    /// [`finish`](Self::finish) returns the same summary. Dropping the reader early (a cancelled
    /// task) stops the thread before its next piece or S2K run; it drops the blocking reader and
    /// its buffers. For input from the network, build the [`Decryptor`] with
    /// [`Limits::untrusted_input`](crate::Limits::untrusted_input).
    AsyncDecryptReader,
    DecryptSummary,
    "Reads and discards what was not read, and returns what [`DecryptReader::finish`] returns."
);

async_reader!(
    /// [`InlineVerifyReader`] as a `futures-io` [`AsyncRead`] (feature `async`), from
    /// [`Verifier::async_inline_reader`]; it works as [`AsyncDecryptReader`] does.
    AsyncInlineVerifyReader,
    Vec<Verification>,
    "Reads and discards what was not read, and returns what [`InlineVerifyReader::finish`] returns."
);

impl Decryptor {
    /// [`Decryptor::reader`] for an async source (feature `async`). The decryptor is shared
    /// with the stream's thread, so it comes in an `Arc` (clone one to decrypt many messages).
    ///
    /// # Errors
    /// `Io` if the thread cannot be started. The errors of [`Decryptor::reader`] come from the
    /// first read.
    pub fn async_reader<R: AsyncRead + Unpin>(self: Arc<Self>, source: R) -> Result<AsyncDecryptReader<R>> {
        let core = ReadCore::spawn(
            source,
            move |channel, cancelled| self.reader_until_cancelled(channel, cancelled),
            |reader: DecryptReader<ChannelSource>| reader.finish(),
        )?;
        Ok(AsyncDecryptReader { core })
    }
}

impl Verifier {
    /// [`Verifier::inline_reader`] for an async source (feature `async`).
    ///
    /// # Errors
    /// `Io` if the thread cannot be started. The errors of [`Verifier::inline_reader`] come
    /// from the first read.
    pub fn async_inline_reader<R: AsyncRead + Unpin>(self, source: R) -> Result<AsyncInlineVerifyReader<R>> {
        let core = ReadCore::spawn(
            source,
            move |channel, _| self.inline_reader(channel),
            |reader: InlineVerifyReader<ChannelSource>| reader.finish(),
        )?;
        Ok(AsyncInlineVerifyReader { core })
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing, reason = "test code")]
mod tests {
    use std::future::Future;
    use std::task::Waker;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::key::{KeyBuilder, Profile};

    /// An in-memory async source handing out `step` octets per poll.
    struct Mem {
        data: Vec<u8>,
        pos: usize,
        step: usize,
    }

    impl AsyncRead for Mem {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            out: &mut [u8],
        ) -> Poll<io::Result<usize>> {
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
        assert!(!lock(&w.core.spool.0).is_empty());
        let spool = Arc::downgrade(&w.core.spool.0);
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
        assert!(
            start.elapsed() < all / 2,
            "{:?} after the drop, {all:?} for every derivation",
            start.elapsed()
        );
    }
}
