import Capture
import Foundation
import Media
import Results
import ServiceLifecycle
import SystemCalls

/// The results handlers' lifetime as a service of the daemon's group: their threads start when
/// it runs; on graceful shutdown they flush, stdout's lines after them, and then `finished` runs
/// (the run's summary line and final metrics, which count what the flush wrote).
///
/// It is listed before the scan service, and the group shuts its services down in reverse order,
/// each after the one before it has returned: so the handlers are told to flush only once the
/// scan service has returned and every code has been handed to them (a snapshot queue written,
/// a broker's last PUBACKs, a webhook's last deliveries). A code that reaches a handler before its
/// `start()` waits in the handler's queue. The flush blocks (a slow stdout reader, a slow disk)
/// and runs on a thread of its own; the first error of a flush (stdout closed) is thrown, so the
/// process exits non-zero after the others have flushed.
///
/// When the group's shutdown limit (`shutdown_timeout_seconds`) passes, the group cancels its
/// services: this one stops waiting for the flush, runs `finished` and throws
/// `ShutdownTimeoutError` naming what was left (the flush's thread is left to the process's exit).
public final class ResultsHandlersService: Service, Sendable {
    private let handlers: [any ResultsHandler]
    private let writer: LineWriter
    private let timeoutSeconds: Double
    private let finished: @Sendable () async -> Void

    /// - Parameters:
    ///   - handlers: the handlers whose `start()` and `finish()` it calls, in delivery order.
    ///   - writer: stdout's lines, finished after the handlers.
    ///   - timeoutSeconds: the group's shutdown limit, for `ShutdownTimeoutError`'s message.
    ///   - finished: runs after the flush, errors or not, and when the flush is given up.
    public init(handlers: [any ResultsHandler], writer: LineWriter, timeoutSeconds: Double = 0,
                finished: @escaping @Sendable () async -> Void = {}) {
        self.handlers = handlers
        self.writer = writer
        self.timeoutSeconds = timeoutSeconds
        self.finished = finished
    }

    public func run() async throws {
        for handler in handlers { handler.start() }
        // Returns at the group's graceful shutdown, or at its cancellation (the limit passed).
        try? await gracefulShutdown()
        let flush = Flush()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                flush.wait(continuation)
                let (handlers, writer) = (self.handlers, self.writer)
                Thread {
                    nameCurrentThread("syncscan-finish")
                    var errors: [any Error] = []
                    flush.reached(.handlers)
                    do { try ResultsFanOut(handlers).finish() } catch { errors.append(error) }
                    flush.reached(.stdout)
                    do { try writer.finish() } catch { errors.append(error) }
                    flush.end(.flushed(errors))
                }.start()
            }
        } onCancel: {
            flush.end(.givenUp)
        }
        await finished()
        switch outcome {
        case .flushed(let errors):
            if let first = errors.first { throw first }
        case .givenUp:
            throw ShutdownTimeoutError(timeoutSeconds: timeoutSeconds, stage: flush.stage, stdoutLinesLeft: writer.pendingLines)
        }
    }

    /// How far the flush got, and its one outcome: flushed, or given up at the limit.
    private final class Flush: Sendable {
        enum Outcome: Sendable {
            case flushed([any Error])
            case givenUp
        }

        private struct State {
            var stage = ShutdownTimeoutError.Stage.scan
            var outcome: Outcome?
            var continuation: CheckedContinuation<Outcome, Never>?
        }

        private let state = LockedValue(State())

        var stage: ShutdownTimeoutError.Stage { state.withLock { $0.stage } }

        func reached(_ stage: ShutdownTimeoutError.Stage) { state.withLock { $0.stage = stage } }

        /// Resumes `continuation` with the outcome, now if there is one already.
        func wait(_ continuation: CheckedContinuation<Outcome, Never>) {
            let outcome: Outcome? = state.withLock { state in
                if state.outcome == nil { state.continuation = continuation }
                return state.outcome
            }
            if let outcome { continuation.resume(returning: outcome) }
        }

        /// The first outcome wins; a later one is ignored.
        func end(_ outcome: Outcome) {
            let waiting: CheckedContinuation<Outcome, Never>? = state.withLock { state in
                guard state.outcome == nil else { return nil }
                state.outcome = outcome
                defer { state.continuation = nil }
                return state.continuation
            }
            waiting?.resume(returning: outcome)
        }
    }
}

/// The graceful shutdown took longer than `shutdown_timeout_seconds`: the run ends, non-zero,
/// without what was still being written.
public struct ShutdownTimeoutError: Error, CustomStringConvertible {
    /// What the shutdown was doing when the limit passed.
    public enum Stage: Sendable {
        /// The scan had not returned (its last frames were being scanned and delivered).
        case scan
        /// The results handlers were flushing (snapshots, MQTT, webhooks, the live view).
        case handlers
        /// stdout's queued lines were being written.
        case stdout
    }

    public var timeoutSeconds: Double
    public var stage: Stage
    /// Lines queued for stdout and not written.
    public var stdoutLinesLeft: Int

    public var description: String {
        let left = switch stage {
        case .scan: "the scan had not finished its last frames"
        case .handlers: "the results handlers were still flushing (snapshots, MQTT, webhooks)"
        case .stdout: "stdout had \(stdoutLinesLeft) lines not written: is its reader reading?"
        }
        return "the shutdown took longer than shutdown_timeout_seconds (\(DecimalText.string(timeoutSeconds, fractionDigits: 3)) s): "
            + "\(left); exiting without them"
    }
}
