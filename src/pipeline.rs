//! A pipeline of worker threads for independent jobs, results in order, and the pool of
//! buffers the streams that use it share.
//!
//! The streaming adapters keep doing the I/O on the calling thread while up to
//! [`Pipeline::depth`] jobs are being processed, so reading the next jobs, the work and writing
//! the previous ones overlap. With `threads` = n, n − 1 workers run beside the calling thread,
//! which does the I/O and, whenever it would otherwise wait for a worker's result, processes a
//! queued job itself: n threads in all for one pipeline, so n cores are not oversubscribed, and
//! all n do the work when the I/O is cheap. Each worker holds a few jobs at most (more, and
//! naps when idle, if its caller says so, see [`Pipeline::set_caller_bound`]); later ones wait in the queue of slots for the first
//! worker with room or for the calling thread. A calling thread that only waited would leave
//! a core idle; one that took a job whenever a worker had a backlog would starve the worker
//! while it had I/O to do, so it helps only when it would otherwise wait. Each worker has its
//! own job and result channel; the order of submission is kept in the queue of slots (done
//! here, with worker i, or not started), so results come back in order.
//!
//! The pipeline knows none of its callers' numbers: each gives its [`Shape`] (the length of
//! its buffers, the most jobs in flight, the jobs to run on the calling thread first) when it
//! makes one; the thread counts and depths come from [`policy`]. Workers are started only when a stream turns out to be long: after its solo jobs,
//! and only once a second job would wait in the queue (a single queued job, such as a stream's
//! last, is done by the calling thread). They live as long as the adapter, and they own
//! nothing but the jobs they are given and the shared work function. While an adapter lives,
//! its whole buffers are reused (see [`Pipeline::recycle`]); those it leaves are wiped and
//! kept in its [`BufferPool`], if it was given one, for the next streams made with that pool.
//!
//! Std only (`std::sync::mpsc`), no thread-pool dependency: a stream has at most a few
//! workers and a job is large (a chunk, a block of text), so channel costs are negligible.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

pub(crate) mod policy;
mod pool;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::{self, JoinHandle};
use std::time::Instant;

use self::policy::{
    CALLER_BOUND_PER_THREAD, CALLER_BOUND_PER_WORKER, LONGEST_NAP, NAP, NAPS, OVERSLEPT_NAPS, PER_THREAD,
    PER_WORKER, default_threads, max_threads,
};
pub use self::pool::BufferPool;
use crate::crypto::secret::SecretVec;
use crate::error::{Error, Result};

/// Applies `job` to every item, spread over at most `threads` threads (the calling thread is
/// one of them; at most [`max_threads`]), and returns the results in the order of `items`.
/// The threads take `take` items at a time from a shared counter, so a thread that starts late
/// (a freshly spawned thread can wait for a core) or meets slow items leaves the rest to the others
/// instead of holding up the whole batch. An item whose thread could not report (it could not
/// be started, or its job panicked) is done again on the calling thread.
pub(crate) fn map_in_order<T: Sync, R: Send>(
    threads: usize,
    take: usize,
    items: &[T],
    job: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.min(max_threads()).clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(&job).collect();
    }
    let take = take.max(1);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let start = next.fetch_add(take, Ordering::Relaxed);
            let batch = items.get(start..start.saturating_add(take).min(items.len())).unwrap_or_default();
            if batch.is_empty() {
                return done;
            }
            done.extend((start..).zip(batch.iter().map(&job)));
        }
    };
    let parts: Vec<Vec<(usize, R)>> = thread::scope(|scope| {
        let handles: Vec<_> =
            (1..threads).filter_map(|_| thread::Builder::new().spawn_scoped(scope, work).ok()).collect();
        let mut parts = vec![work()];
        parts.extend(handles.into_iter().filter_map(|h| h.join().ok()));
        parts
    });
    let mut slots: Vec<Option<R>> = items.iter().map(|_| None).collect();
    for (i, r) in parts.into_iter().flatten() {
        if let Some(slot) = slots.get_mut(i) {
            *slot = Some(r);
        }
    }
    slots.into_iter().zip(items).map(|(slot, item)| slot.unwrap_or_else(|| job(item))).collect()
}

/// The work done on each job, on whichever thread.
pub(crate) type Work<J> = Arc<dyn Fn(&mut J) + Send + Sync>;

#[derive(Debug)]
struct Worker<J> {
    jobs: Option<Sender<J>>,
    results: Receiver<J>,
    handle: Option<JoinHandle<()>>,
}

