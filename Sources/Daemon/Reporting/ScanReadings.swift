import Capture

/// What the reporting parts read of the scan (`ScanService` conforms): its counts and status
/// now, and the running configuration whose settings they follow. Nothing here changes the scan.
///
/// The stats line, STATUS=, the metrics textfile and the stuck-scan watch are services of the
/// daemon's group beside the scan (`Daemon.serviceGroup`), each reading the scan through this.
protocol ScanReadings: Sendable {
    /// The counts now, over every session (the summary line and the metrics show them).
    func counters() -> ServiceCounters
    /// The stats line's content now (`ServiceLines.stats`).
    func statsLine() -> String
    /// What the service is doing now (STATUS=).
    func status() -> ServiceStatus
    /// The running configuration (a reload replaces it): `stats_interval_seconds`,
    /// `metrics.textfile` and `scan_timeout_seconds` are read again on each round.
    var configuration: SyncscanConfiguration { get }
    /// The running session's scanning output, whose scans under way the stuck-scan watch checks;
    /// `nil` between sessions.
    var metadataOutput: MetadataOutput? { get }
    /// The metrics of the current source (a reload to another source starts new series).
    var metrics: ServiceMetrics { get }
}

extension ScanService: ScanReadings {
    var configuration: SyncscanConfiguration { state.withLock { $0.options.configuration } }
    var metadataOutput: MetadataOutput? { state.withLock { $0.current?.pipeline.metadataOutput } }
    var metrics: ServiceMetrics { state.withLock { $0.metrics } }
}

/// Runs `body` every `stats_interval_seconds` of `scan`'s running configuration (read again
/// before each wait; 0: read again a second later, `body` not run) until the task is cancelled.
func everyStatsInterval(_ scan: any ScanReadings, _ body: () -> Void) async {
    while !Task.isCancelled {
        let interval = scan.configuration.statsIntervalSeconds
        guard interval > 0 else {
            try? await Task.sleep(for: .seconds(1))
            continue
        }
        do { try await Task.sleep(for: .seconds(interval)) } catch { return }
        body()
    }
}
