//! The async writers: the blocking writer on the calling task, its output spooled for the
//! async sink (see [the module's design notes](super)).

use std::future::poll_fn;
use std::io::{self, Write};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker, ready};

use futures_io::AsyncWrite;

use super::{PIECE, lock};
use crate::crypto::secret::SecretVec;
use crate::error::{Error, Poison, Result};
use crate::message::{EncryptWriter, Encryptor, InlineSignWriter, Signer};

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

        #[cfg(test)]
        impl<W> $name<W> {
            /// The spool's buffer.
            #[allow(dead_code, reason = "the drop test uses one of the two writers")]
            pub(super) fn spool(&self) -> &Arc<Mutex<SecretVec>> {
                &self.core.spool.0
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
