import Capture
import Foundation
import Logging
import Media
import Results
import ServiceLifecycle
import SystemCalls
import SystemPackage

/// The daemon's one long-running job: a capture session from the source to the results handler.
///
/// Stops when the source ends (a file), on graceful shutdown (SIGTERM/SIGINT: frames in flight
/// are finished and flushed), or on failure (source error, stdout gone) — then it throws so the
/// process exits non-zero. `reload(_:)` applies new options: scanner settings, duplicate window
/// and output queue size in place on the following frames; a changed source, device or frame
/// policy restarts the session. A summary line goes to stderr at the end in every case.
///
/// A scan of one frame that has not returned after `scan_timeout_seconds` is noticed by the
/// status loop (never on a scanning thread): logged once at error level with the frame's seq
/// and pass, counted (`scans_stuck`), shown in STATUS=, and the watchdog pings stop while it
/// lasts (`ServiceEvents.scanStuck`). When no supervisor restarts the service on that
/// (`restartsWhenStuck`: no systemd watchdog), the run ends with `ScanStuckError` once what was
/// emitted is written: the stuck thread cannot be stopped, so its session is not waited for.
///
/// A reload never ends the service by itself. Its new source is checked first
/// (`SourceFactory.checkOpenable`): one that cannot be opened is logged and the running session
/// keeps going on the running configuration. If the reopened source still fails before it
/// streams, the failure is logged and the previous configuration is reopened; only when that
/// fails too does the service end, non-zero, with the error. (A `y4m:-` stream cannot be read
/// again from its middle, so for it that second failure is the usual outcome.)
///
/// It names no particular results handler: the configured ones (`ResultsHandlerRegistry`) are
/// started, fed, counted and finished through `ResultsHandler` alone, after stdout's JSON lines
/// handler of each session. No lock is held while it calls out (a session, a handler, the
/// metrics): each reads what it needs from `state` and lets go first.
public final class ScanService: Service, @unchecked Sendable {
    /// One running session's parts.
    private struct Running {
        var session: CaptureSession
        var synchronizer: DataOutputSynchronizer
        var metadata: MetadataOutput
        var delivery: Delivery
        /// Applies a reload's settings that need no reopen to the source (camera controls).
        var applyToSource: @Sendable (PipelineOptions) -> Void
    }

    /// Everything shared between `run`, `reload` and the report loops.
    private struct State {
        var options: PipelineOptions
        /// The running session's parts; `nil` between sessions.
        var current: Running?
        var restartRequested = false
        /// The options before a restart-requiring reload, until the restarted session streams.
        var fallbackOptions: PipelineOptions?
        /// Counts of the sessions that have ended (a reload that reopens the source starts a new one).
        var totals = CaptureStatistics()
        var totalEmitted = 0
        var totalReopens = 0
        var totalControlFailures = 0
        /// Whether the running session's source has streamed (set by its `onStreaming`).
        var currentStreamed = false
        /// The metrics of the current source (a reload to another source starts new series).
        var metrics: ServiceMetrics
        /// Made on the first write of a `metrics.textfile`.
        var textfileWriter: MetricsTextfileWriter?
    }

    /// How `run` learns that its sessions ended or that a stuck scan ends the run.
    private enum RunEnd: Sendable {
        case sessionsEnded
        case stuck(ScanStuckError)
    }

    private let writer: LineWriter
    private let logger: Logger
    private let events: any ServiceEvents
    private let summary: @Sendable (String) -> Void
    /// The configured results handlers beside stdout (snapshots, MQTT, …), shared by every
    /// session: one snapshot directory, one broker connection for the whole run.
    private let handlers: [any ResultsHandler]
    private let state: LockedValue<State>
    /// Scans past `scan_timeout_seconds`, checked by the status loop.
    private let stuckScans = StuckScanWatch(interval: ScanService.statusInterval)
    /// Test seam: runs after a session's parts are made, just before they become `current`.
    var sessionWillPublish: (@Sendable () -> Void)?
    /// Test seam: runs on the scanning thread before each pass over a frame (its seq and pass):
    /// a test makes a scan block or take long.
    var passWillRun: (@Sendable (UInt64, DecoderPass) -> Void)?
    private let runEnds: AsyncStream<RunEnd>
    private let runEnd: AsyncStream<RunEnd>.Continuation

