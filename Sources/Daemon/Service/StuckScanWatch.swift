import Capture
import SystemCalls

/// The scans that have not returned within `scan_timeout_seconds`, as the status loop finds them
/// once a second: each counted once, timed without the time the whole process was stopped or
/// suspended (`ProcessPauses`), and the run told to end at most once.
final class StuckScanWatch: Sendable {
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
    init(interval: Duration) {
        state = LockedValue(State(pauses: ProcessPauses(interval: interval)))
    }

    /// Scans found stuck over the run.
    var count: Int { state.withLock { $0.count } }

    /// Notes that the status loop runs now, then finds the scans under way on `metadata` for
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
