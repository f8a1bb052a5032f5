import Capture
import Foundation
import Logging
import Media
import Results
import ServiceLifecycle
import SystemCalls
import SystemPackage
import V4L2
import ZXing

/// The daemon's one long-running job: a capture session from the source to the results handler.
///
/// Stops when the source ends (a file), on graceful shutdown (SIGTERM/SIGINT: frames in flight
/// are finished and flushed), or on failure (source error, stdout gone) — then it throws so the
/// process exits non-zero. `reload(_:)` applies new options: scanner settings, duplicate window
/// and output queue size in place on the following frames; a changed source, device or frame
/// policy restarts the session. A summary line goes to stderr at the end in every case.
///
/// A reload never ends the service by itself. Its new source is checked first
/// (`SourceFactory.checkOpenable`): one that cannot be opened is logged and the running session
/// keeps going on the running configuration. If the reopened source still fails before it
/// streams, the failure is logged and the previous configuration is reopened; only when that
/// fails too does the service end, non-zero, with the error. (A `y4m:-` stream cannot be read
/// again from its middle, so for it that second failure is the usual outcome.)
public final class ScanService: Service, @unchecked Sendable {
    private let writer: LineWriter
    private let logger: Logger
    private let events: any ServiceEvents
    private let summary: @Sendable (String) -> Void
    private let lock = NSLock()
    private var options: PipelineOptions
    /// The running session's parts; `nil` between sessions.
    private var current: (session: CaptureSession, synchronizer: DataOutputSynchronizer, metadata: MetadataOutput, delivery: Delivery)?
    private var restartRequested = false
    /// The options before a restart-requiring reload, until the restarted session streams.
    private var fallbackOptions: PipelineOptions?
    /// Counts of the sessions that have ended (a reload that reopens the source starts a new one).
    private var totals = CaptureStatistics()
    private var totalEmitted = 0
    /// Frames whose codes went out without a snapshot because the pixel pool was full (ended sessions).
    private var totalPixelsSkipped = 0
    private var totalReopens = 0
    /// Whether the running session's source has streamed (set by its `onStreaming`).
    private var currentStreamed = false
    /// The metrics of the current source (a reload to another source starts new series).
    private var metrics: ServiceMetrics
    /// Made on the first write of a `metrics.textfile`.
    private var textfileWriter: MetricsTextfileWriter?
    /// The latest session's handler: finished (flushed) once, when the service ends.
    private var lastHandler: (any ResultsHandler)?
    /// Saves the frame of each code (`snapshots.directory`); shared by the sessions, like the writer.
    private let snapshots: SnapshotResultsHandler?
    /// Publishes each code, the status and the counters to a broker (`mqtt.url`); shared by the
    /// sessions, like the writer: one connection for the whole run.
    private let mqtt: MQTTResultsHandler?
    /// Test seam: runs after a session's parts are made, just before they become `current`.
    var sessionWillPublish: (@Sendable () -> Void)?

    /// - Parameters:
    ///   - writer: where JSON lines go (stdout in the daemon).
    ///   - events: lifecycle notifications (systemd).
    ///   - summary: receives the end-of-run summary line (the daemon writes it to stderr).
    ///   - snapshotDirectory: where snapshots go when `snapshots.directory` is set; `nil`: that
    ///     directory on disk (tests pass a fake: a full or read-only disk).
    public init(options: PipelineOptions, writer: LineWriter, logger: Logger, events: any ServiceEvents = NoServiceEvents(),
                snapshotDirectory: (any SnapshotDirectory)? = nil, summary: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.writer = writer
        self.logger = logger
        self.events = events
        self.summary = summary
        self.snapshots = options.configuration.snapshots.map { settings in
            SnapshotResultsHandler(settings: settings, directory: snapshotDirectory ?? FileSystemSnapshotDirectory(path: settings.directory),
                                   logger: logger)
        }
        let sourceURI = (try? SourceURI(parsing: options.source))?.description ?? options.source
        self.metrics = ServiceMetrics(source: sourceURI, snapshots: snapshots != nil, mqtt: options.configuration.mqtt != nil)
        self.mqtt = options.configuration.mqtt.map { settings in
            MQTTResultsHandler(settings: settings, source: sourceURI, hostname: Self.shortHostname(),
                               password: Self.readPassword(settings, logger: logger), logger: logger)
        }
    }