/// Where the result of a submitted job is.
#[derive(Debug)]
enum Slot<J> {
    /// Done on the calling thread.
    Done(J),
    /// With worker `i`.
    Worker(usize),
    /// Not started: every worker had all the jobs it may hold. The next worker with room gets
    /// it, unless the calling thread, waiting for a result, does it first.
    Queued(J),
}

/// How a caller sizes its pipeline.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    /// Octets of a whole job buffer: the buffers [`Pipeline::recycle`] keeps and a
    /// [`BufferPool`] lends have this length.
    pub(crate) buf_len: usize,
    /// Jobs in flight at most, whatever the thread count (but at least two once workers
    /// run): the caller's memory bound.
    pub(crate) max_depth: usize,
    /// Jobs run on the calling thread, one at a time, before any worker starts (at least one).
    pub(crate) solo_jobs: u64,
}

/// Jobs in, results out in submission order, on `threads` − 1 workers beside the calling
/// thread (none for 1).
pub(crate) struct Pipeline<J> {
    /// Names the worker threads.
    name: &'static str,
    work: Work<J>,
    threads: usize,
    workers: Vec<Worker<J>>,
    /// Jobs sent to each worker and not yet collected.
    pending: Vec<usize>,
    in_flight: VecDeque<Slot<J>>,
    submitted: u64,
    /// Jobs done on the calling thread before workers may start ([`Shape::solo_jobs`]).
    solo: u64,
    /// Jobs in flight at most ([`Shape::max_depth`]).
    max_depth: usize,
    /// Set by [`Pipeline::set_caller_bound`]: deeper queues, and workers that nap.
    caller_bound: bool,
    /// Whether starting the workers has been tried (once per pipeline).
    started: bool,
    /// Whole buffers of finished jobs, for reuse (zeroizing: wiped when dropped). They become
    /// the destination of later reads of the caller's source, so a caller gives back only
    /// buffers that hold no plaintext.
    free: Vec<SecretVec>,
    buf_len: usize,
    /// Where whole buffers go when the pipeline ends, and come from for the next streams.
    pool: Option<BufferPool>,
}

impl<J> std::fmt::Debug for Pipeline<J> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("threads", &self.threads)
            .field("workers", &self.workers.len())
            .field("in_flight", &self.in_flight.len())
            .finish_non_exhaustive()
    }
}

