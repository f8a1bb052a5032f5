import Capture
import LiveView

/// The live view reads the scan through `ScanReporting`; `statusJSON()`, `currentSource` and
/// `metricsExposition()` are in `ScanService+Reporting`.
extension ScanService: ScanReporting {
    /// The counters' frames and codes over every session (`counters().statistics`).
    public func statistics() -> CaptureStatistics { counters().statistics }
}
