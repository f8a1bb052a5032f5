import Logging
import Results
import ServiceLifecycle

/// The stats line every `stats_interval_seconds` (0: none; a reload's interval applies from the
/// next wait): logged at notice level, and the counters as JSON handed to each results handler
/// that takes the service's hooks (`ServiceHooks.statsUpdated`: MQTT's `<prefix>/stats`) with
/// `frames_per_second`, the rate since the last line.
///
/// A service of the daemon's group, listed after the scan's results handlers and before the
/// scan: the group stops it once the scan has returned.
struct StatsLineReporter: Service {
    let scan: any ScanReadings
    /// The scan's results handlers that take the service's hooks, in delivery order.
    let handlers: [any ServiceHooks]
    let logger: Logger

    func run() async throws {
        try await cancelWhenGracefulShutdown { await report() }
    }

    private func report() async {
        // The frames counted at the last report, and when: `frames_per_second` is the rate since.
        var last = (frames: scan.counters().statistics.frames, at: ContinuousClock.now)
        await everyStatsInterval(scan) {
            logger.notice("\(scan.statsLine())")
            let counters = scan.counters()
            let (frames, now) = (counters.statistics.frames, ContinuousClock.now)
            let fps = Double(frames - last.frames) / max(0.001, (now - last.at) / .seconds(1))
            last = (frames, now)
            let json = ServiceLines.statsJSON(counters, framesPerSecond: fps)
            for handler in handlers { handler.statsUpdated(json) }
        }
    }
}