    /// - Parameters:
    ///   - writer: where JSON lines go (stdout in the daemon).
    ///   - events: lifecycle notifications (systemd).
    ///   - summary: receives the end-of-run summary line (the daemon writes it to stderr).
    ///   - snapshotDirectory: where snapshots go when `snapshots.directory` is set; `nil`: that
    ///     directory on disk (tests pass a fake: a full or read-only disk).
    ///   - additionalHandlers: handlers after the configured ones (an embedding program's own).
    public init(options: PipelineOptions, writer: LineWriter, logger: Logger, events: any ServiceEvents = NoServiceEvents(),
                snapshotDirectory: (any SnapshotDirectory)? = nil, additionalHandlers: [any ResultsHandler] = [],
                summary: @escaping @Sendable (String) -> Void) {
        self.writer = writer
        self.logger = logger
        self.events = events
        self.summary = summary
        let sourceURI = (try? InputRegistry.parse(options.source))?.description ?? SourceURI.redactingCredentials(options.source)
        handlers = ResultsHandlerRegistry.make(options.configuration, context: .init(source: sourceURI, logger: logger,
                                                                                     snapshotDirectory: snapshotDirectory,
                                                                                     softwareVersion: options.softwareVersion))
            + additionalHandlers
        state = LockedValue(State(options: options, metrics: ServiceMetrics(source: sourceURI)))
        (runEnds, runEnd) = AsyncStream.makeStream(of: RunEnd.self)
    }

    public func run() async throws {
        for handler in handlers { handler.start() }
        // The stats and status loops are child tasks: they end (their last metrics write
        // included) before the handlers are finished and the final metrics are written.
        var failure: (any Error)? = await withTaskGroup(of: Void.self) { loops in
            loops.addTask { await self.reportStatsPeriodically() }
            loops.addTask { await self.reportStatusPeriodically() }
            defer { loops.cancelAll() }
            return await runSessionsUnlessStuck()
        }
        events.stopping()
        // The configured handlers flush (a snapshot queue, a broker's last PUBACKs), then stdout.
        let (handlers, writer) = (self.handlers, self.writer)
        let finished: [any Error] = await runOnThread(name: "syncscan-finish") {
            var errors: [any Error] = []
            do { try ResultsFanOut(handlers).finish() } catch { errors.append(error) }
            do { try writer.finish() } catch { errors.append(error) }
            return errors
        }
        failure = failure ?? finished.first
        let final = counters()
        summary(ServiceLines.summary(final, handlerSummaryFields: handlers.map(\.summaryFields)))
        if let textfile = publishMetrics(final) { await runOnThread(name: "syncscan-metric") { textfile.finish() } }
        if let failure { throw failure }
    }

    /// `runSessions()`'s outcome, or a `ScanStuckError` as soon as a stuck scan ends the run:
    /// the sessions run in a task of their own, which a scan that never returns keeps from
    /// ending; that session's source is stopped and the task left behind.
    private func runSessionsUnlessStuck() async -> (any Error)? {
        let (runEnd, runEnds) = (self.runEnd, self.runEnds)
        let sessions = Task {
            let failure = await self.runSessions()
            runEnd.yield(.sessionsEnded)
            return failure
        }
        let stuck: ScanStuckError? = await withTaskCancellationHandler {
            for await end in runEnds {
                if case .stuck(let error) = end { return error }
                return nil
            }
            return nil
        } onCancel: {
            sessions.cancel()
        }
        guard let stuck else { return await sessions.value }
        let running = state.withLock { $0.current }
        running?.session.stop()
        return stuck
    }

    /// Sessions one after another until the source ends, a stop, or a failure (returned).
    private func runSessions() async -> (any Error)? {
        while true {
            let (options, fallback) = state.withLock { state in
                state.restartRequested = false
                defer { state.fallbackOptions = nil }
                return (state.options, state.fallbackOptions)
            }
            do {
                try await runSession(options)
            } catch let error as SessionError {
                guard !error.streamed, let fallback, !Task.isShuttingDownGracefully else { return error.underlying }
                logger.error("the reloaded source failed to open; returning to the previous configuration",
                             metadata: ["source": "\(options.sourceShown)", "error": "\(error.underlying)"])
                state.withLock { if !$0.restartRequested { $0.options = fallback } }
                continue
            } catch {
                return error
            }
            let restart = state.withLock { $0.restartRequested }
            if !restart || Task.isShuttingDownGracefully { return nil }
            logger.notice("restarting capture with the reloaded configuration")
        }
    }

