import Capture
import Media
import Results

/// The text the service reports: the stats line (stderr, every `stats_interval_seconds`), the
/// summary line (at exit), STATUS= (systemd) and `<prefix>/stats` (the counters as JSON),
/// each from one `ServiceCounters` snapshot; the results handlers' counters follow the
/// service's own, handler by handler, without the service knowing which handlers there are.
enum ServiceLines {
    /// `stats: frames=N scanned=N dropped=N (lateData=N …) repeated_seq=N codes=N scan_p50=…ms
    /// scan_p99=…ms pass_codes=zxing-fast:N,… passes_cut=zxing-full:N,… pass_p50=zxing-fast:…ms,…
    /// pass_p99=… output_lines_dropped=N decoder_failures=N scans_stuck=N` then each handler's counters.
    static func stats(_ c: ServiceCounters, scanTimes: (p50: Double, p99: Double)?, passTimes: [DecoderPass: (p50: Double, p99: Double)] = [:],
                      decoderFailures: (count: Int, last: String?)?) -> String {
        let s = c.statistics
        let scan = scanTimes.map { "scan_p50=\(milliseconds($0.p50))ms scan_p99=\(milliseconds($0.p99))ms" } ?? "scan_p50=- scan_p99=-"
        return "stats: frames=\(s.frames) scanned=\(s.scanned) dropped=\(s.droppedTotal) (\(droppedBreakdown(s))) "
            + "repeated_seq=\(s.repeatedSequenceNumbers) codes=\(s.codes) \(scan) \(passFields(s, passTimes: passTimes))"
            + " output_lines_dropped=\(c.outputLinesDropped)"
            + " decoder_failures=\(decoderFailures?.count ?? 0)" + (decoderFailures?.last.map { " (last: \($0))" } ?? "")
            + " scans_stuck=\(c.scansStuck)" + readingCheckFields(s.readingCheck) + itemFields(c.items)
            + (c.controlFailures > 0 ? " control_failures=\(c.controlFailures)" : "")
            + handlerFields(c.handlers, summary: [])
    }

    /// `syncscan: summary: frames=N scanned=N dropped=N (…) repeated_seq=N codes_found=N
    /// codes_emitted=N output_lines_dropped=N scans_stuck=N` (then `readingCheckFields`) then each handler's
    /// counters and summary fields.
    static func summary(_ c: ServiceCounters, handlerSummaryFields: [[String]]) -> String {
        let s = c.statistics
        return "syncscan: summary: frames=\(s.frames) scanned=\(s.scanned) dropped=\(s.droppedTotal) (\(droppedBreakdown(s))) "
            + "repeated_seq=\(s.repeatedSequenceNumbers) codes_found=\(s.codes) codes_emitted=\(c.codesEmitted) "
            + "output_lines_dropped=\(c.outputLinesDropped) scans_stuck=\(c.scansStuck)" + readingCheckFields(s.readingCheck)
            + itemFields(c.items)
            + handlerFields(c.handlers, summary: handlerSummaryFields)
    }

    /// The counters as one JSON object, for `<prefix>/stats`; with `framesPerSecond` (the frames
    /// that arrived a second since the last report) also `frames_per_second`, after `frames`.
    static func statsJSON(_ c: ServiceCounters, framesPerSecond: Double? = nil) -> [UInt8] {
        let s = c.statistics
        var fields = ["\"frames\":\(s.frames)"]
        if let fps = framesPerSecond, fps.isFinite { fields.append("\"frames_per_second\":\(DecimalText.string(max(0, fps), fractionDigits: 2))") }
        fields += ["\"scanned\":\(s.scanned)", "\"dropped\":\(s.droppedTotal)"]
        fields += DroppedReason.allCases.map { "\"dropped_\($0.rawValue)\":\(s.dropped[$0, default: 0])" }
        fields += s.codesByPass.keys.sorted().map { "\"codes_\($0.rawValue)\":\(s.codesByPass[$0]!)" }
        fields += ["\"passes_cut\":\(s.passesCut.values.reduce(0, +))"]
        if !s.readingCheck.isEmpty {
            let r = s.readingCheck
            fields += ["\"readings_confirmed\":\(r.confirmed)", "\"readings_settled\":\(r.settled)", "\"readings_held\":\(r.held)",
                       "\"readings_dropped\":\(r.dropped)", "\"readings_misread\":\(r.misread)"]
        }
        fields += ["\"codes_found\":\(s.codes)", "\"codes_emitted\":\(c.codesEmitted)", "\"output_lines_dropped\":\(c.outputLinesDropped)",
                   "\"device_reopens\":\(c.deviceReopens)", "\"control_failures\":\(c.controlFailures)", "\"scans_stuck\":\(c.scansStuck)",
                   "\"streaming\":\(c.streaming)"]
        if c.items.added > 0 || c.items.unconfirmed > 0 {
            fields += ["\"items_added\":\(c.items.added)", "\"items_removed\":\(c.items.removed)", "\"items_alive\":\(c.items.alive)",
                       "\"items_unconfirmed\":\(c.items.unconfirmed)"]
        }
        fields += c.handlers.joined().filter(\.inLines).map { "\"\($0.name)\":\($0.value)" }
        return Array(("{" + fields.joined(separator: ",") + "}").utf8)
    }

