import Logging
import Media

/// One source wired end to end: capture session → synchronizer → delivery (duplicate
/// suppression) → the results handler, every frame on its way within this module.
///
/// What a service runs once per source: it hands in the source, the outputs' settings and the
/// handler (a fan-out of several), and reads back the counts when the run ends. The session's
/// pool of pixel copies makes room for what the handler holds, one copy per scanning thread and
/// two on their way between them. `settings`, `duplicateWindow` may change while it runs (a
/// reload applied in place); the source, the outputs' threads and the handler may not.
public final class CapturePipeline: Sendable {
    public let session: CaptureSession
    public let metadataOutput: MetadataOutput
    public let synchronizer: DataOutputSynchronizer
    public let delivery: Delivery

    /// - Parameters:
    ///   - reporting: which readings become code lines (items, or suppression by time).
    ///   - filter: which of those reach the handler (`CodeFilter`); `nil`: every one.
    ///   - frameDelivered: called after each frame went through the handler (a supervisor's liveness ping).
    ///   - itemRemoved: called for each item removed (the metrics' read rates).
    ///   - readWindows: the read windows of `trigger.mode: triggered` (the service's trigger switch
    ///     and counts); `nil`: the session never opens one.
    public init(input: any FrameSource, videoDataOutput: VideoDataOutput, metadataOutput: MetadataOutput,
                handler: any ResultsHandler, reporting: CodeReporting, filter: CodeFilter? = nil,
                frameDelivered: @escaping @Sendable () -> Void = {}, itemRemoved: @escaping @Sendable (RemovedItem) -> Void = { _ in },
                readWindows: ReadWindows? = nil, logger: Logger) {
        let delivery = Delivery(handler: handler, reporting: reporting, filter: filter, frameDelivered: frameDelivered, itemRemoved: itemRemoved,
                                readWindows: readWindows, triggerSettings: { metadataOutput.settings.trigger })
        self.delivery = delivery
        self.metadataOutput = metadataOutput
        self.synchronizer = DataOutputSynchronizer { collection in try delivery.deliver(collection) }
        self.session = CaptureSession(input: input, videoDataOutput: videoDataOutput, metadataOutput: metadataOutput,
                                      pixelsRequest: handler.pixelsRequest, pixelsSampler: handler.pixelsSampler,
                                      pixelCopies: handler.pixelCopiesHeld + metadataOutput.scanningThreads + 2,
                                      readWindows: readWindows, logger: logger)
    }

    /// Streams until the source ends, `stop()`, cancellation or a failure
    /// (`CaptureSession.run`: frames in flight are delivered first in every case); then every
    /// item still present is removed (`Delivery.finish`).
    /// - Parameters:
    ///   - frameLimit: stop after this many sequence numbers (scanned or dropped).
    ///   - onStreaming: called once the source is open and streaming.
    @discardableResult
    public func run(frameLimit: Int? = nil, onStreaming: @escaping @Sendable () -> Void = {}) async throws -> CaptureStatistics {
        let statistics: CaptureStatistics
        do {
            statistics = try await session.run(synchronizer: synchronizer, frameLimit: frameLimit, onStreaming: onStreaming)
        } catch {
            try? delivery.finish()
            throw error
        }
        try delivery.finish()
        var counted = statistics
        counted.readingCheck.add(delivery.itemStatistics.readingCheck)
        return counted
    }

    /// Stops the source; frames in flight are finished and delivered.
    public func stop() { session.stop() }

    /// The synchronizer's counts: frames scanned and dropped, by reason; the reading check's counts
    /// with what the items made of the readings their frame could not confirm.
    public var statistics: CaptureStatistics {
        var statistics = synchronizer.statistics
        statistics.readingCheck.add(delivery.itemStatistics.readingCheck)
        return statistics
    }

    /// Codes handed to the handler so far (items' first readings, or after duplicate suppression).
    public var emitted: Int { delivery.emitted }

    /// Applies a reload's scanning settings and reporting from the next frame on.
    public func apply(_ settings: MetadataOutput.Settings, reporting: CodeReporting) {
        delivery.setReporting(reporting)
        metadataOutput.settings = settings
    }

    /// Applies a reload's code filter from the next frame on (`Delivery.setFilter`).
    public func apply(filter: CodeFilter?) { delivery.setFilter(filter) }
}
