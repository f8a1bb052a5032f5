import Foundation
import Logging
import Results
import ServiceLifecycle
import SystemCalls

/// A stop forced by a second SIGTERM or SIGINT: which signal, shared by the listener that sees it
/// and the results handlers' service that reports what was left (`ShutdownTimeoutError`).
public final class ForcedStop: Sendable {
    /// Seconds the forced stop may take before the process exits at once (`_exit(2)`): the
    /// group's cancellation ends the run unless a thread it waits for is stuck in a call that
    /// cancellation cannot reach.
    static let exitGraceSeconds = 3.0

    private let signal = LockedValue<ProcessSignals.Signal?>(nil)

    public init() {}

    /// The signal that forced the stop; `nil` while none has.
    var forcedBy: ProcessSignals.Signal? { signal.withLock { $0 } }

    /// Records the forcing signal; false when one already had.
    fileprivate func force(by forcing: ProcessSignals.Signal) -> Bool {
        signal.withLock { current in
            guard current == nil else { return false }
            current = forcing
            return true
        }
    }
}

/// SIGTERM and SIGINT, trapped once for the whole run: the first starts the group's graceful
/// shutdown (`ServiceGroup.triggerGracefulShutdown()`), a second one forces the stop.
///
/// swift-service-lifecycle's own `gracefulShutdownSignals` take only the first signal (a repeated
/// one is left unread), and its `cancellationSignals` must be other signals: so the group is given
/// none and this listener does both. A forced stop records its signal in `ForcedStop`, then
/// returns, and `Daemon.run` cancels the group: the results handlers' service gives up its flush
/// and throws `ShutdownTimeoutError` naming the lines not written, after the summary line, as at
/// the shutdown limit. A thread started at that moment exits the process (`_exit(2)`, status 1,
/// after one line on stderr naming the lines left) if the run has not ended within
/// `ForcedStop.exitGraceSeconds`: a `write(2)` blocked on a full pipe, or any thread that
/// cancellation cannot reach, never keeps a forced stop from ending.
struct StopSignals {
    let group: ServiceGroup
    let forced: ForcedStop
    /// stdout's writer, for the lines a forced exit leaves.
    let writer: LineWriter
    let logger: Logger

    /// SIGTERM's and SIGINT's arrivals, those since the process started first (`ProcessSignals`:
    /// trapped from the executable's first code, so one that came while the daemon started stops
    /// it now rather than having killed it, status 143, with nothing written).
    static func trap() -> AsyncStream<ProcessSignals.Arrivals> {
        try? ProcessSignals.trap()
        return ProcessSignals.shared.arrivals(of: [.terminate, .interrupt])
    }

    /// Listens on `signals` (`trap()`) until a second signal (returns) or until cancelled (the run ended by itself).
    func run(_ signals: AsyncStream<ProcessSignals.Arrivals>) async {
        var seen: ProcessSignals.Signal?
        for await arrivals in signals {
            let signal = arrivals.signal
            for _ in 0..<arrivals.count {
                guard let first = seen else {
                    seen = signal
                    logger.notice("\(signal): stopping after the frames in flight and writing what is queued; SIGTERM or SIGINT again stops at once, without what is not written yet")
                    await group.triggerGracefulShutdown()
                    continue
                }
                guard forced.force(by: signal) else { continue }
                logger.debug("second stop signal: forcing the stop", metadata: ["first": "\(first)", "second": "\(signal)"])
                Self.exitIfStillRunning(after: ForcedStop.exitGraceSeconds, signal: signal, writer: writer)
                return
            }
        }
    }

    /// Starts a thread that ends the process in `seconds` (`_exit(2)`, status 1), after one
    /// stderr line naming stdout's lines not written; the process's normal exit comes first when
    /// the cancelled run ends in time.
    private static func exitIfStillRunning(after seconds: Double, signal: ProcessSignals.Signal, writer: LineWriter) {
        startThread(name: "syncscan-exit") {
            Thread.sleep(forTimeInterval: seconds)
            StandardError.writeLine("syncscan: error: a second \(signal) forced the stop, which had not ended "
                                    + "\(Int(seconds)) s later: stdout had \(writer.pendingLines) lines not written; exiting without them")
            _exit(1)
        }
    }
}
