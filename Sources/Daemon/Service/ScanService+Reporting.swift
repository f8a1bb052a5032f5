import Capture
import Foundation
import Logging
import Media
import Results
import SystemPackage

/// What the service reports while it runs: the stats line, STATUS= (a `ServiceStatus`), `/status`,
/// the metrics (`/metrics` and `metrics.textfile`), and the loops that refresh them.
extension ScanService {
    /// The stats line's content now: counts so far (all sessions), scan times, output drops,
    /// then each results handler's counters.
    public func statsLine() -> String {
        let metadata = state.withLock { $0.current?.pipeline.metadataOutput }
        let failures = metadata?.decoderFailures
        return ServiceLines.stats(counters(), scanTimes: metadata?.scanTimePercentiles(), passTimes: metadata?.passTimePercentiles() ?? [:],
                                  decoderFailures: failures.map { ($0.count, $0.last.map { "\($0)" }) })
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
        counters.handlers = handlers.map(\.counters)
        return counters
    }

    /// The running session's source (the live view shows its report); `nil` between sessions.
    public var currentSource: (any FrameSource)? { state.withLock { $0.current?.pipeline.session.input } }

    /// The Prometheus text exposition now, from the same metrics as `metrics.textfile` (`/metrics`).
    public func metricsExposition() -> [UInt8] {
        let (metrics, textfile) = state.withLock { ($0.metrics, $0.textfileWriter) }
        metrics.update(counters(), textfileWriteFailures: textfile?.failures ?? 0)
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

    /// Brings the metrics up to `counters` and, with `metrics.textfile` set, hands the file's new
    /// content to the textfile writer's thread; returns that writer.
    @discardableResult
    func publishMetrics(_ counters: ServiceCounters) -> MetricsTextfileWriter? {
        let (metrics, path, existing) = state.withLock { ($0.metrics, $0.options.configuration.metrics.textfile, $0.textfileWriter) }
        metrics.update(counters, textfileWriteFailures: existing?.failures ?? 0)
        guard let path else { return existing }
        let textfile = existing ?? MetricsTextfileWriter(logger: logger)
        if existing == nil { state.withLock { $0.textfileWriter = textfile } }
        textfile.submit(metrics.render(), to: FilePath(path))
        return textfile
    }

    /// How often STATUS= is refreshed (when it changed) and a missing camera keeps the watchdog fed.
    static let statusInterval: Duration = .seconds(1)

    /// The STATUS= line now (`ServiceStatus.line`).
    public func statusLine() -> String { status().line }

    /// What the service is doing now: `opening` between sessions, `stuck` while a scan has not
    /// returned within `scan_timeout_seconds`, `waiting` while a lost camera is waited for, else
    /// `scanning` with the counts of every session so far.
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
        return .scanning(source: input.uri, statistics: statistics, reads: readResults.map { _ in readCounts.current })
    }

    /// Logs each scan newly past `scan_timeout_seconds`, tells `events` whether one is stuck,
    /// and without a supervisor that restarts on that, ends the run (once).
    func checkForStuckScans() {
        let (metadata, timeout) = state.withLock { ($0.current?.pipeline.metadataOutput, $0.options.configuration.scanTimeoutSeconds) }
        let restarts = events.restartsWhenStuck
        let finding = stuckScans.check(metadata, timeout: timeout, endRun: !restarts)
        for (scan, elapsed) in finding.fresh {
            logger.error("a scan did not return within scan_timeout_seconds", metadata: [
                "seq": "\(scan.sequenceNumber)", "pass": "\(scan.pass.map { "\($0)" } ?? "-")",
                "seconds": "\(elapsed.components.seconds)",
                "scan_timeout_seconds": "\(DecimalText.string(timeout, fractionDigits: 3))",
                "action": "\(restarts ? "watchdog pings stop until it returns" : "the run ends")",
            ])
        }
        events.scanStuck(!finding.stuck.isEmpty)
        if finding.endsRun, let first = finding.stuck.first {
            runEnd.yield(.stuck(ScanStuckError(timeoutSeconds: timeout, sequenceNumber: first.sequenceNumber)))
        }
    }

    func reportStatusPeriodically() async {
        var last = ""
        while !Task.isCancelled {
            checkForStuckScans()
            let status = status()
            if status.line != last { events.status(status.line); last = status.line }
            // Liveness while the camera is missing: its reconnect backoff ends at device.missing_timeout.
            if case .waiting = status { events.sourceMissing() }
            do { try await Task.sleep(for: Self.statusInterval) } catch { return }
        }
    }

    func reportStatsPeriodically() async {
        // The frames counted at the last report, and when: `frames_per_second` is the rate since.
        var last = (frames: counters().statistics.frames, at: ContinuousClock.now)
        while !Task.isCancelled {
            let interval = state.withLock { $0.options.configuration.statsIntervalSeconds }
            guard interval > 0 else {
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            do { try await Task.sleep(for: .seconds(interval)) } catch { return }
            logger.notice("\(statsLine())")
            let counters = counters()
            let (frames, now) = (counters.statistics.frames, ContinuousClock.now)
            let fps = Double(frames - last.frames) / max(0.001, (now - last.at) / .seconds(1))
            last = (frames, now)
            let json = ServiceLines.statsJSON(counters, framesPerSecond: fps)
            for handler in handlers { handler.statsUpdated(json) }
            publishMetrics(counters)
        }
    }
}
