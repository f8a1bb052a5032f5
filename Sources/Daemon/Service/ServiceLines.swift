import Capture
import Media

/// The text the service reports: the stats line (stderr, every `stats_interval_seconds`), the
/// summary line (at exit), STATUS= (systemd) and `<prefix>/stats` (the counters as JSON),
/// each from one `ServiceCounters` snapshot; the results handlers' counters follow the
/// service's own, handler by handler, without the service knowing which handlers there are.
enum ServiceLines {
    /// `stats: frames=N scanned=N dropped=N (lateData=N …) repeated_seq=N codes=N scan_p50=…ms
    /// scan_p99=…ms output_lines_dropped=N decoder_failures=N` then each handler's counters.
    static func stats(_ c: ServiceCounters, scanTimes: (p50: Double, p99: Double)?, decoderFailures: (count: Int, last: String?)?) -> String {
        let s = c.statistics
        let milliseconds = { (seconds: Double) in DecimalText.string(seconds * 1000, fractionDigits: 1, minimumFractionDigits: 1) }
        let scan = scanTimes.map { "scan_p50=\(milliseconds($0.p50))ms scan_p99=\(milliseconds($0.p99))ms" } ?? "scan_p50=- scan_p99=-"
        return "stats: frames=\(s.frames) scanned=\(s.scanned) dropped=\(s.droppedTotal) (\(droppedBreakdown(s))) "
            + "repeated_seq=\(s.repeatedSequenceNumbers) codes=\(s.codes) \(scan) output_lines_dropped=\(c.outputLinesDropped)"
            + " decoder_failures=\(decoderFailures?.count ?? 0)" + (decoderFailures?.last.map { " (last: \($0))" } ?? "")
            + (c.controlFailures > 0 ? " control_failures=\(c.controlFailures)" : "")
            + handlerFields(c.handlers, summary: [])
    }

    /// `syncscan: summary: frames=N scanned=N dropped=N (…) repeated_seq=N codes_found=N
    /// codes_emitted=N output_lines_dropped=N` then each handler's counters and summary fields.
    static func summary(_ c: ServiceCounters, handlerSummaryFields: [[String]]) -> String {
        let s = c.statistics
        return "syncscan: summary: frames=\(s.frames) scanned=\(s.scanned) dropped=\(s.droppedTotal) (\(droppedBreakdown(s))) "
            + "repeated_seq=\(s.repeatedSequenceNumbers) codes_found=\(s.codes) codes_emitted=\(c.codesEmitted) "
            + "output_lines_dropped=\(c.outputLinesDropped)" + handlerFields(c.handlers, summary: handlerSummaryFields)
    }

    /// The counters as one JSON object, for `<prefix>/stats`; with `framesPerSecond` (the frames
    /// that arrived a second since the last report) also `frames_per_second`, after `frames`.
    static func statsJSON(_ c: ServiceCounters, framesPerSecond: Double? = nil) -> [UInt8] {
        let s = c.statistics
        var fields = ["\"frames\":\(s.frames)"]
        if let fps = framesPerSecond, fps.isFinite { fields.append("\"frames_per_second\":\(DecimalText.string(max(0, fps), fractionDigits: 2))") }
        fields += ["\"scanned\":\(s.scanned)", "\"dropped\":\(s.droppedTotal)"]
        fields += DroppedReason.allCases.map { "\"dropped_\($0.rawValue)\":\(s.dropped[$0, default: 0])" }
        fields += ["\"codes_found\":\(s.codes)", "\"codes_emitted\":\(c.codesEmitted)", "\"output_lines_dropped\":\(c.outputLinesDropped)",
                   "\"device_reopens\":\(c.deviceReopens)", "\"control_failures\":\(c.controlFailures)", "\"streaming\":\(c.streaming)"]
        fields += c.handlers.joined().filter(\.inLines).map { "\"\($0.name)\":\($0.value)" }
        return Array(("{" + fields.joined(separator: ",") + "}").utf8)
    }

    /// `lateData=N outOfBuffers=N discontinuity=N`.
    static func droppedBreakdown(_ s: CaptureStatistics) -> String {
        DroppedReason.allCases.map { "\($0.rawValue)=\(s.dropped[$0, default: 0])" }.joined(separator: " ")
    }

    /// ` name=value …` for each handler's counters shown in lines, then its `summary` fields.
    private static func handlerFields(_ handlers: [[ResultsCounter]], summary: [[String]]) -> String {
        handlers.enumerated().map { index, counters in
            (counters.filter(\.inLines).map { " \($0.name)=\($0.value)" } + (index < summary.count ? summary[index] : []).map { " " + $0 })
                .joined()
        }.joined()
    }
}