impl<J: Send + 'static> Pipeline<J> {
    /// A pipeline running `work` on jobs of the given `shape`, with [`default_threads`]
    /// threads; its worker threads are called `name`.
    pub(crate) fn new(name: &'static str, work: Work<J>, shape: Shape) -> Self {
        Self {
            name,
            work,
            threads: default_threads(),
            workers: Vec::new(),
            pending: Vec::new(),
            in_flight: VecDeque::new(),
            submitted: 0,
            solo: shape.solo_jobs.max(1),
            max_depth: shape.max_depth,
            caller_bound: false,
            started: false,
            free: Vec::new(),
            buf_len: shape.buf_len,
            pool: None,
        }
    }

    /// Takes whole buffers from `pool` ([`Pipeline::pooled`]) and leaves them there when the
    /// pipeline ends.
    pub(crate) fn set_pool(&mut self, pool: BufferPool) {
        self.pool = Some(pool);
    }

    /// Sets [`Shape::solo_jobs`] (at least one), so that tests start the workers early.
    #[cfg(test)]
    pub(crate) fn set_solo_jobs(&mut self, jobs: u64) {
        self.solo = jobs.max(1);
    }

    /// Sets the number of threads, the calling thread included (1 = no worker, jobs run on the
    /// calling thread; 0 counts as 1; at most [`max_threads`]). Takes effect only before workers
    /// started (after the solo jobs, see [`Shape::solo_jobs`]).
    pub(crate) fn set_threads(&mut self, threads: usize) {
        if self.workers.is_empty() {
            self.threads = threads.clamp(1, max_threads());
        }
    }

    /// For a caller whose calling thread limits the speed (see [`policy::caller_bound`]):
    /// deeper queues ([`CALLER_BOUND_PER_THREAD`], [`CALLER_BOUND_PER_WORKER`]), and workers
    /// that nap a few times ([`NAPS`]) when they run out of jobs before they block. A blocked
    /// worker must be woken by the calling thread when the next job comes, which costs that
    /// thread time on every job; a napping worker wakes on its own timer and finds the job.
    /// Takes effect only if called before the workers start.
    pub(crate) fn set_caller_bound(&mut self) {
        if self.workers.is_empty() {
            self.caller_bound = true;
        }
    }

    /// Jobs with one worker at most.
    fn per_worker(&self) -> usize {
        if self.caller_bound { CALLER_BOUND_PER_WORKER } else { PER_WORKER }
    }

    /// How many jobs may be in flight: two per thread (three if caller-bound), within
    /// [`Shape::max_depth`] (but at least two); 1 without workers, and during the solo jobs.
    /// Memory per stream is thus bounded whatever the thread count a caller asks for.
    pub(crate) fn depth(&self) -> usize {
        // Workers start only after the solo jobs, so during them there are none.
        if self.threads <= 1 || self.submitted < self.solo {
            return 1;
        }
        let per_thread = if self.caller_bound { CALLER_BOUND_PER_THREAD } else { PER_THREAD };
        self.threads.saturating_mul(per_thread).min(self.max_depth).max(2)
    }

    /// Workers started.
    #[cfg(test)]
    pub(crate) fn worker_count(&self) -> usize {
        self.workers.len()
    }

    /// Jobs submitted and not yet collected.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The length of the buffers the pipeline keeps for reuse (see [`Pipeline::recycled`]).
    pub(crate) fn buffer_len(&self) -> usize {
        self.buf_len
    }

    /// A recycled buffer of `buf_len` octets of this stream, if there is one. Callers start a
    /// new buffer small and grow it as data comes: a stream's last job is often short, and a
    /// new whole buffer costs page faults and zeroing whatever it will hold.
    pub(crate) fn recycled(&mut self) -> Option<SecretVec> {
        self.free.pop()
    }

    /// A wiped buffer of `buf_len` octets that an earlier stream left in the pipeline's
    /// [`BufferPool`], if it has one and there is one. (Not this stream's own recycled
    /// buffers: a job that grows into one would take it from the job after, which would then
    /// start small and do the same, job after job.)
    pub(crate) fn pooled(&self) -> Option<SecretVec> {
        self.pool.as_ref()?.take(self.buf_len)
    }

    /// A buffer of `buf_len` octets: a recycled one or a new one.
    #[cfg(test)]
    fn buffer(&mut self) -> SecretVec {
        self.recycled().unwrap_or_else(|| SecretVec::zeroed(self.buf_len))
    }

    /// Gives a whole buffer to the pool, if there is one (which wipes it), for the next
    /// streams; otherwise it is dropped, and so wiped.
    pub(crate) fn leave(&self, buf: SecretVec) {
        if let Some(pool) = &self.pool
            && buf.len() == self.buf_len
        {
            pool.give(buf);
        }
    }

    /// Takes back a buffer for reuse (wiped now if it is not kept).
    pub(crate) fn recycle(&mut self, buf: SecretVec) {
        if buf.len() == self.buf_len && self.free.len() < 2 {
            self.free.push(buf);
        }
    }

    /// Starts `threads` − 1 workers; on failure runs with those that started (maybe none).
    fn start(&mut self) {
        // No more workers than jobs may be in flight: with large buffers the caller's bound,
        // not the thread count, bounds memory.
        for _ in 1..self.threads.min(self.depth()) {
            let (job_tx, job_rx) = channel::<J>();
            let (result_tx, result_rx) = channel::<J>();
            let work = Arc::clone(&self.work);
            let mut naps = Naps { left: if self.caller_bound { NAPS } else { 0 }, overslept: 0 };
            let spawned = thread::Builder::new().name(self.name.into()).spawn(move || {
                while let Some(mut job) = next_job(&job_rx, &mut naps, || thread::sleep(NAP)) {
                    work(&mut job);
                    if result_tx.send(job).is_err() {
                        break;
                    }
                }
            });
            match spawned {
                Ok(handle) => {
                    self.workers.push(Worker {
                        jobs: Some(job_tx),
                        results: result_rx,
                        handle: Some(handle),
                    });
                    self.pending.push(0);
                }
                Err(_) => break,
            }
        }
    }

    /// Submits a job. The first jobs of a stream (the solo ones, see [`Shape::solo_jobs`]),
    /// and any with `inline`, run on the calling thread (a stream of one job starts no
    /// thread); the others go to a worker with room, or wait in the queue (see
    /// [`Pipeline::collect`]). The workers start when a second job would wait in the queue.
    pub(crate) fn submit(&mut self, mut job: J, inline: bool) {
        let parallel = !inline && self.threads > 1 && self.submitted >= self.solo;
        self.submitted = self.submitted.saturating_add(1);
        if !parallel {
            (self.work)(&mut job);
            self.in_flight.push_back(Slot::Done(job));
            return;
        }
        if !self.started && self.has_queued() {
            // A second job would wait: worth starting the workers (a last job alone, done
            // by the calling thread when collected, is not).
            self.started = true;
            self.start();
            self.feed();
        }
        // Jobs go to the workers in submission order: behind any still queued.
        match if self.has_queued() { Err(job) } else { self.send(job) } {
            Ok(i) => self.in_flight.push_back(Slot::Worker(i)),
            Err(job) => self.in_flight.push_back(Slot::Queued(job)),
        }
    }

    /// Whether a job waits in the queue.
    fn has_queued(&self) -> bool {
        self.in_flight.iter().any(|s| matches!(s, Slot::Queued(_)))
    }

    /// Sends `job` to the least busy worker that has room; gives it back if none has.
    fn send(&mut self, mut job: J) -> std::result::Result<usize, J> {
        let per_worker = self.per_worker();
        loop {
            let least_busy = self
                .pending
                .iter()
                .copied()
                .enumerate()
                .filter(|&(_, n)| n < per_worker)
                .min_by_key(|&(_, n)| n);
            let Some((i, _)) = least_busy else { return Err(job) };
            let sent = match self.workers.get(i).and_then(|w| w.jobs.as_ref()) {
                Some(tx) => tx.send(job).map_err(|returned| returned.0),
                None => Err(job),
            };
            match sent {
                Ok(()) => {
                    if let Some(n) = self.pending.get_mut(i) {
                        *n = n.saturating_add(1);
                    }
                    return Ok(i);
                }
                // The worker is gone (it cannot panic on any input; defence in depth): it gets
                // no more jobs, and the next one with room is tried.
                Err(returned) => {
                    if let Some(n) = self.pending.get_mut(i) {
                        *n = usize::MAX;
                    }
                    job = returned;
                }
            }
        }
    }

    /// Sends queued jobs, oldest first, to workers that have room.
    fn feed(&mut self) {
        let mut in_flight = std::mem::take(&mut self.in_flight);
        for slot in &mut in_flight {
            let mut full = false;
            *slot = match std::mem::replace(slot, Slot::Worker(usize::MAX)) {
                Slot::Queued(job) => match self.send(job) {
                    Ok(i) => Slot::Worker(i),
                    Err(job) => {
                        full = true;
                        Slot::Queued(job)
                    }
                },
                other => other,
            };
            if full {
                break;
            }
        }
        self.in_flight = in_flight;
    }

    /// Queues a job that is already done (its `result` set, the work not run), in submission
    /// order like the others.
    pub(crate) fn submit_failed(&mut self, job: J) {
        self.submitted = self.submitted.saturating_add(1);
        self.in_flight.push_back(Slot::Done(job));
    }

    /// Does the oldest queued job on the calling thread; false if none is queued.
    fn help(&mut self) -> bool {
        let Some(slot) = self.in_flight.iter_mut().find(|s| matches!(s, Slot::Queued(_))) else {
            return false;
        };
        *slot = match std::mem::replace(slot, Slot::Worker(usize::MAX)) {
            Slot::Queued(mut job) => {
                (self.work)(&mut job);
                Slot::Done(job)
            }
            other => other,
        };
        true
    }

    /// The oldest job's result; `None` if nothing is in flight. While its worker is still at
    /// it, the calling thread does queued jobs instead of waiting (so with n threads, n cores
    /// do the work, the calling thread between its I/O); a queued oldest job it does at once.
    ///
    /// # Errors
    /// If a worker died (it cannot panic on any input; this is defence in depth). A job run on
    /// the calling thread that panicked would unwind from here instead.
    pub(crate) fn collect(&mut self) -> Option<Result<J>> {
        self.next(true)
    }

    /// The oldest job as [`Pipeline::collect`] gives it, except that a job still queued comes
    /// back with its work not done, and the calling thread does no other: for a caller that
    /// wants only the jobs' inputs back.
    ///
    /// # Errors
    /// As [`Pipeline::collect`].
    pub(crate) fn collect_unrun(&mut self) -> Option<Result<J>> {
        self.next(false)
    }

    fn next(&mut self, run: bool) -> Option<Result<J>> {
        let i = match self.in_flight.pop_front()? {
            Slot::Done(job) => return Some(Ok(job)),
            Slot::Queued(mut job) => {
                if run {
                    (self.work)(&mut job);
                }
                return Some(Ok(job));
            }
            Slot::Worker(i) => i,
        };
        let received = loop {
            let Some(worker) = self.workers.get(i) else { break None };
            match worker.results.try_recv() {
                Ok(job) => break Some(job),
                Err(TryRecvError::Disconnected) => break None,
                Err(TryRecvError::Empty) => {
                    if !run || !self.help() {
                        break self.workers.get(i).and_then(|w| w.results.recv().ok());
                    }
                }
            }
        };
        let Some(job) = received else { return Some(Err(Error::Internal("worker thread failed"))) };
        if let Some(n) = self.pending.get_mut(i) {
            *n = n.saturating_sub(1);
        }
        self.feed();
        Some(Ok(job))
    }
}

