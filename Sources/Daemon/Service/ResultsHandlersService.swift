import Capture
import Foundation
import Media
import Results
import ServiceLifecycle
import SystemCalls

/// The results handlers' lifetime as a service of the daemon's group, the one lifecycle of their
/// threads: those that have threads (`ServiceHooks.start`) start when it runs; on graceful shutdown
/// every handler flushes (`ResultsHandler.finish`), stdout's lines after them, and then `finished`
/// runs (the run's summary line and final metrics, which count what the flush wrote).
///
/// It is listed before the scan service, and the group shuts its services down in reverse order,
/// each after the one before it has returned: so the handlers are told to flush only once the
/// scan service has returned and every code has been handed to them (a snapshot queue written,
/// a broker's last PUBACKs, a webhook's last deliveries). A code that reaches a handler before its
/// `start()` waits in the handler's queue. The flush blocks (a slow stdout reader, a slow disk)
/// and runs on a thread of its own; the first error of a flush (stdout closed) is thrown, so the
/// process exits non-zero after the others have flushed.
///
/// When the group's shutdown limit (`shutdown_timeout_seconds`) passes, or a second SIGTERM or
/// SIGINT forces the stop (`StopSignals`), the group cancels its services: this one stops waiting
/// for the flush, runs `finished` and throws `ShutdownTimeoutError` naming what was left and why
/// (the flush's thread is left to the process's exit).
public final class ResultsHandlersService: Service, Sendable {
    private let handlers: [any ResultsHandler]
    private let writer: LineWriter
    private let timeoutSeconds: Double
    private let forcedStop: ForcedStop?
    private let scanReturned: @Sendable () -> Bool
    private let finished: @Sendable () async -> Void

    /// - Parameters:
    ///   - handlers: the handlers whose `finish()` it calls, in delivery order; of them, those
    ///     that take the service's hooks (`ServiceHooks`) are started when it runs.
    ///   - writer: stdout's lines, finished after the handlers.
    ///   - timeoutSeconds: the group's shutdown limit, for `ShutdownTimeoutError`'s message.
    ///   - forcedStop: the signal that forced the stop, if one does, for the same message.
    ///   - scanReturned: whether the scan service's run has returned, for the same message (a
    ///     limit passed before the flush began: the scan was still delivering, or the services
    ///     listed after this one were still stopping).
    ///   - finished: runs after the flush, errors or not, and when the flush is given up.
    public init(handlers: [any ResultsHandler], writer: LineWriter, timeoutSeconds: Double = 0,
                forcedStop: ForcedStop? = nil, scanReturned: @escaping @Sendable () -> Bool = { false },
                finished: @escaping @Sendable () async -> Void = {}) {
        self.handlers = handlers
        self.writer = writer
        self.timeoutSeconds = timeoutSeconds
        self.forcedStop = forcedStop
        self.scanReturned = scanReturned
        self.finished = finished
    }

    public func run() async throws {
        for case let handler as any ServiceHooks in handlers { handler.start() }
        // Returns at the group's graceful shutdown, or at its cancellation (the limit passed).
        try? await gracefulShutdown()
        // The flush's thread and the cancellation each yield an outcome; the first one counts
        // (the stream keeps it until it is read), as `ScanService`'s run end does.
        let (outcomes, outcome) = AsyncStream.makeStream(of: FlushOutcome.self)
        // Cancelled before the graceful shutdown came here: the scan had not returned yet, or
        // the services shut down before this one (reporting, triggers, the live view) had not.
        // That stage is the one named: the flush started below runs on to the process's exit.
        let cancelledBefore: ShutdownTimeoutError.Stage? = Task.isCancelled ? (scanReturned() ? .services : .scan) : nil
        let stage = LockedValue(ShutdownTimeoutError.Stage.handlers)
        let (handlers, writer) = (self.handlers, self.writer)
        startThread(name: "syncscan-finish") {
            var errors: [any Error] = []
            do { try ResultsFanOut(handlers).finish() } catch { errors.append(error) }
            stage.withLock { $0 = .stdout }
            do { try writer.finish() } catch { errors.append(error) }
            outcome.yield(.flushed(errors))
        }
        let first: FlushOutcome = await withTaskCancellationHandler {
            for await first in outcomes { return first }
            return .givenUp
        } onCancel: {
            outcome.yield(.givenUp)
        }
        await finished()
        switch first {
        case .flushed(let errors):
            if let error = errors.first { throw error }
        case .givenUp:
            throw ShutdownTimeoutError(timeoutSeconds: timeoutSeconds, stage: cancelledBefore ?? stage.withLock { $0 },
                                       stdoutLinesLeft: writer.pendingLines,
                                       forcedBy: forcedStop?.forcedBy.map { "\($0)" })
        }
    }

    /// How the flush ended: done (with each handler's or stdout's error), or given up at the limit.
    private enum FlushOutcome: Sendable {
        case flushed([any Error])
        case givenUp
    }
}

/// The graceful shutdown took longer than `shutdown_timeout_seconds`, or a second SIGTERM or
/// SIGINT forced it (`forcedBy`): the run ends, non-zero, without what was still being written.
public struct ShutdownTimeoutError: Error, CustomStringConvertible {
    /// What the shutdown was doing when the limit passed.
    public enum Stage: Sendable {
        /// The scan had not returned (its last frames were being scanned and delivered).
        case scan
        /// The scan had returned; the daemon's other services (the stats line, STATUS=, the
        /// metrics file, triggers, the live view) were stopping, the handlers not yet flushing.
        case services
        /// The results handlers were flushing (snapshots, MQTT, webhooks, the live view).
        case handlers
        /// stdout's queued lines were being written.
        case stdout
    }

    public var timeoutSeconds: Double
    public var stage: Stage
    /// Lines queued for stdout and not written.
    public var stdoutLinesLeft: Int
    /// The second signal that forced the stop (`SIGINT`); `nil` when the limit passed.
    public var forcedBy: String?

    public init(timeoutSeconds: Double, stage: Stage, stdoutLinesLeft: Int, forcedBy: String? = nil) {
        (self.timeoutSeconds, self.stage, self.stdoutLinesLeft, self.forcedBy) = (timeoutSeconds, stage, stdoutLinesLeft, forcedBy)
    }

    public var description: String {
        // stdout's lines are named whenever some are left, whatever the stage.
        let lines = "stdout had \(stdoutLinesLeft) lines not written: is its reader reading?"
        let left = switch stage {
        case .scan: "the scan had not finished its last frames" + (stdoutLinesLeft > 0 ? "; \(lines)" : "")
        case .services: "the daemon's other services (reporting, triggers, the live view) were still stopping, the results handlers not flushed"
            + (stdoutLinesLeft > 0 ? "; \(lines)" : "")
        case .handlers: "the results handlers were still flushing (snapshots, MQTT, webhooks)" + (stdoutLinesLeft > 0 ? "; \(lines)" : "")
        case .stdout: lines
        }
        let why = forcedBy.map { "a second \($0) forced the stop" }
            ?? "the shutdown took longer than shutdown_timeout_seconds (\(DecimalText.string(timeoutSeconds, fractionDigits: 3)) s)"
        return "\(why): \(left); exiting without them"
    }
}
