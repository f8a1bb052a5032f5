import Capture
import Media
import SystemCalls

/// The live view's status object: the service's, with the frame rates and what the source says of itself.
///
/// `ScanReporting.statusJSON()` with three more fields, as `/status` answers and every `event: status`
/// carries. `rates`: `frames_per_second` (frames the source delivered, dropped ones included) and
/// `scanned_per_second`, over the last `window` samples of the counters (`sample()`, called every
/// second by the HTTP service whether or not anyone watches, so a page gets both at once); `null`
/// before two samples. `mode`: the source's mode (`SourceReport.mode`), `null` between sessions and
/// before the source knows it; `input`: the rest of its report (kind, label, health, controls:
/// `SourceReport.json`), `null` between sessions. Both come from `FrameSource.report` alone: the
/// live view knows no kind of source.
final class LiveViewStatus: Sendable {
    /// One reading of the counters.
    struct Sample {
        var at: ContinuousClock.Instant
        var frames: Int
        var scanned: Int
    }

    /// Samples the rates span (the newest against the oldest): two seconds at one a second.
    static let window = 3

    private let scan: any ScanReporting
    private let samples = LockedValue<[Sample]>([])

    init(scan: any ScanReporting) { self.scan = scan }

    /// Reads the counters now (the HTTP service's one-second loop).
    func sample() {
        let statistics = scan.statistics()
        let sample = Sample(at: .now, frames: statistics.frames, scanned: statistics.scanned)
        samples.withLock { samples in
            samples.append(sample)
            if samples.count > Self.window { samples.removeFirst(samples.count - Self.window) }
        }
    }

    /// Frames delivered and scanned per second over the samples kept; `nil` before two.
    var rates: (frames: Double, scanned: Double)? {
        let kept = samples.withLock { $0 }
        guard let first = kept.first, let last = kept.last, last.at > first.at else { return nil }
        let seconds = (last.at - first.at) / .seconds(1)
        return (Double(last.frames - first.frames) / seconds, Double(last.scanned - first.scanned) / seconds)
    }

    /// The status object (no newline).
    func json() -> [UInt8] {
        let base = scan.statusJSON()
        let rates = self.rates.map {
            "{\"frames_per_second\":\(DecimalText.string(max(0, $0.frames), fractionDigits: 2)),"
                + "\"scanned_per_second\":\(DecimalText.string(max(0, $0.scanned), fractionDigits: 2))}"
        } ?? "null"
        let report = scan.currentSource?.report
        let mode = report?.mode?.json ?? "null"
        return Array(base.dropLast()) + Array(",\"rates\":\(rates),\"mode\":\(mode),\"input\":".utf8)
            + (report?.json() ?? Array("null".utf8)) + Array("}".utf8)
    }
}
