import Capture
import Media
import SystemCalls
import V4L2
import Y4M

/// The live view's status object: the service's, with the frame rates and the source's mode.
///
/// `ScanReporting.statusJSON()` with two more fields, as `/status` answers and every `event: status`
/// carries. `rates`: `frames_per_second` (frames the source delivered, dropped ones included) and
/// `scanned_per_second`, over the last `window` samples of the counters (`sample()`, called every
/// second by the HTTP service whether or not anyone watches, so a page gets both at once); `null`
/// before two samples. `mode`: the source's mode (`SourceMode`), `null` between sessions.
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
        let mode = scan.currentSource.flatMap(SourceMode.init(of:))?.json ?? "null"
        return Array(base.dropLast()) + Array(",\"rates\":\(rates),\"mode\":\(mode)}".utf8)
    }
}

/// The mode a source delivers frames in: size, format and frame rate.
///
/// As negotiated with a camera (`VIDIOC_S_FMT`, `VIDIOC_G_PARM`/`S_PARM`), or as a Y4M stream's
/// header gives them.
struct SourceMode: Sendable, Hashable {
    var width: Int
    var height: Int
    /// The camera's FourCC (`YUYV`, `MJPG`, …) or the frames' pixel format from a Y4M colour space (`GREY`, `YU12`, …).
    var format: String
    /// Frames a second; `nil` when the driver reports no interval.
    var framesPerSecond: Double?
    /// Where the mode comes from: `negotiated` (a camera), `file` (a Y4M header), `assumed` (a Y4M
    /// header without a frame rate: 25 fps is assumed).
    var origin: String

    init(width: Int, height: Int, format: String, framesPerSecond: Double?, origin: String) {
        (self.width, self.height, self.format, self.framesPerSecond, self.origin) = (width, height, format, framesPerSecond, origin)
    }

    /// The mode of `source` now; `nil` for a source of another kind or one not streaming.
    init?(of source: any FrameSource) {
        if let camera = source as? V4L2CaptureSource, let format = camera.currentFormat {
            (width, height, self.format) = (format.width, format.height, format.fourcc.description)
            framesPerSecond = format.frameInterval.map(\.framesPerSecond).flatMap { $0 > 0 ? $0 : nil }
            origin = "negotiated"
        } else if let file = source as? Y4MSource, let header = file.header {
            (width, height, format) = (header.width, header.height, header.pixelFormat.description)
            framesPerSecond = Double(header.frameRate.numerator) / Double(max(1, header.frameRate.denominator))
            origin = header.frameRateIsFromHeader ? "file" : "assumed"
        } else {
            return nil
        }
    }

    /// `{"width":…,"height":…,"format":…,"fps":…,"origin":…}` (`fps` `null` when unknown).
    var json: String {
        "{\"width\":\(width),\"height\":\(height),\"format\":\"\(format.filter { $0.isLetter || $0.isNumber || $0 == " " })\","
            + "\"fps\":\(framesPerSecond.map { DecimalText.string($0, fractionDigits: 3) } ?? "null"),\"origin\":\"\(origin)\"}"
    }
}
