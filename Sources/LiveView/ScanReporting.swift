import Capture
import Media

/// What the live view reads of the scan it shows: its counts, status, source and metrics.
///
/// The live view sits below the service that runs the scan (Daemon's `ScanService` conforms), so
/// it reaches the scan only through these members, each read on a request's or the status loop's
/// thread while the scan runs.
public protocol ScanReporting: Sendable {
    /// Frames by outcome and codes found, over every session (the status's rates come from it).
    func statistics() -> CaptureStatistics
    /// The status as one JSON object, no newline (`/status` and each `event: status` add the rates and the mode).
    func statusJSON() -> [UInt8]
    /// The running session's source (the status shows its mode); `nil` between sessions.
    var currentSource: (any FrameSource)? { get }
    /// The Prometheus text exposition now (`/metrics`).
    func metricsExposition() -> [UInt8]
}
