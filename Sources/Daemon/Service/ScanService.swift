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
/// are finished and delivered), or on failure (source error, stdout gone) — then it throws so the
/// process exits non-zero. `reload(_:)` applies new options: scanner settings, duplicate window
/// and output queue size in place on the following frames; a changed source, device or frame
/// policy restarts the session. A summary line goes to stderr at the end in every case, once the
/// handlers have flushed (`makeOutputServices()`).
///
/// What it reports is read by parts of their own, services of the daemon's group beside it
/// (`Daemon.serviceGroup`), through `ScanReadings`: the stats line (`StatsLineReporter`), STATUS=
/// (`StatusReporter`), `metrics.textfile` (`MetricsTextfilePublisher`) and the stuck-scan watch
/// (`StuckScanWatch`). When that watch finds a scan stuck and no supervisor restarts the service
/// on that, it ends the run (`endRun`) with `ScanStuckError` once what was emitted is written:
/// the stuck thread cannot be stopped, so its session is not waited for.
///
/// A reload never ends the service by itself. Its new source is checked first
/// (`SourceFactory.checkOpenable`): one that cannot be opened is logged and the running session
/// keeps going on the running configuration. If the reopened source still fails before it
/// streams, the failure is logged and the previous configuration is reopened; only when that
/// fails too does the service end, non-zero, with the error. (A `y4m:-` stream cannot be read
/// again from its middle, so for it that second failure is the usual outcome.)
///
/// It names no particular results handler: the configured ones (`ResultsHandlerRegistry`) are
/// fed through `ResultsHandler` alone, before stdout's JSON lines handler of each session, told
/// of the run through `ServiceHooks` and counted through `CountsReporting` (those that adopt
/// them); `makeOutputServices()` runs each handler with threads as a service of the group.
/// No lock is held while it calls out (a session, a handler, the metrics): each reads what it
/// needs from `state` and lets go first.
public final class ScanService: Service, Sendable {
    /// One running session: its pipeline (source to handlers), and what reaches its source.
    struct Running {
        var pipeline: CapturePipeline
        /// Applies a reload's settings that need no reopen to the source (camera controls).
        var applyToSource: @Sendable (PipelineOptions) -> Void
    }

    /// Everything shared between `run`, `reload` and the report loops.
    struct State {
        var options: PipelineOptions
        /// The running session's parts; `nil` between sessions.
        var current: Running?
        var restartRequested = false
        /// The options before a restart-requiring reload, until the restarted session streams.
        var fallbackOptions: PipelineOptions?
        /// Counts of the sessions that have ended (a reload that reopens the source starts a new one).
        var totals = CaptureStatistics()
        var totalEmitted = 0
        var totalItems = ItemStatistics()
        /// The number the next session's first read window gets.
        var nextWindow: UInt64 = 1
        var totalReopens = 0
        var totalControlFailures = 0
        /// Whether the running session's source has streamed (set by its `onStreaming`).
        var currentStreamed = false
        /// The metrics of the current source (a reload to another source starts new series).
        var metrics: ServiceMetrics
    }

    /// How `run` learns that its sessions ended or that a stuck scan ends the run.
    enum RunEnd: Sendable {
        case sessionsEnded
        case stuck(ScanStuckError)
    }