    public func run() async throws {
        // The stats and status loops are child tasks: they end (their last metrics write
        // included) before the handlers are finished and the final metrics are written.
        let failure: (any Error)? = await withTaskGroup(of: Void.self) { loops in
            loops.addTask { await self.reportStatsPeriodically() }
            loops.addTask { await self.reportStatusPeriodically() }
            defer { loops.cancelAll() }
            return await runSessions()
        }
        var firstFailure = failure
        events.stopping()
        let unused: [any ResultsHandler] = [snapshots as (any ResultsHandler)?, mqtt].compactMap { $0 }
        let handler = lock.withLock { lastHandler } ?? (unused.isEmpty ? nil : ResultsFanOut(unused))
        if let handler {
            do { try await runOnThread(name: "syncscan-finish") { try handler.finish() } } catch { firstFailure = firstFailure ?? error }
        }
        let final = counters()
        let pixelsSkipped = lock.withLock { totalPixelsSkipped }
        summary(Self.summaryLine(final.statistics, emitted: final.codesEmitted, linesDropped: final.outputLinesDropped)
                + (snapshotCounts(pixelsSkipped: pixelsSkipped, withEncodeTime: true).map { " " + $0 } ?? "")
                + (mqttCounts(final).map { " " + $0 } ?? ""))
        if let textfile = publishMetrics(final) { await runOnThread(name: "syncscan-metrics") { textfile.finish() } }
        if let firstFailure { throw firstFailure }
    }

    /// Sessions one after another until the source ends, a stop, or a failure (returned).
    private func runSessions() async -> (any Error)? {
        while true {
            let (options, fallback) = lock.withLock { () -> (PipelineOptions, PipelineOptions?) in
                restartRequested = false
                defer { fallbackOptions = nil }
                return (self.options, fallbackOptions)
            }
            do {
                try await runSession(options)
            } catch let error as SessionError {
                guard !error.streamed, let fallback, !Task.isShuttingDownGracefully else { return error.underlying }
                logger.error("the reloaded source failed to open; returning to the previous configuration",
                             metadata: ["source": "\(options.source)", "error": "\(error.underlying)"])
                lock.withLock { if !restartRequested { self.options = fallback } }
                continue
            } catch {
                return error
            }
            let restart = lock.withLock { restartRequested }
            if !restart || Task.isShuttingDownGracefully { return nil }
            logger.notice("restarting capture with the reloaded configuration")
        }
    }

