import Foundation

/// What a full queue does with one more job.
public enum OverflowPolicy: Sendable, Hashable {
    /// The submitter waits for room (a file source: nothing is live, everything matters).
    case wait
    /// The new job is dropped and counted (a live source: never stall capture).
    case drop
    /// The oldest queued job is dropped and counted to make room (only the latest matters).
    case dropOldest
}

/// One thread working through a bounded queue of jobs, in order: the one worker type of
/// syncscan, whose threads are all a worker's: the outputs' queues (stdout lines, snapshots, the
/// metrics textfile) and, through `startThread`, every thread that runs one job for its whole
/// life (a session's source and scanning threads, the broker connection, a blocking call).
///
/// `submit` queues a job under `overflow`'s rule and wakes the thread; the thread takes one job
/// at a time and runs `work` on it *outside* the lock, so submitting never waits for the work
/// (unless the policy is `.wait` and the queue is full). The thread starts with the first
/// `submit` or `start()`, never in `init`, and is named `name` (for `top -H` and backtraces).
/// `finish()` lets the queued jobs run, then ends the thread and waits for it: it blocks, so
/// call it off the concurrency pool (`runOnThread`). State lives in one `LockedValue` whose
/// condition is the only wake-up.
public final class BoundedWorker<Job: Sendable>: Sendable {
    private struct State {
        var jobs: [Job?] = []
        var head = 0
        var capacity: Int
        var overflow: OverflowPolicy
        var dropped = 0
        var started = false
        var closed = false
        var finished = false
        var pending: Int { jobs.count - head }

        mutating func removeFirst() -> Job {
            let job = jobs[head]!
            jobs[head] = nil
            head += 1
            if head > 64 && head * 2 > jobs.count { jobs.removeFirst(head); head = 0 }
            return job
        }
    }

    private let state: LockedValue<State>
    private let name: String
    private let work: @Sendable (Job, BoundedWorker<Job>) -> Void
    private let onStart: (@Sendable () -> Void)?

    /// - Parameters:
    ///   - name: the thread's name (`syncscan-output`): at most 15 bytes, Linux's limit (a longer
    ///     one is refused and the thread keeps its creator's name).
    ///   - capacity: jobs that may wait (at least 1).
    ///   - overflow: what a full queue does; `setOverflow` changes it later.
    ///   - work: runs each job on the worker's thread, one at a time, in submission order; it is
    ///     handed the worker too (to `discardPending()` when its destination failed).
    ///   - onStart: runs first on the thread, before any job (listing a directory).
    public init(name: String, capacity: Int, overflow: OverflowPolicy, onStart: (@Sendable () -> Void)? = nil,
                work: @escaping @Sendable (Job, BoundedWorker<Job>) -> Void) {
        self.name = name
        self.work = work
        self.onStart = onStart
        state = LockedValue(State(capacity: max(1, capacity), overflow: overflow))
    }

    /// Starts the thread if it is not running yet (`submit` does it too).
    public func start() {
        let start: Bool = state.withLock { state in
            guard !state.started, !state.closed else { return false }
            state.started = true
            return true
        }
        guard start else { return }
        let name = self.name
        // Named from inside: a new thread starts with its creator's name.
        Thread { [self] in
            nameCurrentThread(name)
            drain()
        }.start()
    }

    /// Queues `job`; false when it was not queued (dropped under `.drop`, or the worker is
    /// finished). Under `.wait` it waits for room; under `.dropOldest` it always queues.
    @discardableResult
    public func submit(_ job: Job) -> Bool {
        start()
        let queued: Bool = state.withLock(when: { $0.pending < $0.capacity || $0.overflow != .wait || $0.closed }) { state, _ in
            if state.closed { state.dropped += 1; return false }
            if state.pending >= state.capacity {
                switch state.overflow {
                case .drop: state.dropped += 1; return false
                case .dropOldest: _ = state.removeFirst(); state.dropped += 1
                case .wait: break  // there is room: the predicate waited for it, or the policy changed
                }
            }
            state.jobs.append(job)
            return true
        }
        state.broadcast()
        return queued
    }

    /// Changes what a full queue does from now on (a waiting submitter re-checks).
    public func setOverflow(_ policy: OverflowPolicy) {
        state.withLock { $0.overflow = policy }
        state.broadcast()
    }

    /// Changes how many jobs may wait from now on; jobs already queued beyond a smaller
    /// capacity still run.
    public func setCapacity(_ capacity: Int) {
        state.withLock { $0.capacity = max(1, capacity) }
        state.broadcast()
    }

    public var capacity: Int { state.withLock { $0.capacity } }
    /// Jobs queued and not yet taken by the thread.
    public var pending: Int { state.withLock { $0.pending } }
    /// Jobs not queued because the queue was full (or the worker finished), and queued jobs
    /// dropped by `.dropOldest`.
    public var dropped: Int { state.withLock { $0.dropped } }

    /// Drops every queued job and refuses later ones (counted as dropped); returns how many were
    /// queued. For a worker whose destination failed (stdout closed).
    @discardableResult
    public func discardPending() -> Int {
        let count: Int = state.withLock { state in
            let count = state.pending
            state.jobs.removeAll()
            state.head = 0
            state.closed = true
            return count
        }
        state.broadcast()
        return count
    }

    /// Runs the queued jobs, ends the thread and waits for it (blocking); safe to call again.
    public func finish() {
        guard close() else { return }
        state.withLock(when: { $0.finished }) { _, _ in }
    }

    /// Refuses later jobs and lets the queued ones run, after which the thread ends; returns at
    /// once (`finish()` waits), true when the thread had started.
    @discardableResult
    public func close() -> Bool {
        let running: Bool = state.withLock { state in
            state.closed = true
            if !state.started { state.finished = true }
            return state.started
        }
        state.broadcast()
        return running
    }

    private func drain() {
        onStart?()
        while true {
            let job: Job? = state.withLock(when: { $0.pending > 0 || $0.closed }) { state, _ in
                state.pending > 0 ? state.removeFirst() : nil
            }
            guard let job else { break }
            state.broadcast()  // room for a waiting submitter
            work(job, self)
        }
        state.withLock { $0.finished = true }
        state.broadcast()
    }
}

/// Runs `body` once on a thread of its own, named `name` (at most 15 bytes), and returns at once:
/// a `BoundedWorker` of that one job, closed as it is queued, so its thread ends when `body`
/// returns. For a thread that runs one loop for its whole life (a session's source) or one
/// blocking call; the worker lives as long as its thread.
public func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
    let worker = BoundedWorker<Void>(name: name, capacity: 1, overflow: .wait) { _, _ in body() }
    worker.submit(())
    worker.close()
}
