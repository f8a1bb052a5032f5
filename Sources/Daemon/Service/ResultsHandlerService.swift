import Results
import ServiceLifecycle
import SystemCalls

/// One results handler with threads of its own (`ServiceHooks`) as a service of the daemon's
/// group: its threads start when the group runs, and it flushes (`ServiceHooks.finish`) when the
/// group shuts this service down.
///
/// The daemon lists the handlers' services after stdout's (`StandardOutputService`) and before
/// everything else, in reverse delivery order: the group shuts its services down in reverse
/// order, each after the one before it has returned, so the handlers flush once the scan has
/// returned and every code has been handed to them (a snapshot queue written, a broker's last
/// PUBACKs, a webhook's last deliveries), one after another in delivery order, and stdout last.
/// A code that reaches a handler before its `start()` waits in the handler's queue.
///
/// The flush blocks and runs on a thread of its own; its error is thrown, and the group, whose
/// failure behaviour for this service is to shut down gracefully, goes on stopping the others and
/// throws the first error at the end. When the group is cancelled (the shutdown limit passed, or
/// a second signal) it stops waiting and returns: stdout's service names the stage from
/// `progress`.
public final class ResultsHandlerService: Service, Sendable {
    /// The handler's name in messages (its descriptor's: `snapshots`, `mqtt`).
    public let name: String
    private let handler: any ServiceHooks
    private let progress: ShutdownProgress

    public init(name: String, handler: any ServiceHooks, progress: ShutdownProgress) {
        (self.name, self.handler, self.progress) = (name, handler, progress)
    }

    public func run() async throws {
        handler.start()
        // Returns at the group's graceful shutdown, or at its cancellation.
        try? await gracefulShutdown()
        guard !Task.isCancelled else { return }
        progress.handlerFlushStarted(name)
        let handler = self.handler
        let outcome = await runOnThreadUnlessCancelled(name: "syncscan-finish") { try handler.finish() }
        guard let outcome else { return }
        progress.handlerFlushEnded(name)
        try outcome.get()
    }
}

/// How far the daemon's graceful shutdown got, for `ShutdownTimeoutError`'s stage: the scan
/// returned, which handlers are flushing, stdout's flush began.
public final class ShutdownProgress: Sendable {
    private struct State {
        var scanReturned = false
        var handlersBegun = false
        var flushing: [String] = []
        var stdout = false
        var stdoutFailure: (any Error & Sendable)?
    }

    private let state = LockedValue(State())

    public init() {}

    /// The scan service's run returned: no more codes will be handed over.
    public func scanReturned() { state.withLock { $0.scanReturned = true } }

    /// The handler named `name` began its flush.
    public func handlerFlushStarted(_ name: String) {
        state.withLock { $0.handlersBegun = true; $0.flushing.append(name) }
    }

    /// The handler named `name` finished its flush.
    public func handlerFlushEnded(_ name: String) {
        state.withLock { state in state.flushing.removeAll { $0 == name } }
    }

    /// stdout's flush began (every handler's has ended).
    public func stdoutFlushStarted() { state.withLock { $0.stdout = true } }

    /// stdout's service failed with `error` (its flush's, or `ShutdownTimeoutError`); the first one is kept.
    public func stdoutFailed(_ error: any Error & Sendable) {
        state.withLock { if $0.stdoutFailure == nil { $0.stdoutFailure = error } }
    }

    /// stdout's service's failure, which ends the run even when the service group drops it: a
    /// cancelled group (a forced stop, the shutdown limit) can end its graceful-shutdown loop
    /// before stdout's service has reported, and the error thrown after that is lost.
    public var stdoutFailure: (any Error & Sendable)? { state.withLock { $0.stdoutFailure } }

    /// Where the shutdown is now.
    public var stage: ShutdownTimeoutError.Stage {
        state.withLock { state in
            if state.stdout { return .stdout }
            if state.handlersBegun { return .handlers(state.flushing) }
            return state.scanReturned ? .services : .scan
        }
    }
}
