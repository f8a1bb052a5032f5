import ServiceLifecycle

/// STATUS= (`ServiceStatus.line`) once a second when it changed, and the watchdog kept fed while a
/// lost camera is waited for (its reconnect backoff ends at `device.missing_timeout`).
///
/// A service of the daemon's group, stopped once the scan has returned.
struct StatusReporter: Service {
    /// How often STATUS= is refreshed (when it changed) and a missing camera keeps the watchdog fed.
    static let interval: Duration = .seconds(1)

    let scan: any ScanReadings
    let events: any ServiceEvents

    func run() async throws {
        try await cancelWhenGracefulShutdown { await report() }
    }

    private func report() async {
        var last = ""
        while !Task.isCancelled {
            let status = scan.status()
            if status.line != last { events.status(status.line); last = status.line }
            // Liveness while the camera is missing: its reconnect backoff ends at device.missing_timeout.
            if case .waiting = status { events.sourceMissing() }
            do { try await Task.sleep(for: Self.interval) } catch { return }
        }
    }
}
