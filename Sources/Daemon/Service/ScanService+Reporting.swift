import Capture
import Foundation
import Logging
import Media
import Results
import SystemCalls
import SystemPackage

/// What the service shows of itself while it runs: its counts, the stats line's content, its
/// status (STATUS=, `/status`) and `/metrics`. The parts that report them periodically read them
/// through `ScanReadings`.
extension ScanService {
    /// The stats line's content now: counts so far (all sessions), scan times, output drops,
    /// then each results handler's counters.
    public func statsLine() -> String {
        let metadata = state.withLock { $0.current?.pipeline.metadataOutput }
        let failures = metadata?.decoderFailures
        return ServiceLines.stats(counters(), scanTimes: metadata?.scanTimePercentiles(), passTimes: metadata?.passTimePercentiles() ?? [:],
                                  decoderFailures: failures.map { ($0.count, $0.last.map { LogText.untrusted($0) }) })
    }

    /// The counts now, over every session: what the summary line and the metrics file show.
    public func counters() -> ServiceCounters {
        var counters = ServiceCounters()
        let (running, streamed) = state.withLock { state in
            (counters.statistics, counters.codesEmitted, counters.deviceReopens, counters.controlFailures, counters.items)
                = (state.totals, state.totalEmitted, state.totalReopens, state.totalControlFailures, state.totalItems)
            return (state.current, state.currentStreamed)
        }
        counters.scansStuck = stuckScans.count
        if let running {  // its counts are added to the totals only when it ends
            counters.statistics.add(running.pipeline.statistics)
            counters.codesEmitted += running.pipeline.emitted
            counters.items.add(running.pipeline.delivery.itemStatistics)
            let report = running.pipeline.session.input.report
            counters.deviceReopens += report.health.reopens
            counters.controlFailures += report.controls?.failures ?? 0
            counters.streaming = streamed && report.health.missingSince == nil
        }
        counters.outputLinesDropped = writer.droppedLines
        counters.handlers = counted.map(\.counters)
        return counters
    }

    /// The running session's source (the live view shows its report); `nil` between sessions.
    public var currentSource: (any FrameSource)? { state.withLock { $0.current?.pipeline.session.input } }

    /// The Prometheus text exposition now, from the same metrics as `metrics.textfile` (`/metrics`).
    public func metricsExposition() -> [UInt8] {
        let metrics = state.withLock { $0.metrics }
        metrics.update(counters(), textfileWriteFailures: textfileWriter.failures)
        return metrics.render()
    }

    /// The status as one JSON object (`/status`, the live view's status events): `source`, `state`
    /// (`ServiceStatus.state`), `status` (STATUS='s line), `rect_of_interest` (normalized),
    /// `counters` (as `<prefix>/stats`) and `components`, what the source's input family, the
    /// engine's decoder libraries and the handlers turned on say of themselves (`Components.descriptions`).
    public func statusJSON() -> [UInt8] {
        let status = self.status()
        let configuration = state.withLock { $0.options.configuration }
        let roi = configuration.rectOfInterest
        let rect = "{\"x\":\(roi.x),\"y\":\(roi.y),\"width\":\(roi.width),\"height\":\(roi.height)}"
        let components = configuration.components.descriptions(configuration, handlers: configuredHandlers)
        return Array("{\"type\":\"status\",\"source\":".utf8) + JSONLineEncoder.quoted(SourceURI.redactingCredentials(configuration.source))
            + Array(",\"state\":\"\(status.state)\",\"status\":".utf8) + JSONLineEncoder.quoted(status.line)
            + Array(",\"rect_of_interest\":\(rect),\"counters\":".utf8) + ServiceLines.statsJSON(counters())
            + Array(",\"components\":".utf8) + Self.json(components) + Array("}".utf8)
    }

    /// `[{"kind":"input","name":"y4m",…fields},…]`.
    static func json(_ components: [ComponentDescription]) -> [UInt8] {
        let objects = components.map { component in
            ([("kind", component.kind), ("name", component.name)] + component.fields).map { JSONLineEncoder.quoted($0.0) + Array(":".utf8) + JSONLineEncoder.quoted($0.1) }
                .joined(separator: Array(",".utf8))
        }
        return Array("[".utf8) + objects.map { Array("{".utf8) + $0 + Array("}".utf8) }.joined(separator: Array(",".utf8)) + Array("]".utf8)
    }

    /// The metrics labelled `source`: the current ones, or new ones starting from the counts now.
    func serviceMetrics(for source: String) -> ServiceMetrics {
        let current = state.withLock { $0.metrics }
        if current.source == ServiceMetrics.label(source) { return current }
        let new = ServiceMetrics(source: source, baseline: counters())
        state.withLock { $0.metrics = new }
        return new
    }

    /// The STATUS= line now (`ServiceStatus.line`).
    public func statusLine() -> String { status().line }

    /// What the service is doing now: `opening` between sessions, `stuck` while a scan has not
    /// returned within `scan_timeout_seconds`, `waiting` while a lost camera is waited for, else
    /// `scanning` with the counts of every session so far and the handlers' counters STATUS= shows.
    public func status() -> ServiceStatus {
        let (running, totals, source, timeout) = state.withLock {
            ($0.current, $0.totals, $0.options.sourceShown, $0.options.configuration.scanTimeoutSeconds)
        }
        guard let running else { return .opening(source: source) }
        if let (stuck, elapsed) = stuckScans.oldestStuck(running.pipeline.metadataOutput, timeout: timeout) {
            return .stuck(sequenceNumber: stuck.sequenceNumber, seconds: elapsed.components.seconds, pass: stuck.pass)
        }
        let input = running.pipeline.session.input
        if let since = input.report.health.missingSince {
            return .waiting(source: input.uri, goneSeconds: (ContinuousClock.now - since).components.seconds)
        }
        var statistics = totals
        statistics.add(running.pipeline.statistics)
        return .scanning(source: input.uri, statistics: statistics, handlerCounters: counted.flatMap(\.counters).filter(\.inStatus))
    }
}
