//! The document hashes of signing and verifying streams, on a thread of their own for large
//! data (see [`HashPipe`]).

use std::io;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};
use std::thread::{self, JoinHandle};

use crate::crypto::secret::SecretVec;
use crate::error::{Error, Poison, Result};
use crate::pipeline::policy;
use crate::pipeline::policy::hash::{BUF_LEN, BUFS};
use crate::signature::DataHasher;

/// The document hashes of a signing or verifying stream. The hash is serial; everything
/// else (reading, AEAD, writing) is not, so for a long stream on a machine with more than one
/// core ([`policy::hash::beside`]) the data is copied into buffers that a thread of its own
/// hashes while the calling thread goes on. The digests are the same either way; memory is bounded
/// by [`BUFS`] buffers, which hold plaintext and are wiped when dropped.
#[derive(Debug)]
pub(crate) struct HashPipe {
    state: PipeState,
    hashing: Hashing,
    /// The first error (the hashing thread was lost), reported again by every later call.
    poison: Poison,
}

/// Whether a large document's hash may move to a thread of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hashing {
    /// Always on the calling thread: for detached signing and verification, whose calling
    /// thread only reads the document. The hash is the floor of their time either way, and a
    /// second thread adds its hand-offs and, on two hyperthreads, slows the hash while the
    /// other one reads: more CPU time for the same wall time.
    Inline,
    /// On a thread of its own for a long stream when there is a core for it
    /// ([`policy::hash::beside`]): for streams whose calling thread also frames, encrypts or
    /// decrypts.
    Beside,
}

#[derive(Debug)]
enum PipeState {
    /// Hashing on the calling thread; `seen` octets so far.
    Inline { hashers: Vec<DataHasher>, seen: u64 },
    /// Hashing on a thread.
    Threaded(Box<Threaded>),
}

#[derive(Debug)]
struct Threaded {
    /// The buffer being filled.
    current: SecretVec,
    jobs: SyncSender<SecretVec>,
    /// Hashed buffers coming back for reuse.
    free: Receiver<SecretVec>,
    /// Buffers made so far (at most [`BUFS`]).
    made: usize,
    handle: JoinHandle<Vec<DataHasher>>,
}

impl HashPipe {
    pub(crate) fn new(hashers: Vec<DataHasher>, hashing: Hashing) -> Self {
        Self { state: PipeState::Inline { hashers, seen: 0 }, hashing, poison: Poison::default() }
    }

    /// Changes where the hashing may run (before any data, when a stream learns what it is).
    pub(crate) fn set_hashing(&mut self, hashing: Hashing) {
        self.hashing = hashing;
    }

    /// Hashes more document data (in order).
    ///
    /// # Errors
    /// An I/O error if the hashing thread has stopped (and from then on).
    pub(crate) fn update(&mut self, data: &[u8]) -> io::Result<()> {
        self.poison.check_io()?;
        if let PipeState::Inline { hashers, seen } = &mut self.state {
            if hashers.is_empty() || self.hashing == Hashing::Inline || !policy::hash::beside(*seen) {
                for h in hashers.iter_mut() {
                    h.update(data);
                }
                *seen = seen.saturating_add(u64::try_from(data.len()).unwrap_or(u64::MAX));
                return Ok(());
            }
            self.start();
        }
        match &mut self.state {
            PipeState::Inline { hashers, .. } => {
                // No thread could be started: go on here.
                for h in hashers.iter_mut() {
                    h.update(data);
                }
                Ok(())
            }
            PipeState::Threaded(t) => t.push(data).map_err(|e| self.poison.set_io(e)),
        }
    }

    /// Moves the hashers onto a thread of their own (they stay here if none can be started).
    fn start(&mut self) {
        let PipeState::Inline { hashers, .. } = &mut self.state else { return };
        let (init_tx, init_rx) = sync_channel::<Vec<DataHasher>>(1);
        let (jobs, jobs_rx) = sync_channel::<SecretVec>(BUFS);
        let (free_tx, free) = channel::<SecretVec>();
        let spawned = thread::Builder::new().name("sixpgp-hash".into()).spawn(move || {
            let Ok(mut hashers) = init_rx.recv() else { return Vec::new() };
            while let Ok(mut buf) = jobs_rx.recv() {
                for h in &mut hashers {
                    h.update(&buf);
                }
                // Refilled with the same message's plaintext; wiped when dropped.
                buf.clear();
                let _ = free_tx.send(buf);
            }
            hashers
        });
        let Ok(handle) = spawned else { return };
        if init_tx.send(std::mem::take(hashers)).is_err() {
            return;
        }
        self.state = PipeState::Threaded(Box::new(Threaded {
            current: SecretVec::with_capacity(BUF_LEN),
            jobs,
            free,
            made: 1,
            handle,
        }));
    }