    let writer: LineWriter
    let logger: Logger
    let events: any ServiceEvents
    private let summary: @Sendable (String) -> Void
    /// The configured results handlers beside stdout (snapshots, MQTT, …), shared by every
    /// session: one snapshot directory, one broker connection for the whole run.
    public let configuredHandlers: ResultsHandlerRegistry.Handlers
    /// What every trigger of a triggered reader presses (SIGUSR1, MQTT, HTTP, a key).
    public let triggers = TriggerSwitch()
    /// The tally against `match.list` (the match handler counts into it; the TCP server's
    /// `RESET EXPECTED` and the live view's `POST /expected/reset` start it over).
    public let expected: ExpectedTally
    /// The read windows' counts over every session (`trigger.mode: triggered`).
    public let readCounts = ReadWindowCounts()
    /// The configured handlers, then an embedding program's own (`additionalHandlers`).
    let handlers: [any ResultsHandler]
    /// Those of `handlers` that take the service's hooks (their threads' start and flush, the
    /// overflow policy, the source streams, a stats interval passed), each with its name.
    let hooked: [(name: String, handler: any ServiceHooks)]
    /// What the lines, STATUS=, `/status` and the metrics count, part by part in delivery order:
    /// the handlers that count, the triggers' counts after the configured handlers.
    let counted: [any CountsReporting]
    let state: LockedValue<State>
    /// How far the group's shutdown got (this service's run returned, the handlers' and
    /// stdout's flushes), for the shutdown limit's message.
    let shutdownProgress = ShutdownProgress()
    /// Scans past `scan_timeout_seconds`, as `StuckScanWatch` finds them.
    let stuckScans = StuckScans()
    /// Writes `metrics.textfile` for `MetricsTextfilePublisher` (no thread until its first write);
    /// its failures are counted in the metrics.
    let textfileWriter: MetricsTextfileWriter
    /// The test seams, set by a test before the run.
    private let seams = LockedValue<(sessionWillPublish: (@Sendable () -> Void)?, passWillRun: (@Sendable (UInt64, DecoderPass) -> Void)?)>((nil, nil))
    /// Test seam: runs after a session's parts are made, just before they become `current`.
    var sessionWillPublish: (@Sendable () -> Void)? {
        get { seams.withLock { $0.sessionWillPublish } }
        set { seams.withLock { $0.sessionWillPublish = newValue } }
    }
    /// Test seam: runs on the scanning thread before each pass over a frame (its seq and pass):
    /// a test makes a scan block or take long.
    var passWillRun: (@Sendable (UInt64, DecoderPass) -> Void)? {
        get { seams.withLock { $0.passWillRun } }
        set { seams.withLock { $0.passWillRun = newValue } }
    }
    private let runEnds: AsyncStream<RunEnd>
    let runEnd: AsyncStream<RunEnd>.Continuation

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
        textfileWriter = MetricsTextfileWriter(logger: logger)
        let parsed = try? InputRegistry.parse(options.source, families: options.configuration.components.inputs)
        let sourceURI = parsed?.description ?? SourceURI.redactingCredentials(options.source)
        expected = ExpectedTally(perWindow: options.configuration.trigger.mode == .triggered)
        configuredHandlers = ResultsHandlerRegistry.make(options.configuration, context: .init(
            source: sourceURI, sourceName: parsed?.name, logger: logger, snapshotDirectory: snapshotDirectory,
            softwareVersion: options.softwareVersion, triggers: triggers,
            readWindows: options.configuration.trigger.mode == .triggered, expected: expected))
        // The triggered reads' handler (no-read JPEGs, the read counters), first of the handlers,
        // when `trigger.mode` is `triggered` at start.
        let readResults = options.configuration.trigger.mode == .triggered
            ? Self.makeReadResultsHandler(options.configuration, counts: readCounts, triggers: triggers,
                                          snapshotDirectory: snapshotDirectory, logger: logger) : nil
        handlers = (readResults.map { [$0] } ?? []) + configuredHandlers.all + additionalHandlers
        let named = (readResults.map { [("read_results", $0)] } ?? []) + configuredHandlers.named
            + additionalHandlers.map { ("\(type(of: $0))", $0) }
        hooked = named.compactMap { name, handler in (handler as? any ServiceHooks).map { (name, $0) } }
        counted = (readResults.map { [$0] } ?? []) + configuredHandlers.counted
            + additionalHandlers.compactMap { $0 as? any CountsReporting }
        state = LockedValue(State(options: options, metrics: ServiceMetrics(source: sourceURI)))
        (runEnds, runEnd) = AsyncStream.makeStream(of: RunEnd.self)
    }

    /// Runs the sessions until the source ends, a graceful shutdown, a stuck scan (`endRun`) or a
    /// failure (thrown). The handlers are not finished here: that is `makeOutputServices()`'s
    /// services, which the group shuts down after this one.
    public func run() async throws {
        let failure = await runSessionsUnlessStuck()
        // No frame takes a pull any more: later presses are refused, not left waiting uncounted.
        triggers.close()
        // Cancelled (the limit passed, or a forced stop): the scan was still at its last frames then.
        if !Task.isCancelled { shutdownProgress.scanReturned() }
        events.stopping()
        if let failure { throw failure }
    }

    /// The services of this scan's outputs, in the order the group lists them, before this
    /// service: stdout's (`StandardOutputService`: its lines flushed last, then the run's summary
    /// line, then the final counts to `atEnd`), then one for each handler with threads of its own
    /// (`ResultsHandlerService`: the configured ones and an embedding program's own) in reverse
    /// delivery order, so that they flush in delivery order once this service has returned.
    /// - Parameters:
    ///   - forcedStop: the signal that forces the stop, if one does (`StopSignals`).
    ///   - atEnd: the final counts, after the summary line (the last `metrics.textfile` write).
    public func makeOutputServices(forcedStop: ForcedStop? = nil,
                                   atEnd: @escaping @Sendable (ServiceCounters) async -> Void = { _ in }) -> [any Service] {
        let stdout = StandardOutputService(writer: writer, progress: shutdownProgress, timeoutSeconds: shutdownTimeoutSeconds,
                                           forcedStop: forcedStop) { [self] in await reportEnd(atEnd) }
        return [stdout] + hooked.reversed().map { ResultsHandlerService(name: $0.name, handler: $0.handler, progress: shutdownProgress) }
    }

    /// Ends the run with `error` (a stuck scan, from `StuckScanWatch`), without waiting for the
    /// session whose scan is stuck; only the first end counts.
    func endRun(_ error: ScanStuckError) {
        runEnd.yield(.stuck(error))
    }

    /// `shutdown_timeout_seconds` as the service started (a reload does not change it), or its
    /// default (under systemd, `defaultSupervisedShutdownTimeoutSeconds`); 0: none.
    var shutdownTimeoutSeconds: Double {
        let configured = state.withLock { $0.options.configuration.shutdownTimeoutSeconds }
        return configured ?? (events.stopsAreTimed ? SyncscanConfiguration.defaultSupervisedShutdownTimeoutSeconds : 0)
    }

    /// The run's end, once the handlers have flushed: the summary line, then `atEnd` (the final metrics).
    private func reportEnd(_ atEnd: @Sendable (ServiceCounters) async -> Void) async {
        let final = counters()
        summary(ServiceLines.summary(final, handlerSummaryFields: counted.map(\.summaryFields)))
        await atEnd(final)
    }

    /// `runSessions()`'s outcome, or a `ScanStuckError` as soon as a stuck scan ends the run, or
    /// nothing as soon as the group cancels this service (the shutdown limit passed, or a second
    /// signal forced the stop): the sessions run in a task of their own, which a scan that never
    /// returns, or a delivery waiting for a reader that stopped reading (a file's lines wait for
    /// stdout), keeps from ending; that session's source is stopped and the task left behind.
    /// Every source kind stops this one way.
    private func runSessionsUnlessStuck() async -> (any Error)? {
        enum Outcome { case ended, stuck(ScanStuckError), cancelled }
        let (runEnd, runEnds) = (self.runEnd, self.runEnds)
        let sessions = Task {
            let failure = await self.runSessions()
            runEnd.yield(.sessionsEnded)
            return failure
        }
        let outcome: Outcome = await withTaskCancellationHandler {
            for await end in runEnds {
                if case .stuck(let error) = end { return .stuck(error) }
                return .ended
            }
            return .cancelled
        } onCancel: {
            sessions.cancel()
        }
        switch outcome {
        case .ended:
            return await sessions.value
        case .stuck(let error):
            state.withLock { $0.current }?.pipeline.stop()
            return error
        case .cancelled:
            state.withLock { $0.current }?.pipeline.stop()
            return nil
        }
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
                             metadata: ["source": "\(LogText.untrusted(options.sourceShown))", "error": "\(LogText.error(error.underlying))"])
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
        for (_, handler) in hooked { handler.setOverflowPolicy(policy) }
        let lines = options.configuration.output.stdout
            ? JSONLinesResultsHandler(writer: writer, source: source.uri, emitFrames: options.emitFrames) : nil
        let parts: [any ResultsHandler] = handlers + (lines.map { [$0] } ?? [])
        let handler: any ResultsHandler = parts.count == 1 ? parts[0] : ResultsFanOut(parts)
        let events = self.events
        let metrics = serviceMetrics(for: source.uri)
        let metadata = MetadataOutput(settings: options.configuration.metadataSettings, scanningThreads: options.configuration.scanningThreads,
                                      scanTimeObserver: { metrics.recordScanDuration($0) },
                                      passTimeObserver: { metrics.recordPassDuration($0, $1) }, passWillRun: passWillRun)
        let readWindows = options.configuration.trigger.mode == .triggered
            ? ReadWindows(triggers: triggers, counts: readCounts, firstWindow: state.withLock { $0.nextWindow }) : nil
        let pipeline = CapturePipeline(input: source, videoDataOutput: options.configuration.videoDataOutput, metadataOutput: metadata,
                                       handler: handler, reporting: options.reporting, filter: options.configuration.output.codeFilter,
                                       frameDelivered: { events.frameDelivered() }, itemRemoved: { metrics.recordItemRemoved($0) },
                                       readWindows: readWindows, logger: logger)
        sessionWillPublish?()
        // A reload that came before `current` was set has nothing to stop: honour it by not starting.
        let superseded = state.withLock { state in
            if !state.restartRequested { state.current = Running(pipeline: pipeline, applyToSource: applyToSource) }
            return state.restartRequested
        }
        if superseded { return }
        let limit = options.frameLimit
        let result: Result<Void, any Error>
        let streamed = LockedValue(false)
        let hooked = self.hooked
        do {
            try await withGracefulShutdownHandler {
                _ = try await pipeline.run(frameLimit: limit, onStreaming: { [state] in
                    streamed.withLock { $0 = true }
                    state.withLock { $0.currentStreamed = true }
                    for (_, handler) in hooked { handler.sourceStreaming() }
                    events.streaming()
                })
            } onGracefulShutdown: {
                events.stopping()
                pipeline.stop()
            }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        let report = source.report
        let (statistics, emitted, reopens, controlFailures) = (pipeline.statistics, pipeline.emitted, report.health.reopens,
                                                               report.controls?.failures ?? 0)
        let items = pipeline.delivery.itemStatistics
        state.withLock { state in
            state.totals.add(statistics)
            state.totalEmitted += emitted
            state.totalItems.add(items)
            state.totalReopens += reopens
            state.totalControlFailures += controlFailures
            if let readWindows { state.nextWindow = readWindows.nextWindow }
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
                             metadata: ["source": "\(LogText.untrusted(new.sourceShown))", "error": "\(LogText.error(error))"])
                return
            }
        }
        writer.setCapacity(new.configuration.output.queueLines)
        for (keys, why) in new.configuration.startOnlyChanges(from: old.configuration) {
            logger.notice("\(keys) changed: \(why); restart the service to apply them")
        }
        ResultsHandlerRegistry.reload(configuredHandlers, to: new.configuration, logger: logger)
        let (needsRestart, running) = state.withLock { state in
            let old = state.options
            state.options = new
            let restart = old.needsRestart(for: new)
            if restart && state.fallbackOptions == nil { state.fallbackOptions = old }
            if restart { state.restartRequested = true }
            return (restart, state.current)
        }
        // Applied to the running session outside the lock (each part has its own).
        running?.pipeline.apply(new.configuration.metadataSettings, reporting: new.reporting)
        running?.pipeline.apply(filter: new.configuration.output.codeFilter)
        if !needsRestart { running?.applyToSource(new) }
        if needsRestart {
            logger.notice("reloaded configuration changes the source or capture settings; reopening")
            running?.pipeline.stop()
        } else {
            logger.notice("reloaded configuration applied in place", metadata: [
                "output.queue_lines": "\(new.configuration.output.queueLines)",
                "symbologies": "\(new.configuration.scanner.symbologies.map(\.rawValue).sorted().joined(separator: ","))",
            ])
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
