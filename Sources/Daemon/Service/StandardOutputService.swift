import Foundation
import Media
import Results
import ServiceLifecycle
import SystemCalls

/// stdout's lines as the last service of the daemon's group to stop: on graceful shutdown its
/// queued lines are written out, and then `finished` runs (the run's summary line and final
/// metrics, which count what the flush wrote).
///
/// It is listed first in the group, which shuts its services down in reverse order, each after
/// the one before it has returned: so stdout is flushed only once the scan has returned and
/// every results handler (`ResultsHandlerService`, listed just after this one) has flushed. The
/// flush blocks (a slow stdout reader) and runs on a thread of its own; its error (stdout
/// closed) is thrown, so the process exits non-zero.
///
/// When the group's shutdown limit (`shutdown_timeout_seconds`) passes, or a second SIGTERM or
/// SIGINT forces the stop (`StopSignals`), the group cancels its services: this one stops
/// waiting, runs `finished` and throws `ShutdownTimeoutError` naming the stage the shutdown was
/// in (`ShutdownProgress`) and the lines left (the flush's thread, if it started, is left to the
/// process's exit).
public final class StandardOutputService: Service, Sendable {
    private let writer: LineWriter
    private let progress: ShutdownProgress
    private let timeoutSeconds: Double
    private let forcedStop: ForcedStop?
    private let finished: @Sendable () async -> Void

    /// - Parameters:
    ///   - writer: stdout's lines.
    ///   - progress: how far the shutdown got, for `ShutdownTimeoutError`'s message.
    ///   - timeoutSeconds: the group's shutdown limit, for the same message.
    ///   - forcedStop: the signal that forced the stop, if one does, for the same message.
    ///   - finished: runs after the flush, errors or not, and when the flush is given up.
    public init(writer: LineWriter, progress: ShutdownProgress, timeoutSeconds: Double = 0, forcedStop: ForcedStop? = nil,
                finished: @escaping @Sendable () async -> Void = {}) {
        (self.writer, self.progress, self.timeoutSeconds, self.forcedStop, self.finished) = (writer, progress, timeoutSeconds, forcedStop, finished)
    }

    public func run() async throws {
        // Returns at the group's graceful shutdown, or at its cancellation (the limit passed).
        try? await gracefulShutdown()
        var outcome: Result<Void, any Error>?
        if !Task.isCancelled {
            progress.stdoutFlushStarted()
            let writer = self.writer
            outcome = await runOnThreadUnlessCancelled(name: "syncscan-stdout") { try writer.finish() }
        }
        await finished()
        guard let outcome else {
            let error = ShutdownTimeoutError(timeoutSeconds: timeoutSeconds, stage: progress.stage, stdoutLinesLeft: writer.pendingLines,
                                             forcedBy: forcedStop?.forcedBy.map { "\($0)" })
            progress.stdoutFailed(error)
            throw error
        }
        do {
            try outcome.get()
        } catch let error as IOError {
            progress.stdoutFailed(error)
            throw error
        }
    }
}

/// The graceful shutdown took longer than `shutdown_timeout_seconds`, or a second SIGTERM or
/// SIGINT forced it (`forcedBy`): the run ends, non-zero, without what was still being written.
public struct ShutdownTimeoutError: Error, Sendable, CustomStringConvertible {
    /// What the shutdown was doing when the limit passed.
    public enum Stage: Sendable, Equatable {
        /// The scan had not returned (its last frames were being scanned and delivered).
        case scan
        /// The scan had returned; the daemon's other services (the stats line, STATUS=, the
        /// metrics file, triggers, the live view) were stopping, the handlers not yet flushing.
        case services
        /// The results handlers were flushing (snapshots, MQTT, webhooks, the live view): these,
        /// by their names (`mqtt`), were.
        case handlers([String])
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
        case .handlers(let names): "the results handlers were still flushing" + (names.isEmpty ? "" : " (\(names.joined(separator: ", ")))")
            + (stdoutLinesLeft > 0 ? "; \(lines)" : "")
        case .stdout: lines
        }
        let why = forcedBy.map { "a second \($0) forced the stop" }
            ?? "the shutdown took longer than shutdown_timeout_seconds (\(DecimalText.string(timeoutSeconds, fractionDigits: 3)) s)"
        return "\(why): \(left); exiting without them"
    }
}