    /// The hashers, once every octet given to `update` is hashed.
    ///
    /// # Errors
    /// `Io` if the hashing thread was lost (the error `update` returned, if it did).
    pub(crate) fn finish(self) -> Result<Vec<DataHasher>> {
        self.poison.check()?;
        match self.state {
            PipeState::Inline { hashers, .. } => Ok(hashers),
            PipeState::Threaded(t) => {
                let Threaded { current, jobs, free, handle, .. } = *t;
                if !current.is_empty() {
                    jobs.send(current).map_err(|_| Error::from_io(lost()))?;
                }
                drop(jobs);
                let hashers = handle.join().map_err(|_| Error::from_io(lost()))?;
                // The returned buffers are wiped as they drop.
                drop(free);
                Ok(hashers)
            }
        }
    }
}

impl Threaded {
    /// Copies `data` into buffers and queues each full one.
    fn push(&mut self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            let room = BUF_LEN.saturating_sub(self.current.len());
            let (head, tail) = data.split_at_checked(room.min(data.len())).unwrap_or((data, &[]));
            self.current.extend_from_slice(head);
            data = tail;
            if self.current.len() >= BUF_LEN {
                let next = if self.made < BUFS {
                    self.made = self.made.saturating_add(1);
                    SecretVec::with_capacity(BUF_LEN)
                } else {
                    self.free.recv().map_err(|_| lost())?
                };
                let full = std::mem::replace(&mut self.current, next);
                self.jobs.send(full).map_err(|_| lost())?;
            }
        }
        Ok(())
    }
}

/// The error of a hashing thread that has stopped (it cannot, short of a panic).
fn lost() -> io::Error {
    io::Error::other("hashing thread stopped")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::SignatureMode;
    use crate::types::HashAlgorithm;

    /// Past the threshold the pipe hashes on its own thread; the digests are the inline ones,
    /// for several hashes at once, any write sizes, and text mode's state across buffers.
    #[test]
    fn the_hash_pipe_gives_the_inline_digests() {
        let data: Vec<u8> = (0..(9usize << 20) + 12345)
            .map(|i| if i % 77 == 0 { b'\n' } else { u8::try_from(i % 251).unwrap() })
            .collect();
        let start = || {
            vec![
                DataHasher::new(HashAlgorithm::Sha256, b"salt", SignatureMode::Binary).unwrap(),
                DataHasher::new(HashAlgorithm::Sha512, b"", SignatureMode::Text).unwrap(),
            ]
        };
        let mut inline = start();
        for h in &mut inline {
            h.update(&data);
        }
        let expected: Vec<Vec<u8>> = inline.into_iter().map(|h| h.into_hasher().finish()).collect();
        for step in [1000, 65_537, 1 << 20] {
            let mut pipe = HashPipe::new(start(), Hashing::Beside);
            for piece in data.chunks(step) {
                pipe.update(piece).unwrap();
            }
            if policy::available_cores() > 1 {
                assert!(matches!(pipe.state, PipeState::Threaded(_)));
            }
            let got: Vec<Vec<u8>> =
                pipe.finish().unwrap().into_iter().map(|h| h.into_hasher().finish()).collect();
            assert_eq!(got, expected, "writes of {step}");
        }
        // Below the threshold nothing is started.
        let mut pipe = HashPipe::new(start(), Hashing::Beside);
        pipe.update(&data[..1000]).unwrap();
        assert!(matches!(pipe.state, PipeState::Inline { .. }));
        assert_eq!(pipe.finish().unwrap().len(), 2);
        // `Hashing::Inline` (detached signing and verification) never starts a thread.
        let mut pipe = HashPipe::new(start(), Hashing::Inline);
        for piece in data.chunks(1 << 20) {
            pipe.update(piece).unwrap();
        }
        assert!(matches!(pipe.state, PipeState::Inline { .. }));
        let got: Vec<Vec<u8>> =
            pipe.finish().unwrap().into_iter().map(|h| h.into_hasher().finish()).collect();
        assert_eq!(got, expected, "inline");
    }

    /// Once the hashing thread is lost, `update` and `finish` return the same error.
    #[test]
    fn a_lost_thread_poisons_the_pipe() {
        let (jobs, jobs_rx) = sync_channel::<SecretVec>(BUFS);
        let (_free_tx, free) = channel::<SecretVec>();
        drop(jobs_rx);
        let handle = thread::spawn(Vec::new);
        let threaded = Threaded { current: SecretVec::with_capacity(BUF_LEN), jobs, free, made: 1, handle };
        let mut pipe = HashPipe {
            state: PipeState::Threaded(Box::new(threaded)),
            hashing: Hashing::Beside,
            poison: Poison::default(),
        };
        let same = |e: &io::Error| (e.kind(), e.to_string());
        let first = pipe.update(&vec![0; BUF_LEN]).unwrap_err();
        assert_eq!(same(&first), (io::ErrorKind::Other, "hashing thread stopped".to_owned()));
        assert_eq!(same(&pipe.update(b"more").unwrap_err()), same(&first));
        assert_eq!(same(&pipe.update(b"").unwrap_err()), same(&first));
        let last = pipe.finish().unwrap_err();
        assert!(matches!(&last, Error::Io(_)));
        assert_eq!(same(&last.into()), same(&first));
    }
}
