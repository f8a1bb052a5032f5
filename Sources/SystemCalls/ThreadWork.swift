import Foundation

/// Runs blocking `body` on a thread of its own and awaits its result, so no thread of Swift's
/// concurrency pool (two on a 2-core machine) is held while it blocks: finishing a queue that
/// waits for a slow reader, a `waitpid`, a join.
///
/// One new thread per call (`startThread`, named `name`, for `top -H` and backtraces); the
/// continuation is resumed from it with what `body` returned or threw. Cancellation does not
/// interrupt `body`.
public func runOnThread<T: Sendable, Failure: Error>(
    name: String, _ body: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result: Result<T, Failure> = await withCheckedContinuation { continuation in
        startThread(name: name) { continuation.resume(returning: Result(catching: body)) }
    }
    return try result.get()
}

/// Runs blocking `body` on a thread of its own and awaits its result unless the task is
/// cancelled first: then it returns `nil` at once and leaves `body` to run on (its thread ends
/// when `body` returns). A shutdown limit gives up a flush this way.
public func runOnThreadUnlessCancelled<T: Sendable>(
    name: String, _ body: @escaping @Sendable () throws -> T
) async -> Result<T, any Error>? {
    // The thread and the cancellation each yield an outcome; the first one counts (the stream
    // keeps it until it is read).
    let (outcomes, outcome) = AsyncStream.makeStream(of: Result<T, any Error>?.self)
    startThread(name: name) { outcome.yield(Result(catching: body)) }
    return await withTaskCancellationHandler {
        for await first in outcomes { return first }
        return nil
    } onCancel: {
        outcome.yield(nil)
    }
}
