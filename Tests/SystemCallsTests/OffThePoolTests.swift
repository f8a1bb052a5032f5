import Foundation
import SystemCalls
import TestSupport
import Testing

/// Test bodies under `.offThePool` run on `ThreadPerBlockingJobExecutor`'s threads, never on a
/// thread of Swift's concurrency pool, and a blocked body does not hold up another.
@Suite(.offThePool) struct OffThePoolTests {
    @Test func aSynchronousBodyRunsOnTheExecutorsThread() {
        #expect(ThreadPerBlockingJobExecutor.runsOnItsThread)
    }

    @Test func anAsynchronousBodyAndItsChildTasksRunOnTheExecutorsThreads() async {
        #expect(onExecutorThread())
        let children = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 { group.addTask { onExecutorThread() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(children == [true, true, true, true])
    }

    /// Eight child tasks each block until all eight have started: on a pool of two threads this
    /// never ends; here every blocked task holds a thread of its own.
    @Test func blockedChildTasksDoNotStarveEachOther() async {
        let started = LockedValue(0)
        let finished = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    started.withLock { $0 += 1 }
                    return waitUntil(every: .milliseconds(1)) { started.withLock { $0 } == 8 }
                }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(finished == 8)
    }

    /// The check behind every blocking wait of a test: true on this suite's threads and on a
    /// thread a test starts, false for a task on Swift's pool (where `waitUntil` would stop).
    @Test func blockingIsAllowedOffThePoolOnly() async {
        #expect(isOffThePool)
        let onPool = await Task.detached { isOffThePool }.value
        #expect(!onPool, "a detached task runs on the global pool")
        let onOwnThread = await runOnThread(name: "own-thread") { isOffThePool }
        #expect(onOwnThread)
    }
}

/// Whether the caller runs on one of the executor's threads (a synchronous call from async code).
private func onExecutorThread() -> Bool { ThreadPerBlockingJobExecutor.runsOnItsThread }