    /// One capture session with `options`, until its source ends, it is stopped, or it fails.
    /// Each session has its own results handler (lines name its source) on the shared writer.
    private func runSession(_ options: PipelineOptions) async throws {
        let source = try SourceFactory.makeSource(options, logger: logger)
        // Lines wait for a slow reader only when frames wait too (a file read to its end).
        let policy: LineWriter.OverflowPolicy = options.configuration.videoDataOutput.framesWait(for: source) ? .wait : .drop
        writer.setOverflowPolicy(policy)
        snapshots?.setOverflowPolicy(policy)
        mqtt?.setOverflowPolicy(policy)
        let lines = options.configuration.output.stdout
            ? JSONLinesResultsHandler(writer: writer, source: source.uri, emitFrames: options.emitFrames) : nil
        // Snapshots first: a code's line (and its MQTT message) names its snapshot.
        let parts: [any ResultsHandler] = [snapshots as (any ResultsHandler)?, lines, mqtt].compactMap { $0 }
        let handler: any ResultsHandler = parts.count == 1 ? parts[0] : ResultsFanOut(parts)
        lock.withLock { lastHandler = handler }
        let events = self.events
        let delivery = Delivery(handler: handler, window: MediaTime(seconds: options.duplicateWindow), events: events)
        let metrics = serviceMetrics(for: source.uri)
        let metadata = MetadataOutput(settings: options.configuration.metadataSettings, scanningThreads: options.configuration.scanningThreads,
                                      scanTimeObserver: { metrics.recordScanDuration($0) })
        // Pixel copies: the snapshot queue, one per scanning thread, and two on their way between them.
        let session = CaptureSession(input: source, videoDataOutput: options.configuration.videoDataOutput,
                                     metadataOutput: metadata, pixelsRequest: handler.pixelsRequest,
                                     pixelCopies: (snapshots?.settings.queueFrames ?? 0) + metadata.scanningThreads + 2, logger: logger)
        let synchronizer = DataOutputSynchronizer { collection in try delivery.deliver(collection) }
        sessionWillPublish?()
        // A reload that came before `current` was set has nothing to stop: honour it by not starting.
        let superseded = lock.withLock {
            if !restartRequested { current = (session, synchronizer, metadata, delivery) }
            return restartRequested
        }
        if superseded { return }
        let limit = options.frameLimit
        let result: Result<Void, any Error>
        let streamed = Flag()
        do {
            try await withGracefulShutdownHandler {
                _ = try await session.run(synchronizer: synchronizer, frameLimit: limit, onStreaming: { [self] in
                    streamed.set()
                    lock.withLock { currentStreamed = true }
                    mqtt?.markOnline()
                    events.streaming()
                })
            } onGracefulShutdown: {
                events.stopping()
                session.stop()
            }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        let (statistics, emitted, reopens) = (synchronizer.statistics, delivery.emitted, Self.reopens(of: source))
        lock.withLock {
            totals.add(statistics)
            totalEmitted += emitted
            totalReopens += reopens
            totalPixelsSkipped += session.pixelPool?.skipped ?? 0
            current = nil
            currentStreamed = false
        }
        if case .failure(let error) = result { throw SessionError(underlying: error, streamed: streamed.isSet) }
    }

    /// A session's failure, and whether its source had streamed (a reload falls back only when not).
    private struct SessionError: Error {
        var underlying: any Error
        var streamed: Bool
    }

    /// Applies `new` options: in place when only scanning settings changed, else by restarting capture.
    ///
    /// When the new source cannot be opened nothing is applied: the reason is logged and the
    /// running session goes on.
    public func reload(_ new: PipelineOptions) {
        events.reloading()
        defer { events.reloaded() }
        let old = lock.withLock { options }
        if old.needsRestart(for: new) {
            do {
                try SourceFactory.checkOpenable(new, logger: logger)
            } catch {
                logger.error("reloaded configuration not applied: its source cannot be opened; keeping the running configuration",
                             metadata: ["source": "\(new.source)", "error": "\(error)"])
                return
            }
        }
        writer.setCapacity(new.configuration.output.queueLines)
        if new.configuration.snapshots != old.configuration.snapshots {
            logger.notice("snapshots.* changed: snapshot settings are read at start; restart the service to apply them")
        }
        let needsRestart: Bool = lock.withLock {
            let old = options
            options = new
            current?.delivery.setWindow(MediaTime(seconds: new.duplicateWindow))
            current?.metadata.settings = new.configuration.metadataSettings
            let restart = old.needsRestart(for: new)
            if restart && fallbackOptions == nil { fallbackOptions = old }
            return restart
        }
        if needsRestart {
            logger.notice("reloaded configuration changes the source or capture settings; reopening")
            let session: CaptureSession? = lock.withLock {
                restartRequested = true
                return current?.session
            }
            session?.stop()
        } else {
            logger.notice("reloaded configuration applied in place", metadata: [
                "output.queue_lines": "\(new.configuration.output.queueLines)",
                "symbologies": "\(new.configuration.scanner.symbologies.map(\.rawValue).sorted().joined(separator: ","))",
            ])
        }
    }

    /// The stats line's content now: counts so far (all sessions), scan times, output drops.
    public func statsLine() -> String {
        let (stats, percentiles, failures, skippedBefore, pool) = lock.withLock {
            () -> (CaptureStatistics, (p50: Double, p99: Double)?, (count: Int, last: ZXingError?)?, Int, FramePixelPool?) in
            var s = totals
            if let c = current { s.add(c.synchronizer.statistics) }
            return (s, current?.metadata.scanTimePercentiles(), current?.metadata.decoderFailures, totalPixelsSkipped,
                    current?.session.pixelPool)
        }
        let pixelsSkipped = skippedBefore + (pool?.skipped ?? 0)
        let reasons = Self.droppedBreakdown(stats)
        let milliseconds = { (seconds: Double) in DecimalText.string(seconds * 1000, fractionDigits: 1, minimumFractionDigits: 1) }
        let scan = percentiles.map { "scan_p50=\(milliseconds($0.p50))ms scan_p99=\(milliseconds($0.p99))ms" } ?? "scan_p50=- scan_p99=-"
        return "stats: frames=\(stats.frames) scanned=\(stats.scanned) dropped=\(stats.droppedTotal) (\(reasons)) "
            + "repeated_seq=\(stats.repeatedSequenceNumbers) codes=\(stats.codes) \(scan) output_lines_dropped=\(writer.droppedLines)"
            + " decoder_failures=\(failures?.count ?? 0)" + (failures?.last.map { " (last: \($0))" } ?? "")
            + (snapshotCounts(pixelsSkipped: pixelsSkipped, withEncodeTime: false).map { " " + $0 } ?? "")
            + (mqttCounts(counters()).map { " " + $0 } ?? "")
    }

    /// `mqtt_published=N mqtt_queued=N mqtt_spooled=N mqtt_dropped=N`; `nil` without `mqtt.url`.
    private func mqttCounts(_ c: ServiceCounters) -> String? {
        guard mqtt != nil else { return nil }
        return "mqtt_published=\(c.mqttPublished) mqtt_queued=\(c.mqttQueued) mqtt_spooled=\(c.mqttSpooled) mqtt_dropped=\(c.mqttDropped)"
    }

    /// The counters as one JSON object, for `<prefix>/stats`.
    private func statsJSON(_ c: ServiceCounters) -> [UInt8] {
        let s = c.statistics
        var fields = ["\"frames\":\(s.frames)", "\"scanned\":\(s.scanned)", "\"dropped\":\(s.droppedTotal)"]
        fields += DroppedReason.allCases.map { "\"dropped_\($0.rawValue)\":\(s.dropped[$0, default: 0])" }
        fields += ["\"codes_found\":\(s.codes)", "\"codes_emitted\":\(c.codesEmitted)", "\"output_lines_dropped\":\(c.outputLinesDropped)",
                   "\"device_reopens\":\(c.deviceReopens)", "\"streaming\":\(c.streaming)"]
        if mqtt != nil {
            fields += ["\"mqtt_published\":\(c.mqttPublished)", "\"mqtt_queued\":\(c.mqttQueued)", "\"mqtt_spooled\":\(c.mqttSpooled)",
                       "\"mqtt_dropped\":\(c.mqttDropped)"]
        }
        return Array(("{" + fields.joined(separator: ",") + "}").utf8)
    }

    /// This machine's host name up to its first dot, for the default topic prefix.
    static func shortHostname() -> String {
        let name = ProcessInfo.processInfo.hostName
        return name.split(separator: ".").first.map(String.init) ?? (name.isEmpty ? "localhost" : name)
    }

    /// The first line of `mqtt.password_file`; `nil` (logged) when it cannot be read.
    static func readPassword(_ settings: MQTTSettings, logger: Logger) -> String? {
        guard let path = settings.passwordFile else { return nil }
        do {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        } catch {
            logger.error("mqtt.password_file cannot be read; connecting without a password (the broker will likely refuse)",
                         metadata: ["file": "\(path)", "error": "\(error)"])
            return nil
        }
    }

    /// `snapshots_written=N snapshots_skipped=N snapshots_failed=N` (skipped: no room in the pixel
    /// pool or the snapshot queue), with the median encode time; `nil` without snapshots.
    private func snapshotCounts(pixelsSkipped: Int, withEncodeTime: Bool) -> String? {
        guard let snapshots else { return nil }
        let encode = snapshots.medianEncodeSeconds.map { DecimalText.string($0 * 1000, fractionDigits: 2, minimumFractionDigits: 2) + "ms" } ?? "-"
        return "snapshots_written=\(snapshots.written) snapshots_skipped=\(snapshots.skipped + pixelsSkipped) snapshots_failed=\(snapshots.failed)"
            + (withEncodeTime ? " snapshot_encode_p50=\(encode)" : "")
    }

    /// The counts now, over every session: what the summary line and the metrics file show.
    public func counters() -> ServiceCounters {
        var counters = ServiceCounters()
        let (running, streamed) = lock.withLock {
            (counters.statistics, counters.codesEmitted, counters.deviceReopens) = (totals, totalEmitted, totalReopens)
            return (current, currentStreamed)
        }
        if let running {  // its counts are added to the totals only when it ends
            counters.statistics.add(running.synchronizer.statistics)
            counters.codesEmitted += running.delivery.emitted
            counters.deviceReopens += Self.reopens(of: running.session.input)
            counters.streaming = streamed && running.session.input.missingSince == nil
        }
        counters.outputLinesDropped = writer.droppedLines
        if let snapshots {
            let pixelsSkipped = lock.withLock { totalPixelsSkipped + (current?.session.pixelPool?.skipped ?? 0) }
            (counters.snapshotsWritten, counters.snapshotsSkipped, counters.snapshotsFailed) =
                (snapshots.written, snapshots.skipped + pixelsSkipped, snapshots.failed)
        }
        if let mqtt {
            (counters.mqttPublished, counters.mqttDropped, counters.mqttQueued, counters.mqttSpooled, counters.mqttConnected) =
                (mqtt.published, mqtt.dropped, mqtt.queued, mqtt.spooled, mqtt.isConnected)
        }
        return counters
    }

    /// A camera's opens past its first; 0 for other sources.
    private static func reopens(of source: any FrameSource) -> Int {
        max(0, ((source as? V4L2CaptureSource)?.openCount ?? 0) - 1)
    }

    /// The metrics labelled `source`: the current ones, or new ones starting from the counts now.
    private func serviceMetrics(for source: String) -> ServiceMetrics {
        let current = lock.withLock { metrics }
        if current.source == source { return current }
        let new = ServiceMetrics(source: source, baseline: counters(), snapshots: snapshots != nil, mqtt: mqtt != nil)
        lock.withLock { metrics = new }
        return new
    }

    /// Brings the metrics up to `counters` and, with `metrics.textfile` set, hands the file's new
    /// content to the textfile writer's thread; returns that writer.
    @discardableResult
    private func publishMetrics(_ counters: ServiceCounters) -> MetricsTextfileWriter? {
        let (metrics, path, existing) = lock.withLock { (self.metrics, options.configuration.metricsTextfile, textfileWriter) }
        metrics.update(counters, textfileWriteFailures: existing?.failures ?? 0)
        guard let path else { return existing }
        let textfile = existing ?? MetricsTextfileWriter(logger: logger)
        if existing == nil { lock.withLock { textfileWriter = textfile } }
        textfile.submit(metrics.render(), to: FilePath(path))
        return textfile
    }

    /// How often STATUS= is refreshed (when it changed) and a missing camera keeps the watchdog fed.
    static let statusInterval: Duration = .seconds(1)

    /// The STATUS= line now: `scanning SOURCE: frames=N codes=N dropped=N` (all sessions),
    /// `waiting for SOURCE (gone N s)` while a lost camera is waited for, or `opening SOURCE`
    /// between sessions.
    public func statusLine() -> String {
        lock.withLock {
            guard let c = current else { return "opening \(options.source)" }
            if let since = c.session.input.missingSince {
                return "waiting for \(c.session.input.uri) (gone \((ContinuousClock.now - since).components.seconds) s)"
            }
            var s = totals
            s.add(c.synchronizer.statistics)
            return "scanning \(c.session.input.uri): frames=\(s.frames) codes=\(s.codes) dropped=\(s.droppedTotal)"
        }
    }

    private func reportStatusPeriodically() async {
        var last = ""
        while !Task.isCancelled {
            let line = statusLine()
            if line != last { events.status(line); last = line }
            // Liveness while the camera is missing: its reconnect backoff ends at device.missing_timeout.
            if line.hasPrefix("waiting for ") { events.sourceMissing() }
            do { try await Task.sleep(for: Self.statusInterval) } catch { return }
        }
    }

    private func reportStatsPeriodically() async {
        while !Task.isCancelled {
            let interval = lock.withLock { options.configuration.statsIntervalSeconds }
            guard interval > 0 else {
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            do { try await Task.sleep(for: .seconds(interval)) } catch { return }
            logger.notice("\(statsLine())")
            let counters = counters()
            mqtt?.publishStats(statsJSON(counters))
            publishMetrics(counters)
        }
    }

    /// `lateData=N outOfBuffers=N discontinuity=N`, for the stats line and the summary.
    static func droppedBreakdown(_ s: CaptureStatistics) -> String {
        DroppedReason.allCases.map { "\($0.rawValue)=\(s.dropped[$0, default: 0])" }.joined(separator: " ")
    }

    static func summaryLine(_ s: CaptureStatistics, emitted: Int, linesDropped: Int) -> String {
        let reasons = Self.droppedBreakdown(s)
        return "syncscan: summary: frames=\(s.frames) scanned=\(s.scanned) dropped=\(s.droppedTotal) (\(reasons)) "
            + "repeated_seq=\(s.repeatedSequenceNumbers) codes_found=\(s.codes) codes_emitted=\(emitted) output_lines_dropped=\(linesDropped)"
    }
}

/// A flag set once, from any thread.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// Serial delivery from the synchronizer: duplicate suppression, then the results handler.
/// The synchronizer calls `deliver` from one thread at a time (outside its lock), in order.
final class Delivery: @unchecked Sendable {
    private let handler: any ResultsHandler
    private let events: any ServiceEvents
    private let lock = NSLock()
    private var suppressor: DuplicateSuppressor
    private var _emitted = 0

    init(handler: any ResultsHandler, window: MediaTime, events: any ServiceEvents) {
        self.handler = handler
        self.events = events
        self.suppressor = DuplicateSuppressor(window: window)
    }

    var emitted: Int { lock.withLock { _emitted } }

    func setWindow(_ window: MediaTime) { lock.withLock { suppressor.window = window } }

    func deliver(_ collection: SynchronizedDataCollection) throws {
        if let metadata = collection.metadata {
            let fresh = lock.withLock { suppressor.filter(metadata.metadataObjects, at: metadata.presentationTime) }
            for code in fresh {
                var delivered = DeliveredCode(code: code, pixels: collection.video.pixels)
                try handler.handle(&delivered)
                lock.withLock { _emitted += 1 }
            }
        }
        try handler.frameCompleted(collection)
        events.frameDelivered()
    }
}
