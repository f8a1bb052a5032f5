import Foundation
import SystemCalls

/// How long a wait for an event may last before the test calls it a hang.
///
/// Far beyond what any loaded machine takes: a starved run (`scripts/starve.sh`: every core
/// busy, the whole test tree stopped 5 s of every 15 s) must never reach it, only a real hang.
/// A test waits for its event, never for time: no counted sleeps, no number of frames expected
/// in a wall-clock window, no rate asserted; this is the deadline of such a wait.
public let hangTimeout: Duration = .seconds(300)

/// Polls `condition` every `interval` until it holds or `timeout` has passed; whether it held.
///
/// The one way a test waits for something another thread or process does: every wait has a
/// deadline (by default `hangTimeout`: only a hang reaches it), and the waiting blocks only a
/// thread of the test's own (`requireOffThePool`).
@discardableResult
public func waitUntil(timeout: Duration = hangTimeout, every interval: Duration = .milliseconds(10),
                      _ condition: () throws -> Bool) rethrows -> Bool {
    requireOffThePool()
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        Thread.sleep(forTimeInterval: interval.seconds)
    }
}

/// Lets `duration` pass on the calling thread: for a test that must let a daemon or a peer run
/// for a while (a broker down for seconds, frames paced like a camera's).
public func pause(_ duration: Duration) {
    requireOffThePool()
    Thread.sleep(forTimeInterval: duration.seconds)
}

/// Stops the test process if the caller would block a thread of Swift's concurrency pool: a
/// test body must run `.offThePool` (on `ThreadPerBlockingJobExecutor`) or on a thread it
/// started itself (which runs no task).
public func requireOffThePool(file: StaticString = #fileID, line: UInt = #line) {
    precondition(isOffThePool, "a blocking wait on Swift's concurrency pool: mark the suite .offThePool", file: file, line: line)
}

/// Whether the calling thread may block: one of `ThreadPerBlockingJobExecutor`'s, or a thread
/// that runs no task (one a test started itself). A task anywhere else runs on the pool.
public var isOffThePool: Bool {
    ThreadPerBlockingJobExecutor.runsOnItsThread || withUnsafeCurrentTask { $0 == nil }
}

extension Duration {
    /// The duration in seconds, for APIs that take a `TimeInterval`.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
