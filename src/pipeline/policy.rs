//! The thread policy: every decision on how many threads a stream or a batch uses, how much
//! it keeps in flight, and whether its calling thread is the bottleneck. The mechanisms
//! ([`Pipeline`](super::Pipeline), [`map_in_order`](super::map_in_order), the hash pipe) take
//! their numbers from here, and so do the builders that configure them.
//!
//! The general decisions come first; those of one kind of stream are in a module named after
//! it.

use std::num::NonZeroUsize;
use std::sync::OnceLock;
use std::thread;
use std::time::Duration;

/// Most threads used by default: beyond four, memory (buffers in flight) grows faster than
/// the speed-up on typical machines.
pub(crate) const MAX_DEFAULT_THREADS: usize = 4;

/// The available parallelism (at least 1), computed once per process: on Linux it reads the
/// cgroup quota files, which costs more than decrypting a small message.
pub(crate) fn available_cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| thread::available_parallelism().map_or(1, NonZeroUsize::get))
}

/// The default thread count of a stream: the available parallelism, at most
/// [`MAX_DEFAULT_THREADS`], at least 1.
pub(crate) fn default_threads() -> usize {
    available_cores().clamp(1, MAX_DEFAULT_THREADS)
}

/// The most threads a caller gets, whatever it asks for: the available parallelism, or
/// [`MAX_DEFAULT_THREADS`] if that is more (so that a caller may still ask for a few threads
/// on a small machine). More threads than cores only contend for them.
pub(crate) fn max_threads() -> usize {
    available_cores().max(MAX_DEFAULT_THREADS)
}

/// Jobs a budget of `budget` octets holds in buffers of `buf_len` octets: a pipeline's
/// [`max_depth`](super::Shape::max_depth), which bounds memory whatever the thread count.
pub(crate) fn depth_within(budget: usize, buf_len: usize) -> usize {
    budget.checked_div(buf_len).unwrap_or(1)
}

/// Whether the calling thread of a message stream limits its speed, so that its pipeline
/// should be caller-bound (see [`Pipeline::set_caller_bound`](super::Pipeline::set_caller_bound)):
/// only for binary data that is neither signed nor verified. With armor, base64 workers share
/// the cores and their buffers the caches, and a signed stream's hash has a thread of its own:
/// there the calling thread's help is what keeps up, and a napping worker would leave a core
/// idle.
pub(crate) fn caller_bound(armored: bool, hashed: bool) -> bool {
    !armored && !hashed
}

/// Jobs sent to one worker and not yet collected, at most, by default: the one it works on
/// and the next, so that it can start the next without waiting for the calling thread.
/// (Results count until collected.)
pub(crate) const PER_WORKER: usize = 2;
/// Jobs in flight per thread, by default (see [`Pipeline::depth`](super::Pipeline::depth)).
pub(crate) const PER_THREAD: usize = 2;
/// Jobs in flight per thread of a caller-bound pipeline: the deeper queue keeps the calling
/// thread from waiting on a worker that naps.
pub(crate) const CALLER_BOUND_PER_THREAD: usize = 3;
/// Jobs with one worker of a caller-bound pipeline at most: a worker that fell behind catches
/// up with jobs of its own instead of leaving them to the calling thread.
pub(crate) const CALLER_BOUND_PER_WORKER: usize = 5;

/// Naps an idle worker of a caller-bound pipeline takes before it blocks, each [`NAP`] long:
/// about the time the calling thread takes to read the next chunks.
pub(crate) const NAPS: u32 = 4;
/// One nap: the shortest sleep one can ask for; the system's timer slack sets its length.
pub(crate) const NAP: Duration = Duration::from_micros(1);
/// A nap that took longer than this ends the worker's naps until the next time it runs dry
/// (the calling thread may be waiting for the job that came meanwhile); [`OVERSLEPT_NAPS`]
/// in a row end them for good.
pub(crate) const LONGEST_NAP: Duration = Duration::from_micros(250);
/// Naps in a row that oversleep before a worker stops napping: a system whose timers are
/// coarse loses at most this many naps' time per stream, while a virtual machine that is
/// slow to wake an idle core for the first naps of a stream keeps its naps.
pub(crate) const OVERSLEPT_NAPS: u32 = 8;

/// Armor's threaded block paths ([`ArmorReader`](crate::armor::ArmorReader) and
/// [`ArmorWriter`](crate::armor::ArmorWriter)).
pub(crate) mod armor {
    /// Octets of blocks the threaded paths keep in flight at most (two blocks per thread
    /// within this): bounds memory whatever the thread count.
    pub(crate) const IN_FLIGHT_BUDGET: usize = 8 << 20;

    /// Threads for a message's armor: the caller's count, else the default. Base64 costs more
    /// than the AEAD, so it gets workers of its own beside the chunk workers.
    pub(crate) fn message_threads(requested: Option<usize>) -> usize {
        requested.unwrap_or_else(super::default_threads)
    }
}

