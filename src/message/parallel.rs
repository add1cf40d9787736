//! Running independent jobs (SEIPDv2 chunks) on several threads, results in order.
//!
//! Scoped threads per batch (`std::thread::scope`), no pool and no new dependency: a batch is
//! one chunk per thread (256 KiB each by default), so spawning costs a few microseconds against
//! a few hundred of AEAD work, and nothing outlives the call (the chunk buffers are borrowed).

use std::num::NonZeroUsize;
use std::thread;

use crate::error::{Error, Result};

/// Most threads used by default: beyond four, memory (one chunk buffer per thread) grows
/// faster than the speed-up on typical machines.
pub(crate) const MAX_DEFAULT_THREADS: usize = 4;

/// The default thread count: the available parallelism, at most [`MAX_DEFAULT_THREADS`], at
/// least 1.
pub(crate) fn default_threads() -> usize {
    thread::available_parallelism().map_or(1, NonZeroUsize::get).clamp(1, MAX_DEFAULT_THREADS)
}

/// Runs `job` on every item, spread over at most `threads` threads (the calling thread is one of
/// them), and returns the results in the order of `items`.
///
/// A worker thread that cannot be started or that panics gives an error for each of its items;
/// nothing panics here.
pub(crate) fn run<T, F>(threads: usize, items: Vec<T>, job: F) -> Vec<Result<()>>
where
    T: Send,
    F: Fn(T) -> Result<()> + Sync,
{
    let count = items.len();
    if threads <= 1 || count <= 1 {
        return items.into_iter().map(job).collect();
    }
    // Contiguous groups of `per` items, the first one for the calling thread.
    let per = count.div_ceil(threads.min(count));
    let mut groups: Vec<Vec<T>> = Vec::new();
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        groups.push(items.by_ref().take(per).collect());
    }
    let job = &job;
    thread::scope(|scope| {
        let mut groups = groups.into_iter();
        let first = groups.next().unwrap_or_default();
        let handles: Vec<_> = groups
            .map(|group| {
                let len = group.len();
                let handle = thread::Builder::new()
                    .spawn_scoped(scope, move || group.into_iter().map(job).collect::<Vec<_>>());
                (len, handle)
            })
            .collect();
        let mut results: Vec<Result<()>> = first.into_iter().map(job).collect();
        for (len, handle) in handles {
            match handle.map_err(|_| ()).and_then(|h| h.join().map_err(|_| ())) {
                Ok(r) => results.extend(r),
                Err(()) => {
                    results.extend((0..len).map(|_| Err(Error::InvalidArgument("worker thread failed"))))
                }
            }
        }
        results
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order_for_any_thread_count() {
        for threads in 0..6 {
            for count in 0..10usize {
                let mut cells = vec![0usize; count];
                let items: Vec<(usize, &mut usize)> = cells.iter_mut().enumerate().collect();
                let results = run(threads, items, |(i, cell)| {
                    *cell = i + 1;
                    if i == 3 { Err(Error::Decrypt) } else { Ok(()) }
                });
                assert_eq!(results.len(), count);
                for (i, r) in results.iter().enumerate() {
                    assert_eq!(r.is_err(), i == 3, "threads {threads} count {count} item {i}");
                }
                assert_eq!(cells, (1..=count).collect::<Vec<_>>());
            }
        }
        assert!((1..=MAX_DEFAULT_THREADS).contains(&default_threads()));
    }
}
