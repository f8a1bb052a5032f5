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
                    let deadline = ContinuousClock.now + .seconds(20)
                    while started.withLock { $0 } < 8 && ContinuousClock.now < deadline { usleep(1_000) }
                    return started.withLock { $0 } == 8
                }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(finished == 8)
    }
}

/// Whether the caller runs on one of the executor's threads (a synchronous call from async code).
private func onExecutorThread() -> Bool { ThreadPerBlockingJobExecutor.runsOnItsThread }

