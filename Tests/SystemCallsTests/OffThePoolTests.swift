import Foundation
import SystemCalls
import TestSupport
import Testing

/// Test bodies under `.offThePool` run on `ThreadPerBlockingJobExecutor`'s threads, never on a
/// thread of Swift's concurrency pool, and a blocked body does not hold up another.
@Suite(.offThePool) struct OffThePoolTests {
    @Test func aSynchronousBodyRunsOnTheExecutorsThread() {
        #expect(Thread.current.name?.hasPrefix("test-job-") == true, "thread: \(Thread.current.name ?? "unnamed")")
    }

    @Test func anAsynchronousBodyAndItsChildTasksRunOnTheExecutorsThreads() async {
        #expect(threadName().hasPrefix("test-job-"), "thread: \(threadName())")
        let names = await withTaskGroup(of: String.self) { group in
            for _ in 0..<4 { group.addTask { threadName() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(names.allSatisfy { $0.hasPrefix("test-job-") }, "threads: \(names)")
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

/// The name of the thread running the caller.
private func threadName() -> String { Thread.current.name ?? "unnamed" }

