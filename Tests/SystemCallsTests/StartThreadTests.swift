import Foundation
import SystemCalls
import TestSupport
import Testing

/// The names of this process's threads now (`/proc/self/task/*/comm`).
private func threadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .newlines) }
}

/// Every thread syncscan starts is a `BoundedWorker`'s: `startThread` is a worker of one job.
@Suite(.serialized, .offThePool) struct StartThreadTests {
    /// The body runs on a thread of its own with the given name, and that thread ends once the
    /// body returns (a worker left open would park it for the process's life).
    @Test func theBodyRunsOnANamedThreadThatEndsWithIt() {
        let name = "syncscan-st-\(Int.random(in: 100...999))"
        let seen = LockedValue<String?>(nil)
        let release = LockedValue(false)
        startThread(name: name) {
            seen.withLock { $0 = threadNames().contains(name) ? name : "unnamed" }
            _ = release.withLock(when: { $0 }) { _, _ in }
        }
        #expect(waitUntil { seen.withLock { $0 } != nil })
        #expect(seen.withLock { $0 } == name)
        #expect(threadNames().contains(name), "the thread runs until its body returns")
        release.withLock { $0 = true }
        release.broadcast()
        #expect(waitUntil { !threadNames().contains(name) }, "the thread outlived its body: \(threadNames())")
    }

    /// `close()` returns at once: the queued jobs still run, a later one is refused, then the thread ends.
    @Test func closeLetsTheQueuedJobsRunAndRefusesLaterOnesWithoutWaiting() {
        let name = "syncscan-cl-\(Int.random(in: 100...999))"
        let ran = LockedValue<[Int]>([])
        let release = LockedValue(false)
        let worker = BoundedWorker<Int>(name: name, capacity: 4, overflow: .wait) { job, _ in
            _ = release.withLock(when: { $0 }) { _, _ in }
            ran.withLock { $0.append(job) }
        }
        #expect(worker.submit(1) && worker.submit(2))
        #expect(worker.close(), "its thread had started")
        #expect(!worker.submit(3), "a closed worker takes no job")
        #expect(ran.withLock { $0 }.isEmpty, "close() returned while the first job was still held")
        release.withLock { $0 = true }
        release.broadcast()
        #expect(waitUntil { ran.withLock { $0 } == [1, 2] }, "\(ran.withLock { $0 })")
        #expect(waitUntil { !threadNames().contains(name) }, "the thread outlived its jobs: \(threadNames())")
        #expect(worker.dropped == 1)
    }
}
