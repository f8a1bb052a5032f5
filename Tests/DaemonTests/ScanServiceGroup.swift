import Logging
@testable import Daemon

extension ScanService {
    /// Runs the scan in the daemon's service group (`Daemon.serviceGroup`: its results handlers'
    /// service, the scan), so the handlers flush and the summary is written after the scan
    /// returns; throws what the group throws (the scan's failure first).
    func runWithResultsHandlers() async throws {
        try await Daemon.serviceGroup(scan: self, logger: Logger(label: "test")).run()
    }
}