/// A worker's naps (see [`Pipeline::set_caller_bound`]).
struct Naps {
    /// Naps to take each time it runs dry (0: it blocks at once).
    left: u32,
    /// How many of its latest naps, in a row, took longer than [`LONGEST_NAP`].
    overslept: u32,
}

/// A worker's next job, after up to `naps.left` naps (`nap`) if none is queued; `None` once
/// the pipeline is gone. See [`LONGEST_NAP`] for naps that oversleep.
fn next_job<J>(jobs: &Receiver<J>, naps: &mut Naps, nap: impl Fn()) -> Option<J> {
    for _ in 0..naps.left {
        match jobs.try_recv() {
            Ok(job) => return Some(job),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => {
                let start = Instant::now();
                nap();
                let overslept = start.elapsed() > LONGEST_NAP;
                naps.overslept = if overslept { naps.overslept.saturating_add(1) } else { 0 };
                if naps.overslept >= OVERSLEPT_NAPS {
                    naps.left = 0;
                }
                if overslept {
                    break;
                }
            }
        }
    }
    jobs.recv().ok()
}

impl<J> Drop for Pipeline<J> {
    fn drop(&mut self) {
        for worker in &mut self.workers {
            worker.jobs = None;
        }
        for worker in &mut self.workers {
            // Results still queued are dropped (and wiped) with the receiver.
            if let Some(handle) = worker.handle.take() {
                let _ = handle.join();
            }
        }
        if let Some(pool) = &self.pool {
            for buf in self.free.drain(..) {
                pool.give(buf);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// The tests' job: an index, a buffer the work changes, and a result.
    #[derive(Debug)]
    struct Job {
        index: u64,
        buf: SecretVec,
        result: Result<()>,
    }

    impl Job {
        fn new(index: u64, buf: SecretVec) -> Self {
            Self { index, buf, result: Ok(()) }
        }
    }

    type Work = super::Work<Job>;

    /// Buffers of `buf_len` octets, no depth bound of the caller's, one solo job.
    fn shape(buf_len: usize) -> Shape {
        Shape { buf_len, max_depth: usize::MAX, solo_jobs: 1 }
    }

    fn pipeline(threads: usize) -> Pipeline<Job> {
        let work: Work = Arc::new(|job: &mut Job| {
            job.result = if job.index == 3 { Err(Error::Decrypt) } else { Ok(()) };
            for b in job.buf.iter_mut() {
                *b = b.wrapping_add(u8::try_from(job.index % 251).unwrap());
            }
        });
        let mut p = Pipeline::new("test", work, shape(4));
        p.set_threads(threads);
        p
    }

    #[test]
    fn results_come_back_in_order_for_any_thread_count() {
        for (threads, caller_bound) in (0..6).flat_map(|t| [(t, false), (t, true)]) {
            let mut p = pipeline(threads);
            if caller_bound {
                p.set_caller_bound();
            }
            let mut out = Vec::new();
            for index in 0..40u64 {
                let mut buf = p.buffer();
                buf.fill(1);
                p.submit(Job::new(index, buf), index == 39);
                while p.in_flight() >= p.depth() {
                    out.push(p.collect().unwrap().unwrap());
                }
                assert!(p.in_flight() < p.depth());
            }
            while let Some(job) = p.collect() {
                out.push(job.unwrap());
            }
            assert_eq!(out.len(), 40);
            for (i, job) in out.iter().enumerate() {
                assert_eq!(job.index, i as u64);
                assert_eq!(job.result.is_err(), i == 3);
                assert_eq!(usize::from(job.buf[0]), 1 + i, "t {threads} job {i}");
            }
            assert_eq!(p.workers.len(), threads.clamp(1, max_threads()) - 1);
        }
    }

    /// A caller-bound pipeline's worker gets every job, whether it comes while the worker
    /// naps or after it blocked, and sees the end of the pipeline either way; a nap that
    /// oversleeps ends its naps.
    #[test]
    fn an_idle_worker_gets_every_job_whether_it_naps_or_blocks() {
        let nap = || thread::sleep(NAP);
        let (tx, rx) = channel::<u32>();
        let mut naps = Naps { left: NAPS, overslept: 0 };
        tx.send(1).unwrap();
        assert_eq!(next_job(&rx, &mut naps, nap), Some(1));
        let sender = thread::spawn(move || {
            thread::sleep(Duration::from_micros(30));
            tx.send(2).unwrap();
            thread::sleep(Duration::from_millis(20));
            tx.send(3).unwrap();
        });
        assert_eq!(next_job(&rx, &mut naps, nap), Some(2));
        assert_eq!(next_job(&rx, &mut naps, nap), Some(3));
        sender.join().unwrap();
        assert_eq!(next_job(&rx, &mut naps, nap), None);
        assert_eq!(next_job(&rx, &mut Naps { left: 0, overslept: 0 }, nap), None);
    }

    /// A nap that oversleeps ends the naps until the worker next runs dry; [`OVERSLEPT_NAPS`]
    /// in a row end them for good, and a short one in between starts the count again.
    #[test]
    fn naps_that_oversleep_end() {
        let (tx, rx) = channel::<u32>();
        let long = || thread::sleep(LONGEST_NAP * 2);
        let short = || {};
        let mut naps = Naps { left: NAPS, overslept: 0 };
        let almost = OVERSLEPT_NAPS - 1;
        let steps = (0..almost)
            .map(|_| (true, NAPS))
            .chain([(false, NAPS)])
            .chain((0..almost).map(|_| (true, NAPS)))
            .chain([(true, 0)]);
        for (nap_is_long, left_after) in steps {
            tx.send(7).unwrap();
            assert_eq!(
                next_job(&rx, &mut naps, if nap_is_long { &long as &dyn Fn() } else { &short }),
                Some(7)
            );
            // The next call finds nothing queued and naps: once if the nap is long (which
            // ends its naps), else all of `naps.left`. As the queue stays empty, it then
            // blocks until the job sent from another thread comes.
            let tx2 = tx.clone();
            let sender = thread::spawn(move || {
                thread::sleep(Duration::from_millis(5));
                tx2.send(8).unwrap();
            });
            assert_eq!(
                next_job(&rx, &mut naps, if nap_is_long { &long as &dyn Fn() } else { &short }),
                Some(8)
            );
            sender.join().unwrap();
            assert_eq!(naps.left, left_after, "after a {} nap", if nap_is_long { "long" } else { "short" });
        }
    }

    /// A worker that has not finished a job holds as many as it is allowed (more if
    /// caller-bound), and the rest wait in the queue; results still come back in order.
    #[test]
    fn a_worker_holds_the_jobs_its_caller_allows() {
        for (caller_bound, jobs, depth) in [
            (false, PER_WORKER, 2 * PER_THREAD),
            (true, CALLER_BOUND_PER_WORKER, 2 * CALLER_BOUND_PER_THREAD),
        ] {
            let release = Arc::new(AtomicUsize::new(0));
            let gate = Arc::clone(&release);
            let work: Work = Arc::new(move |job: &mut Job| {
                if thread::current().name() == Some("test-hold") {
                    let start = std::time::Instant::now();
                    while gate.load(Ordering::SeqCst) == 0 && start.elapsed().as_secs() < 10 {
                        thread::sleep(std::time::Duration::from_micros(100));
                    }
                }
                job.buf[0] = 7;
            });
            let mut p = Pipeline::new("test-hold", work, shape(4));
            p.set_threads(2);
            if caller_bound {
                p.set_caller_bound();
            }
            // The solo job, then enough for the worker and the queue (the depth does not
            // bound submissions; the callers collect).
            for index in 0..8u64 {
                let buf = p.buffer();
                p.submit(Job::new(index, buf), false);
            }
            let with_worker = p.in_flight.iter().filter(|s| matches!(s, Slot::Worker(_))).count();
            assert_eq!(with_worker, jobs, "{jobs} allowed");
            assert_eq!(p.depth(), depth);
            release.store(1, Ordering::SeqCst);
            let mut out = Vec::new();
            while let Some(job) = p.collect() {
                out.push(job.unwrap());
            }
            assert!(out.iter().map(|j| j.index).eq(0..8));
            assert!(out.iter().all(|j| j.buf[0] == 7));
        }
    }

    /// Jobs submitted faster than one worker takes them: it gets at most `PER_WORKER` at a
    /// time, the rest wait in the queue, and the calling thread does queued ones while it waits
    /// for the worker's. The worker's first job waits until the calling thread has helped once
    /// (or 10 s), so that the test does not depend on timing. The order of results is kept.
    #[test]
    fn the_calling_thread_does_queued_jobs_while_it_waits() {
        let helped = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&helped);
        let work: Work = Arc::new(move |job: &mut Job| {
            let on_worker = thread::current().name() == Some("test-worker");
            if on_worker {
                let start = std::time::Instant::now();
                while seen.load(Ordering::SeqCst) < 2 && start.elapsed().as_secs() < 10 {
                    thread::sleep(std::time::Duration::from_micros(100));
                }
            } else {
                let _ = seen.fetch_add(1, Ordering::SeqCst);
            }
            job.buf[0] = if on_worker { 2 } else { 1 };
        });
        let mut p = Pipeline::new("test-worker", work, shape(4));
        p.set_threads(2);
        let mut out = Vec::new();
        for index in 0..40u64 {
            let buf = p.buffer();
            p.submit(Job::new(index, buf), false);
            let sent = p.in_flight.iter().filter(|s| matches!(s, Slot::Worker(_))).count();
            assert!(sent <= PER_WORKER, "{sent} jobs with the one worker");
            while p.in_flight() >= p.depth() {
                out.push(p.collect().unwrap().unwrap());
            }
        }
        while let Some(job) = p.collect() {
            out.push(job.unwrap());
        }
        assert!(out.iter().map(|j| j.index).eq(0..40));
        let by_worker = out.iter().filter(|j| j.buf[0] == 2).count();
        let by_caller = out.iter().filter(|j| j.buf[0] == 1).count();
        assert_eq!(by_worker + by_caller, 40);
        // The first job runs on the calling thread, the next two go to the worker, and the
        // calling thread helps with the fourth while the worker waits.
        assert!(by_worker >= 2 && by_caller >= 2, "worker {by_worker}, caller {by_caller}");
        assert!(helped.load(Ordering::SeqCst) >= 2);
    }

    /// A worker that dies (a panicking job: cannot happen with the real work) turns its jobs
    /// into errors; nothing hangs, the other jobs come back in order, done elsewhere.
    #[test]
    fn a_dead_worker_gives_errors_not_a_hang() {
        let work: Work = Arc::new(|job: &mut Job| {
            assert!(!(job.index >= 3 && thread::current().name() == Some("test-dying")), "worker dies");
            job.buf[0] = 7;
        });
        let mut p = Pipeline::new("test-dying", work, shape(4));
        p.set_threads(2);
        let (mut ok, mut failed) = (Vec::new(), 0);
        for index in 0..40u64 {
            let buf = p.buffer();
            p.submit(Job::new(index, buf), false);
            while p.in_flight() >= p.depth() {
                match p.collect().unwrap() {
                    Ok(job) => ok.push(job.index),
                    Err(_) => failed += 1,
                }
            }
        }
        while let Some(job) = p.collect() {
            match job {
                Ok(job) => ok.push(job.index),
                Err(_) => failed += 1,
            }
        }
        assert_eq!(ok.len() + failed, 40);
        assert!(ok.is_sorted());
        // The worker died at its first job from the fourth on, with at most that one and the
        // next sent to it; the jobs after went to the calling thread.
        assert!((1..=PER_WORKER).contains(&failed), "{failed} errors");
        assert!(ok.contains(&39));
    }

    /// Whatever a caller asks for, at most `max_threads` threads: neither the pipeline (where a
    /// message with small chunks would otherwise let a large request start that many workers)
    /// nor `map_in_order`.
    #[test]
    fn thread_requests_are_capped() {
        let mut p = pipeline(10_000);
        for index in 0..3 {
            let buf = p.buffer();
            p.submit(Job::new(index, buf), false);
        }
        assert_eq!(p.workers.len(), max_threads() - 1);
        let seen = std::sync::Mutex::new(std::collections::HashSet::new());
        let items: Vec<usize> = (0..10_000).collect();
        let _ = map_in_order(10_000, 1, &items, |_| {
            let _ = seen.lock().map(|mut s| s.insert(thread::current().id()));
        });
        let threads = seen.lock().map(|s| s.len()).unwrap_or(0);
        assert!((1..=max_threads()).contains(&threads), "{threads} threads");
    }

    #[test]
    fn map_in_order_keeps_the_order_for_any_threads_and_batch() {
        let items: Vec<usize> = (0..103).collect();
        for threads in 0..5 {
            for take in [0, 1, 16, 200] {
                let out = map_in_order(threads, take, &items, |i| i * 2);
                assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>(), "t {threads} take {take}");
            }
        }
        assert!(map_in_order(2, 1, &Vec::<usize>::new(), |i| *i).is_empty());
    }

    #[test]
    fn one_job_starts_no_thread_and_depth_respects_the_bound() {
        let mut p = pipeline(4);
        assert_eq!(p.depth(), 1, "the first job runs alone");
        let buf = p.buffer();
        p.submit(Job::new(0, buf), false);
        assert!(p.workers.is_empty());
        assert_eq!(p.depth(), 8);
        let work: Work = Arc::new(|_: &mut Job| {});
        let mut big = Pipeline::new("test", work, Shape { buf_len: 4 << 20, max_depth: 2, solo_jobs: 1 });
        big.set_threads(4);
        big.submit(Job::new(0, SecretVec::zeroed(4)), false);
        assert_eq!(big.depth(), 2, "within the caller's bound, whatever the thread count");
        big.set_threads(64);
        assert_eq!(big.depth(), 2);
        big.set_threads(1);
        assert_eq!(big.depth(), 1);
    }

    /// If no worker could be started, queued jobs are all done by the calling thread, in order.
    #[test]
    fn without_workers_queued_jobs_run_on_the_calling_thread() {
        let mut p = pipeline(2);
        p.started = true; // as if starting had been tried and no thread came up
        let mut out = Vec::new();
        for index in 0..10 {
            let mut buf = p.buffer();
            buf.fill(1);
            p.submit(Job::new(index, buf), false);
            while p.in_flight() >= p.depth() {
                out.push(p.collect().unwrap().unwrap());
            }
        }
        while let Some(job) = p.collect() {
            out.push(job.unwrap());
        }
        assert!(p.workers.is_empty());
        assert!(out.iter().map(|j| j.index).eq(0..10));
        assert!(out.iter().enumerate().all(|(i, j)| usize::from(j.buf[0]) == 1 + i));
    }

    /// `solo_jobs`: the first jobs run on the calling thread one at a time; after them, a job
    /// that would wait alone (a stream's last) is queued and done by the calling thread when
    /// collected, and only a second one starts the workers.
    #[test]
    fn workers_start_after_the_solo_jobs_and_only_for_a_second_waiting_job() {
        let mut p = pipeline(2);
        p.set_solo_jobs(3);
        for index in 0..3 {
            assert_eq!(p.depth(), 1);
            let buf = p.buffer();
            p.submit(Job::new(index, buf), false);
            assert!(matches!(p.in_flight.back(), Some(Slot::Done(_))));
            let job = p.collect().unwrap().unwrap();
            p.recycle(job.buf);
        }
        assert_eq!(p.depth(), 4);
        let buf = p.buffer();
        p.submit(Job::new(3, buf), false);
        assert!(p.workers.is_empty(), "one job alone starts no thread");
        assert!(matches!(p.in_flight.back(), Some(Slot::Queued(_))));
        let buf = p.buffer();
        p.submit(Job::new(4, buf), false);
        assert_eq!(p.workers.len(), 1, "a second job starts the worker");
        let done: Vec<u64> = std::iter::from_fn(|| p.collect()).map(|j| j.unwrap().index).collect();
        assert_eq!(done, [3, 4]);
        // A stream that ends after its solo jobs and one more never starts a thread.
        let mut q = pipeline(2);
        q.set_solo_jobs(3);
        for index in 0..4 {
            let buf = q.buffer();
            q.submit(Job::new(index, buf), false);
            while q.in_flight() >= q.depth() {
                let _ = q.collect().unwrap().unwrap();
            }
        }
        let buf = q.buffer();
        q.submit(Job::new(4, buf), true);
        while let Some(job) = q.collect() {
            let _ = job.unwrap();
        }
        assert!(q.workers.is_empty());
    }

    /// The whole buffers a pipeline leaves go to its pool, wiped, and the next pipeline with
    /// that pool takes them; without a pool, or with an empty one, nothing is kept.
    #[test]
    fn whole_buffers_go_to_the_pipelines_pool() {
        let run = |pool: Option<&BufferPool>| {
            let mut p = pipeline(1);
            if let Some(pool) = pool {
                p.set_pool(pool.clone());
            }
            let reused = p.pooled().is_some();
            let mut buf = p.buffer();
            buf.fill(9);
            p.submit(Job::new(0, buf), false);
            let job = p.collect().unwrap().unwrap();
            p.recycle(job.buf);
            reused
        };
        let pool = BufferPool::default();
        assert!(!run(Some(&pool)), "a new pool is empty");
        assert!(run(Some(&pool)), "the first pipeline's buffer is reused");
        let mut p = pipeline(1);
        p.set_pool(pool.clone());
        assert!(p.pooled().unwrap().iter().all(|&b| b == 0), "wiped");
        assert!(!run(None));
        let off = BufferPool::new(0);
        let _ = run(Some(&off));
        assert!(!run(Some(&off)));
    }
}
