import Capture
import Foundation
import Media
import Results

/// What the service is doing now: the one value STATUS=, `/status` and the live view render.
///
/// `line` is STATUS='s text; `state` is `/status`'s `state` field. Both come from the value, so
/// no reader parses the text back.
public enum ServiceStatus: Sendable, Equatable {
    /// Between sessions: the source is being opened.
    case opening(source: String)
    /// A session streams: counts over every session so far, and the results handlers' counters
    /// STATUS= shows (`ResultsCounter.inStatus`: `reads_mismatch`).
    case scanning(source: String, statistics: CaptureStatistics, handlerCounters: [ResultsCounter] = [])
    /// A lost camera is waited for (its reconnect backoff runs until `device.missing_timeout`).
    case waiting(source: String, goneSeconds: Int64)
    /// A scan has not returned within `scan_timeout_seconds`.
    case stuck(sequenceNumber: UInt64, seconds: Int64, pass: DecoderPass?)

    /// `/status`'s `state`: `opening`, `scanning`, `waiting` or `stuck`.
    public var state: String {
        switch self {
        case .opening: "opening"
        case .scanning: "scanning"
        case .waiting: "waiting"
        case .stuck: "stuck"
        }
    }

    /// The STATUS= line: `scanning SOURCE: frames=N codes=N dropped=N` then the drop, pass and
    /// reading-check fields (`ServiceLines`) and ` name=value` for each handler counter STATUS=
    /// shows, `waiting for SOURCE (gone N s)`, `opening SOURCE`, or
    /// `scan stuck: frame SEQ for N s (pass PASS)`.
    public var line: String {
        switch self {
        case .opening(let source):
            "opening \(source)"
        case .scanning(let source, let s, let counters):
            "scanning \(source): frames=\(s.frames) codes=\(s.codes) dropped=\(s.droppedTotal)"
                + ServiceLines.statusDropFields(s) + ServiceLines.statusPassFields(s) + ServiceLines.readingCheckFields(s.readingCheck)
                + counters.filter(\.inStatus).map { " \($0.name)=\($0.value)" }.joined()
        case .waiting(let source, let gone):
            "waiting for \(source) (gone \(gone) s)"
        case .stuck(let sequenceNumber, let seconds, let pass):
            "scan stuck: frame \(sequenceNumber) for \(seconds) s" + (pass.map { " (pass \($0))" } ?? "")
        }
    }
}