    /// `1.5` (milliseconds, one decimal) for 0.0015 seconds.
    private static func milliseconds(_ seconds: Double) -> String {
        DecimalText.string(seconds * 1000, fractionDigits: 1, minimumFractionDigits: 1)
    }

    /// `pass_codes=P:N,… passes_cut=P:N,… pass_p50=P:…ms,… pass_p99=P:…ms,…` over the passes that
    /// ran, read or were cut, cheapest first; `-` for an empty list.
    static func passFields(_ s: CaptureStatistics, passTimes: [DecoderPass: (p50: Double, p99: Double)]) -> String {
        let passes = Set(passTimes.keys).union(s.codesByPass.keys).union(s.passesCut.keys).sorted()
        func list(_ value: (DecoderPass) -> String?) -> String {
            let items = passes.compactMap { pass in value(pass).map { "\(pass):\($0)" } }
            return items.isEmpty ? "-" : items.joined(separator: ",")
        }
        return "pass_codes=\(list { "\(s.codesByPass[$0, default: 0])" })"
            + " passes_cut=\(list { s.passesCut[$0].map { "\($0)" } })"
            + " pass_p50=\(list { passTimes[$0].map { milliseconds($0.p50) + "ms" } })"
            + " pass_p99=\(list { passTimes[$0].map { milliseconds($0.p99) + "ms" } })"
    }

    /// `zxing-fast:N,zxing-full:N` codes by pass and the passes cut in all, for STATUS=:
    /// ` by_pass=… cut=N`, empty before any code or cut.
    static func statusPassFields(_ s: CaptureStatistics) -> String {
        guard !s.codesByPass.isEmpty || !s.passesCut.isEmpty else { return "" }
        let byPass = s.codesByPass.keys.sorted().map { "\($0):\(s.codesByPass[$0]!)" }.joined(separator: ",")
        return " by_pass=\(byPass.isEmpty ? "-" : byPass) cut=\(s.passesCut.values.reduce(0, +))"
    }

    /// ` readings_confirmed=N readings_settled=N readings_held=N readings_dropped=N` (and
    /// ` readings_misread=N` once an item found one) once `hybrid`'s
    /// check of zbar's 1-D readings (`LinearReadingCheck`) did anything, else empty: the stats and
    /// summary lines and STATUS=.
    static func readingCheckFields(_ r: ReadingCheckCounts) -> String {
        r.isEmpty ? "" : " readings_confirmed=\(r.confirmed) readings_settled=\(r.settled) readings_held=\(r.held) readings_dropped=\(r.dropped)"
            + (r.misread > 0 ? " readings_misread=\(r.misread)" : "")
    }

    /// ` items_added=N items_removed=N items_alive=N` (then ` items_unconfirmed=N` and
    /// ` item_resets=N` when not 0) once an item was added or left unconfirmed, else empty: the
    /// stats and summary lines.
    static func itemFields(_ items: ItemStatistics) -> String {
        guard items.added > 0 || items.unconfirmed > 0 else { return "" }
        return " items_added=\(items.added) items_removed=\(items.removed) items_alive=\(items.alive)"
            + (items.unconfirmed > 0 ? " items_unconfirmed=\(items.unconfirmed)" : "")
            + (items.resets > 0 ? " item_resets=\(items.resets)" : "")
    }

    /// ` undecodable=N` for STATUS= once a frame did not decode (a camera sending damaged MJPEG
    /// shows why frames are not scanned), else empty.
    static func statusDropFields(_ s: CaptureStatistics) -> String {
        let undecodable = s.dropped[.undecodable, default: 0]
        return undecodable > 0 ? " undecodable=\(undecodable)" : ""
    }

    /// `lateData=N outOfBuffers=N discontinuity=N undecodable=N`, then ` idle=N` once a frame was
    /// idle (`trigger.mode: presentation`) and ` untriggered=N` once one was outside every read
    /// window (`trigger.mode: triggered`).
    static func droppedBreakdown(_ s: CaptureStatistics) -> String {
        DroppedReason.allCases.filter { ($0 != .idle && $0 != .untriggered) || s.dropped[$0, default: 0] > 0 }
            .map { "\($0.rawValue)=\(s.dropped[$0, default: 0])" }.joined(separator: " ")
    }

    /// ` name=value …` for each handler's counters shown in lines, then its `summary` fields.
    private static func handlerFields(_ handlers: [[ResultsCounter]], summary: [[String]]) -> String {
        handlers.enumerated().map { index, counters in
            (counters.filter(\.inLines).map { " \($0.name)=\($0.value)" } + (index < summary.count ? summary[index] : []).map { " " + $0 })
                .joined()
        }.joined()
    }
}
