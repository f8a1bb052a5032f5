import Foundation

/// What `body` returned, or `nil` when it has not returned within `timeout`: for a call that may
/// block for good (an `open(2)` of a FIFO without a writer), so the test fails instead of hanging.
///
/// `body` runs on a thread of `ThreadPerBlockingJobExecutor`'s, never one of Swift's concurrency
/// pool; the caller only awaits. A `body` that never returns keeps its thread for the process's life.
public func unlessHung<T: Sendable>(within timeout: Duration = hangTimeout, _ body: @escaping @Sendable () async -> T) async -> T? {
    let (outcomes, outcome) = AsyncStream.makeStream(of: T?.self)
    let work = Task(executorPreference: ThreadPerBlockingJobExecutor.shared) { outcome.yield(await body()) }
    let limit = Task { try? await Task.sleep(for: timeout); outcome.yield(nil) }
    defer { work.cancel(); limit.cancel() }
    for await first in outcomes { return first }
    return nil
}
