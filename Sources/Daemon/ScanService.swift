import Capture
import Foundation
import Logging
import Media
import Results
import ServiceLifecycle
import ZXing

/// The daemon's one long-running job: a capture session from the source to the results handler.
///
/// Stops when the source ends (a file), on graceful shutdown (SIGTERM/SIGINT: frames in flight
/// are finished and flushed), or on failure (source error, stdout gone) — then it throws so the
/// process exits non-zero. `reload(_:)` applies new options: scanner settings and duplicate
/// window in place on the following frames; a changed source, device or frame policy restarts
/// the session. A summary line goes to stderr at the end in every case.
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
    /// Counts of the sessions that have ended (a reload that reopens the source starts a new one).
    private var totals = CaptureStatistics()
    private var totalEmitted = 0
    /// The latest session's handler: finished (flushed) once, when the service ends.
    private var lastHandler: JSONLinesResultsHandler?

    /// - Parameters:
    ///   - writer: where JSON lines go (stdout in the daemon).
    ///   - events: lifecycle notifications (systemd).
    ///   - summary: receives the end-of-run summary line (the daemon writes it to stderr).
    public init(options: PipelineOptions, writer: LineWriter, logger: Logger, events: any ServiceEvents = NoServiceEvents(),
                summary: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.writer = writer
        self.logger = logger
        self.events = events
        self.summary = summary
    }

    public func run() async throws {
        let statsTask = Task { await self.reportStatsPeriodically() }
        var failure: (any Error)?
        while true {
            let options = lock.withLock { restartRequested = false; return self.options }
            do {
                try await runSession(options)
            } catch {
                failure = error
                break
            }
            let restart = lock.withLock { restartRequested }
            if !restart || Task.isShuttingDownGracefully { break }
            logger.notice("restarting capture with the reloaded configuration")
        }
        statsTask.cancel()
        events.stopping()
        if let handler = lock.withLock({ lastHandler }) {
            do { try handler.finish() } catch { failure = failure ?? error }
        }
        let (finalTotals, emitted) = lock.withLock { (totals, totalEmitted) }
        summary(Self.summaryLine(finalTotals, emitted: emitted, linesDropped: writer.droppedLines))
        if let failure { throw failure }
    }

    /// One capture session with `options`, until its source ends, it is stopped, or it fails.
    /// Each session has its own results handler (lines name its source) on the shared writer.
    private func runSession(_ options: PipelineOptions) async throws {
        let source = try SourceFactory.makeSource(options, logger: logger)
        // Lines wait for a slow reader only when frames wait too (a file read to its end).
        writer.setOverflowPolicy(options.configuration.videoDataOutput.framesWait(for: source) ? .wait : .drop)
        let handler = JSONLinesResultsHandler(writer: writer, source: source.uri, emitFrames: options.emitFrames)
        lock.withLock { lastHandler = handler }
        let events = self.events
        let delivery = Delivery(handler: handler, window: MediaTime(seconds: options.duplicateWindow), events: events)
        let metadata = MetadataOutput(settings: options.configuration.metadataSettings,
                                      scanningThreads: options.configuration.scanningThreads)
        let session = CaptureSession(input: source, videoDataOutput: options.configuration.videoDataOutput,
                                     metadataOutput: metadata, logger: logger)
        let synchronizer = DataOutputSynchronizer { collection in try delivery.deliver(collection) }
        lock.withLock { current = (session, synchronizer, metadata, delivery) }
        let limit = options.frameLimit
        let result: Result<Void, any Error>
        do {
            try await withGracefulShutdownHandler {
                _ = try await session.run(synchronizer: synchronizer, frameLimit: limit, onStreaming: { events.streaming() })
            } onGracefulShutdown: {
                events.stopping()
                session.stop()
            }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        lock.withLock {
            totals.add(synchronizer.statistics)
            totalEmitted += delivery.emitted
            current = nil
        }
        try result.get()
    }

    /// Applies `new` options: in place when only scanning settings changed, else by restarting capture.
    public func reload(_ new: PipelineOptions) {
        events.reloading()
        defer { events.reloaded() }
        let needsRestart: Bool = lock.withLock {
            let old = options
            options = new
            current?.delivery.setWindow(MediaTime(seconds: new.duplicateWindow))
            current?.metadata.settings = new.configuration.metadataSettings
            return old.needsRestart(for: new)
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
                "symbologies": "\(new.configuration.scanner.symbologies.map(\.rawValue).sorted().joined(separator: ","))",
            ])
        }
    }

    /// The stats line's content now: counts so far (all sessions), scan times, output drops.
    public func statsLine() -> String {
        let (stats, percentiles, failures) = lock.withLock { () -> (CaptureStatistics, (p50: Double, p99: Double)?, (count: Int, last: ZXingError?)?) in
            var s = totals
            if let c = current { s.add(c.synchronizer.statistics) }
            return (s, current?.metadata.scanTimePercentiles(), current?.metadata.decoderFailures)
        }
        let reasons = Self.droppedBreakdown(stats)
        let milliseconds = { (seconds: Double) in DecimalText.string(seconds * 1000, fractionDigits: 1, minimumFractionDigits: 1) }
        let scan = percentiles.map { "scan_p50=\(milliseconds($0.p50))ms scan_p99=\(milliseconds($0.p99))ms" } ?? "scan_p50=- scan_p99=-"
        return "stats: frames=\(stats.frames) scanned=\(stats.scanned) dropped=\(stats.droppedTotal) (\(reasons)) "
            + "repeated_seq=\(stats.repeatedSequenceNumbers) codes=\(stats.codes) \(scan) output_lines_dropped=\(writer.droppedLines)"
            + " decoder_failures=\(failures?.count ?? 0)" + (failures?.last.map { " (last: \($0))" } ?? "")
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

/// Serial delivery from the synchronizer: duplicate suppression, then the results handler.
/// The synchronizer calls `deliver` under its lock, one collection at a time, in order.
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
                try handler.handle(code)
                lock.withLock { _emitted += 1 }
            }
        }
        try handler.frameCompleted(collection)
        events.frameDelivered()
    }
}