    /// One capture session with `options`, until its source ends, it is stopped, or it fails.
    /// Each session has its own JSON lines handler (lines name its source) on the shared writer,
    /// after the configured handlers (so a line names the code's snapshot).
    private func runSession(_ options: PipelineOptions) async throws {
        let (source, applyToSource) = try SourceFactory.make(options, logger: logger)
        // Lines wait for a slow reader only when frames wait too (a file read to its end).
        let policy: OverflowPolicy = options.configuration.videoDataOutput.framesWait(for: source) ? .wait : .drop
        writer.setOverflowPolicy(policy)
        for handler in handlers { handler.setOverflowPolicy(policy) }
        let lines = options.configuration.output.stdout
            ? JSONLinesResultsHandler(writer: writer, source: source.uri, emitFrames: options.emitFrames) : nil
        let parts: [any ResultsHandler] = handlers + (lines.map { [$0] } ?? [])
        let handler: any ResultsHandler = parts.count == 1 ? parts[0] : ResultsFanOut(parts)
        let events = self.events
        let delivery = Delivery(handler: handler, window: MediaTime(seconds: options.duplicateWindow),
                                frameDelivered: { events.frameDelivered() })
        let metrics = serviceMetrics(for: source.uri)
        let metadata = MetadataOutput(settings: options.configuration.metadataSettings, scanningThreads: options.configuration.scanningThreads,
                                      scanTimeObserver: { metrics.recordScanDuration($0) },
                                      passTimeObserver: { metrics.recordPassDuration($0, $1) }, passWillRun: passWillRun)
        // Pixel copies: the snapshot queue, one per scanning thread, two on their way between them,
        // and with a live view two more (the one being encoded, the next).
        let session = CaptureSession(input: source, videoDataOutput: options.configuration.videoDataOutput,
                                     metadataOutput: metadata, pixelsRequest: handler.pixelsRequest, pixelsSampler: handler.pixelsSampler,
                                     pixelCopies: (options.configuration.snapshots?.queueFrames ?? 0) + metadata.scanningThreads + 2
                                         + (handler.pixelsSampler == nil ? 0 : 2),
                                     logger: logger)
        let synchronizer = DataOutputSynchronizer { collection in try delivery.deliver(collection) }
        sessionWillPublish?()
        // A reload that came before `current` was set has nothing to stop: honour it by not starting.
        let superseded = state.withLock { state in
            if !state.restartRequested { state.current = Running(session: session, synchronizer: synchronizer, metadata: metadata, delivery: delivery,
                                                                    applyToSource: applyToSource) }
            return state.restartRequested
        }
        if superseded { return }
        let limit = options.frameLimit
        let result: Result<Void, any Error>
        let streamed = LockedValue(false)
        let handlers = self.handlers
        do {
            try await withGracefulShutdownHandler {
                _ = try await session.run(synchronizer: synchronizer, frameLimit: limit, onStreaming: { [state] in
                    streamed.withLock { $0 = true }
                    state.withLock { $0.currentStreamed = true }
                    for handler in handlers { handler.sourceStreaming() }
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
        let (statistics, emitted, reopens, controlFailures) = (synchronizer.statistics, delivery.emitted, source.reopens, source.controlFailures)
        state.withLock { state in
            state.totals.add(statistics)
            state.totalEmitted += emitted
            state.totalReopens += reopens
            state.totalControlFailures += controlFailures
            state.current = nil
            state.currentStreamed = false
        }
        if case .failure(let error) = result { throw SessionError(underlying: error, streamed: streamed.withLock { $0 }) }
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
        let old = state.withLock { $0.options }
        if old.needsRestart(for: new) {
            do {
                try SourceFactory.checkOpenable(new, logger: logger)
            } catch {
                logger.error("reloaded configuration not applied: its source cannot be opened; keeping the running configuration",
                             metadata: ["source": "\(new.sourceShown)", "error": "\(error)"])
                return
            }
        }
        writer.setCapacity(new.configuration.output.queueLines)
        for (keys, what) in new.configuration.startOnlyChanges(from: old.configuration) {
            logger.notice("\(keys) changed: \(what) settings are read at start; restart the service to apply them")
        }
        let (needsRestart, running) = state.withLock { state in
            let old = state.options
            state.options = new
            let restart = old.needsRestart(for: new)
            if restart && state.fallbackOptions == nil { state.fallbackOptions = old }
            if restart { state.restartRequested = true }
            return (restart, state.current)
        }
        // Applied to the running session outside the lock (each part has its own).
        running?.delivery.setWindow(MediaTime(seconds: new.duplicateWindow))
        running?.metadata.settings = new.configuration.metadataSettings
        if !needsRestart { running?.applyToSource(new) }
        if needsRestart {
            logger.notice("reloaded configuration changes the source or capture settings; reopening")
            running?.session.stop()
        } else {
            logger.notice("reloaded configuration applied in place", metadata: [
                "output.queue_lines": "\(new.configuration.output.queueLines)",
                "symbologies": "\(new.configuration.scanner.symbologies.map(\.rawValue).sorted().joined(separator: ","))",
            ])
        }
    }

    /// The stats line's content now: counts so far (all sessions), scan times, output drops,
    /// then each results handler's counters.
    public func statsLine() -> String {
        let metadata = state.withLock { $0.current?.metadata }
        let failures = metadata?.decoderFailures
        return ServiceLines.stats(counters(), scanTimes: metadata?.scanTimePercentiles(), passTimes: metadata?.passTimePercentiles() ?? [:],
                                  decoderFailures: failures.map { ($0.count, $0.last.map { "\($0)" }) })
    }

    /// The counts now, over every session: what the summary line and the metrics file show.
    public func counters() -> ServiceCounters {
        var counters = ServiceCounters()
        let (running, streamed) = state.withLock { state in
            (counters.statistics, counters.codesEmitted, counters.deviceReopens, counters.controlFailures)
                = (state.totals, state.totalEmitted, state.totalReopens, state.totalControlFailures)
            return (state.current, state.currentStreamed)
        }
        counters.scansStuck = stuckScans.count
        if let running {  // its counts are added to the totals only when it ends
            counters.statistics.add(running.synchronizer.statistics)
            counters.codesEmitted += running.delivery.emitted
            counters.deviceReopens += running.session.input.reopens
            counters.controlFailures += running.session.input.controlFailures
            counters.streaming = streamed && running.session.input.missingSince == nil
        }
        counters.outputLinesDropped = writer.droppedLines
        counters.handlers = handlers.map(\.counters)
        return counters
    }

    /// The configured results handlers (the live view among them, for its HTTP service).
    public var configuredHandlers: [any ResultsHandler] { handlers }

    /// The running session's source (the live view shows its mode); `nil` between sessions.
    public var currentSource: (any FrameSource)? { state.withLock { $0.current?.session.input } }

    /// The Prometheus text exposition now, from the same metrics as `metrics.textfile` (`/metrics`).
    public func metricsExposition() -> [UInt8] {
        let (metrics, textfile) = state.withLock { ($0.metrics, $0.textfileWriter) }
        metrics.update(counters(), textfileWriteFailures: textfile?.failures ?? 0)
        return metrics.render()
    }

    /// The status as one JSON object (`/status`, the live view's status events): `source`, `state`
    /// (`scanning`, `waiting` for a lost camera, `opening`), `status` (STATUS='s line),
    /// `rect_of_interest` (normalized) and `counters` (as `<prefix>/stats`).
    public func statusJSON() -> [UInt8] {
        let line = statusLine()
        let (source, roi) = state.withLock { ($0.options.sourceShown, $0.options.configuration.rectOfInterest) }
        let stateName = line.hasPrefix("scanning ") ? "scanning" : line.hasPrefix("waiting for ") ? "waiting"
            : line.hasPrefix("scan stuck: ") ? "stuck" : "opening"
        func quoted(_ text: String) -> String {
            "\"" + text.unicodeScalars.map { $0 == "\"" || $0 == "\\" ? "\\\($0)" : $0.value < 0x20 ? " " : "\($0)" }.joined() + "\""
        }
        let rect = "{\"x\":\(roi.x),\"y\":\(roi.y),\"width\":\(roi.width),\"height\":\(roi.height)}"
        return Array("{\"type\":\"status\",\"source\":\(quoted(source)),\"state\":\"\(stateName)\",\"status\":\(quoted(line)),\"rect_of_interest\":\(rect),\"counters\":".utf8)
            + ServiceLines.statsJSON(counters()) + Array("}".utf8)
    }

    /// The metrics labelled `source`: the current ones, or new ones starting from the counts now.
    private func serviceMetrics(for source: String) -> ServiceMetrics {
        let current = state.withLock { $0.metrics }
        if current.source == source { return current }
        let new = ServiceMetrics(source: source, baseline: counters())
        state.withLock { $0.metrics = new }
        return new
    }

    /// Brings the metrics up to `counters` and, with `metrics.textfile` set, hands the file's new
    /// content to the textfile writer's thread; returns that writer.
    @discardableResult
    private func publishMetrics(_ counters: ServiceCounters) -> MetricsTextfileWriter? {
        let (metrics, path, existing) = state.withLock { ($0.metrics, $0.options.configuration.metricsTextfile, $0.textfileWriter) }
        metrics.update(counters, textfileWriteFailures: existing?.failures ?? 0)
        guard let path else { return existing }
        let textfile = existing ?? MetricsTextfileWriter(logger: logger)
        if existing == nil { state.withLock { $0.textfileWriter = textfile } }
        textfile.submit(metrics.render(), to: FilePath(path))
        return textfile
    }

    /// How often STATUS= is refreshed (when it changed) and a missing camera keeps the watchdog fed.
    static let statusInterval: Duration = .seconds(1)

    /// The STATUS= line now: `scanning SOURCE: frames=N codes=N dropped=N` (all sessions; `statusDropFields`), then
    /// once a code was read or a pass cut, ` by_pass=PASS:N,… cut=N` (codes by pass, passes cut by the budget),
    /// `waiting for SOURCE (gone N s)` while a lost camera is waited for, `opening SOURCE`
    /// between sessions, or `scan stuck: frame SEQ for N s (pass PASS)` while a scan has not
    /// returned within `scan_timeout_seconds`.
    public func statusLine() -> String {
        let (running, totals, source, timeout) = state.withLock {
            ($0.current, $0.totals, $0.options.sourceShown, $0.options.configuration.scanTimeoutSeconds)
        }
        guard let running else { return "opening \(source)" }
        if let (stuck, elapsed) = stuckScans.oldestStuck(running.metadata, timeout: timeout) {
            return "scan stuck: frame \(stuck.sequenceNumber) for \(elapsed.components.seconds) s" + (stuck.pass.map { " (pass \($0))" } ?? "")
        }
        let input = running.session.input
        if let since = input.missingSince {
            return "waiting for \(input.uri) (gone \((ContinuousClock.now - since).components.seconds) s)"
        }
        var s = totals
        s.add(running.synchronizer.statistics)
        return "scanning \(input.uri): frames=\(s.frames) codes=\(s.codes) dropped=\(s.droppedTotal)" + ServiceLines.statusDropFields(s) + ServiceLines.statusPassFields(s)
    }

    /// Logs each scan newly past `scan_timeout_seconds`, tells `events` whether one is stuck,
    /// and without a supervisor that restarts on that, ends the run (once).
    private func checkForStuckScans() {
        let (metadata, timeout) = state.withLock { ($0.current?.metadata, $0.options.configuration.scanTimeoutSeconds) }
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

    private func reportStatusPeriodically() async {
        var last = ""
        while !Task.isCancelled {
            checkForStuckScans()
            let line = statusLine()
            if line != last { events.status(line); last = line }
            // Liveness while the camera is missing: its reconnect backoff ends at device.missing_timeout.
            if line.hasPrefix("waiting for ") { events.sourceMissing() }
            do { try await Task.sleep(for: Self.statusInterval) } catch { return }
        }
    }

    private func reportStatsPeriodically() async {
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


/// A scan did not return within `scan_timeout_seconds` and no supervisor restarts the service
/// on that (no systemd watchdog): the run ends, non-zero, once what was emitted is written.
public struct ScanStuckError: Error, CustomStringConvertible {
    public var timeoutSeconds: Double
    /// The stuck scan's frame.
    public var sequenceNumber: UInt64

    public var description: String {
        "a scan did not return within scan_timeout_seconds (\(DecimalText.string(timeoutSeconds, fractionDigits: 3)) s): "
            + "frame \(sequenceNumber); exiting so a supervisor can restart"
    }
}
