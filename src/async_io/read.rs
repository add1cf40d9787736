//! The async readers: the blocking reader on a thread of its own, fed and drained through
//! bounded channels (see [the module's design notes](super)).

use std::future::poll_fn;
use std::io::{self, BufRead, Read};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use futures_io::AsyncRead;
use zeroize::Zeroize;

use super::{PIECE, lock};
use crate::crypto::secret::{SecretVec, WipedArray};
use crate::error::{Error, Poison, Result};
use crate::message::{
    DecryptReader, DecryptSummary, Decryptor, InlineVerifyReader, Verification, Verifier, read_via_fill_buf,
};

/// Pieces each reader channel holds.
pub(super) const DEPTH: usize = 4;

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
            pub(super) fn alive(&self) -> std::sync::Weak<()> {
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
