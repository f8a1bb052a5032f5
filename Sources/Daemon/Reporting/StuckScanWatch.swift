import Capture
import Logging
import Media
import ServiceLifecycle
import SystemCalls

/// Finds a scan of one frame that has not returned within `scan_timeout_seconds`, once a second
/// (never on a scanning thread): logs it once at error level with the frame's seq and pass,
/// counts it (`scans_stuck`, in `StuckScans`), tells `events` while one is stuck (the watchdog
/// pings stop), and when no supervisor restarts the service on that (`restartsWhenStuck`: no
/// systemd watchdog) ends the scan's run (`endRun`, once).
///
/// A service of the daemon's group, stopped once the scan has returned.
struct StuckScanWatch: Service {
    /// How often the scans under way are checked (a later round is a pause of the process).
    static let interval: Duration = .seconds(1)

    let scan: any ScanReadings
    /// The scan's record of stuck scans (its count and STATUS= read it).
    let stuckScans: StuckScans
    let events: any ServiceEvents
    let logger: Logger
    /// Ends the scan's run with the error (`ScanService.endRun`).
    let endRun: @Sendable (ScanStuckError) -> Void

    func run() async throws {
        try await cancelWhenGracefulShutdown { await watch() }
    }

    private func watch() async {
        while !Task.isCancelled {
            check()
            do { try await Task.sleep(for: Self.interval) } catch { return }
        }
    }

    /// Logs each scan newly past `scan_timeout_seconds`, tells `events` whether one is stuck,
    /// and without a supervisor that restarts on that, ends the run (once).
    func check() {
        let (metadata, timeout) = (scan.metadataOutput, scan.configuration.scanTimeoutSeconds)
        let restarts = events.restartsWhenStuck
        let finding = stuckScans.check(metadata, timeout: timeout, endRun: !restarts)
        for (scan, elapsed) in finding.fresh {
            logger.error("a scan did not return within scan_timeout_seconds", metadata: [
                "seq": "\(scan.sequenceNumber)", "pass": "\(scan.pass.map { "\($0)" } ?? "-")",
                "seconds": "\(elapsed.components.seconds)",
                "scan_timeout_seconds": "\(DecimalText.string(timeout, fractionDigits: 3))",
                "action": "\(restarts ? "watchdog pings stop until it returns" : "the run ends")",
            ])
        }
        events.scanStuck(!finding.stuck.isEmpty)
        if finding.endsRun, let first = finding.stuck.first {
            endRun(ScanStuckError(timeoutSeconds: timeout, sequenceNumber: first.sequenceNumber))
        }
    }
}

/// The scans that have not returned within `scan_timeout_seconds`, as `StuckScanWatch` finds them:
/// each counted once, timed without the time the whole process was stopped or suspended
/// (`ProcessPauses`), and the run told to end at most once.
final class StuckScans: Sendable {
    /// What one check found.
    struct Finding {
        /// The scans stuck now, oldest first.
        var stuck: [MetadataOutput.ScanInProgress] = []
        /// Those not found stuck by an earlier check, each with how long it has run.
        var fresh: [(scan: MetadataOutput.ScanInProgress, elapsed: Duration)] = []
        /// Whether this check is the one that ends the run (asked for, and the first to find a scan stuck).
        var endsRun = false
    }

    private struct Key: Hashable {
        var scanner: Int
        var seq: UInt64
    }

    private struct State {
        var pauses: ProcessPauses
        /// The stuck scans already counted, while they last.
        var reported: Set<Key> = []
        var count = 0
        var ending = false
    }

    private let state: LockedValue<State>

    /// `interval`: how often `check` is called (a later call is a pause of the process).
    init(interval: Duration = StuckScanWatch.interval) {
        state = LockedValue(State(pauses: ProcessPauses(interval: interval)))
    }

    /// Scans found stuck over the run.
    var count: Int { state.withLock { $0.count } }

    /// Notes that the watch runs now, then finds the scans under way on `metadata` for
    /// `timeout` seconds or longer; with `endRun`, the first check that finds one ends the run.
    func check(_ metadata: MetadataOutput?, timeout: Double, endRun: Bool) -> Finding {
        let now = ContinuousClock.now
        let scans = metadata?.scansInProgress() ?? []
        return state.withLock { state in
            state.pauses.tick(at: now)
            let pauses = state.pauses
            var finding = Finding()
            finding.stuck = scans.filter { pauses.elapsed(since: $0.startedAt, now: now) >= .seconds(timeout) }
            let keys = finding.stuck.map { Key(scanner: $0.scanner, seq: $0.sequenceNumber) }
            finding.fresh = finding.stuck.filter { !state.reported.contains(Key(scanner: $0.scanner, seq: $0.sequenceNumber)) }
                .map { ($0, pauses.elapsed(since: $0.startedAt, now: now)) }
            state.reported = Set(keys)
            state.count += finding.fresh.count
            finding.endsRun = endRun && !finding.stuck.isEmpty && !state.ending
            if finding.endsRun { state.ending = true }
            return finding
        }
    }

    /// The oldest scan on `metadata` stuck now and how long it has run, for STATUS=.
    func oldestStuck(_ metadata: MetadataOutput?, timeout: Double) -> (scan: MetadataOutput.ScanInProgress, elapsed: Duration)? {
        let now = ContinuousClock.now
        let scans = metadata?.scansInProgress() ?? []
        let pauses = state.withLock { $0.pauses }
        return scans.lazy.map { ($0, pauses.elapsed(since: $0.startedAt, now: now)) }.first { $0.1 >= .seconds(timeout) }
    }
}