/// The chunk pipelines of SEIPD streams, the writer's and the reader's.
pub(crate) mod seipd {
    /// Octets of chunks the writer and the reader process on the calling thread before they start
    /// workers (at most [`MAX_SOLO_CHUNKS`]): 16 chunks of the default size. A stream shorter than
    /// that starts no thread and keeps one buffer in flight, reused from chunk to chunk: for a
    /// short message, starting threads (and the page faults and zeroing for the buffers in flight)
    /// costs more than they save, while a long stream loses little by starting a few chunks later.
    pub(crate) const SOLO_OCTETS: usize = 4 << 20;
    /// Most chunks run on the calling thread before workers start: with small chunks the workers
    /// still start early.
    pub(crate) const MAX_SOLO_CHUNKS: usize = 16;
    /// Octets of chunk buffers a pipeline keeps in flight at most (unless that is less than two
    /// chunks): bounds memory whatever the thread count, for chunk sizes up to 4 MiB.
    pub(crate) const IN_FLIGHT_BUDGET: usize = 8 << 20;

    /// The chunks in [`SOLO_OCTETS`] of buffers of `buf_len` octets, rounded up (4 MiB of
    /// 256 KiB chunks is 16, although each buffer also holds a tag), from 1 to
    /// [`MAX_SOLO_CHUNKS`].
    pub(crate) fn solo_chunks(buf_len: usize) -> u64 {
        let chunks = SOLO_OCTETS.div_ceil(buf_len.max(1)).clamp(1, MAX_SOLO_CHUNKS);
        u64::try_from(chunks).unwrap_or(1)
    }
}

/// The document hashes of signing and verifying streams, on a thread of their own for large
/// data.
pub(crate) mod hash {
    /// Octets hashed on the calling thread before a hashing thread starts: a short message
    /// starts none.
    pub(crate) const THREAD_AFTER: u64 = 4 << 20;
    /// Octets per buffer handed to the hashing thread: large, because the hash is slower than
    /// reading, so the calling thread waits for a free buffer, and each wait is a sleep and a
    /// wake-up.
    pub(crate) const BUF_LEN: usize = 4 << 20;
    /// Buffers in existence at most (being filled, queued or hashed): the memory bound. Two
    /// are enough for the reading to overlap the hashing.
    pub(crate) const BUFS: usize = 2;

    /// Whether a stream that has hashed `seen` octets on its calling thread moves its hash to
    /// a thread of its own: past [`THREAD_AFTER`], when there is a core for it.
    #[inline]
    pub(crate) fn beside(seen: u64) -> bool {
        seen >= THREAD_AFTER && super::available_cores() > 1
    }
}

/// Per-recipient work when encrypting: evaluating certificates and their key agreements.
pub(crate) mod recipients {
    /// Below this many recipient certificates, their work stays on the calling thread:
    /// starting a thread costs about as much as a few recipients. (The work is spread by
    /// certificate: the keys of one certificate stay on one thread.)
    pub(crate) const PARALLEL: usize = 8;

    /// Threads for the work of `recipients` certificates: the builder's count (`requested`),
    /// else the available cores, at most those.
    pub(crate) fn threads(requested: Option<usize>, recipients: usize) -> usize {
        if recipients < PARALLEL {
            return 1;
        }
        let cores = super::available_cores();
        requested.unwrap_or(cores).clamp(1, cores)
    }
}

/// Batches of whole messages encrypted or decrypted at once, one thread per message.
pub(crate) mod batch {
    /// Messages a thread takes from the shared counter at a time.
    pub(crate) const TAKE: usize = 16;

    /// Threads for a batch: the builder's count (`requested`), else the available cores.
    pub(crate) fn threads(requested: Option<usize>) -> usize {
        requested.unwrap_or_else(super::available_cores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_stay_within_their_bounds() {
        assert!((1..=MAX_DEFAULT_THREADS).contains(&default_threads()));
        assert!(max_threads() >= default_threads());
        assert_eq!(armor::message_threads(Some(3)), 3);
        assert_eq!(armor::message_threads(None), default_threads());
        assert_eq!(batch::threads(Some(5)), 5);
        assert_eq!(batch::threads(None), available_cores());
        assert_eq!(recipients::threads(Some(64), recipients::PARALLEL - 1), 1);
        assert_eq!(recipients::threads(Some(64), recipients::PARALLEL), available_cores());
        assert_eq!(recipients::threads(Some(0), 100), 1);
    }

    #[test]
    fn depth_and_caller_bound_decisions() {
        assert_eq!(depth_within(8 << 20, 256 << 10), 32);
        assert_eq!(depth_within(8 << 20, 0), 1);
        assert!(caller_bound(false, false));
        assert!(!caller_bound(true, false));
        assert!(!caller_bound(false, true));
        assert!(!hash::beside(hash::THREAD_AFTER - 1));
        assert_eq!(hash::beside(hash::THREAD_AFTER), available_cores() > 1);
    }
}
