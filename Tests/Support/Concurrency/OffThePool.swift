import Foundation
import SystemCalls
import Testing

/// A task executor that never lets a blocked job hold up another: each job runs on an idle
/// thread of its own set, and when none is idle a new thread is started.
///
/// Tests start child processes and wait for them, sleep between polls, and call blocking APIs
/// (`LineWriter.finish`, `FramePixelPool.copy(wait:)`). On Swift's concurrency pool, two threads
/// on a 2-core machine, two such tests whose helpers need the pool hang for good; on this
/// executor a blocked test holds only its own thread. Threads stay for the process's life and
/// wait on one `LockedValue` condition when idle.
public final class ThreadPerBlockingJobExecutor: TaskExecutor, @unchecked Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        var idle = 0
        var threads = 0
    }

    private let state = LockedValue(State())

    /// The executor every `.offThePool` test runs on.
    public static let shared = ThreadPerBlockingJobExecutor()

    private static let mark = "syncscan.ThreadPerBlockingJobExecutor"

    /// Whether the calling thread is one of this executor's (a thread's name is no proof: a new
    /// thread starts with its creator's, and Foundation's setter does not always reach the kernel).
    public static var runsOnItsThread: Bool { Thread.current.threadDictionary[mark] as? Bool == true }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // A new thread whenever the queued jobs outnumber the idle threads: a job never waits
        // behind one that blocks.
        let number: Int? = state.withLock { state in
            state.jobs.append(job)
            guard state.jobs.count > state.idle else { return nil }
            state.threads += 1
            return state.threads
        }
        state.broadcast()
        if let number {
            // Named from inside: a new thread starts with its creator's name (a pool thread's).
            Thread { [self] in
                nameCurrentThread("test-job-\(number)")
                Thread.current.threadDictionary[Self.mark] = true
                work()
            }.start()
        }
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        while true {
            let job = state.withLock(when: { !$0.jobs.isEmpty }) { state, _ in state.jobs.removeFirst() }
            job.runSynchronously(on: executor)
            state.withLock { $0.idle += 1 }
            state.withLock(when: { !$0.jobs.isEmpty }) { state, _ in state.idle -= 1 }
        }
    }
}

/// Runs each test of the suite (or the test) it is applied to on `ThreadPerBlockingJobExecutor`
/// (`withTaskExecutorPreference`), so what the test blocks on blocks a thread of its own, never
/// one of Swift's concurrency pool. Child tasks of the test inherit the preference.
public struct OffThePoolTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(ThreadPerBlockingJobExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OffThePoolTrait {
    /// Each test body runs off Swift's concurrency pool: see `OffThePoolTrait`.
    public static var offThePool: Self { OffThePoolTrait() }
}
