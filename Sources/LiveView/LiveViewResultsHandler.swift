import Capture
import JPEG
import Logging
import Media
import Results
import SystemCalls

/// Feeds a live view: code lines, the outlines of what frames hold, and preview pictures.
///
/// Every emitted code's JSON line (as on stdout, with its `item`); while an events viewer is
/// connected, what scanned frames held (every code read, before duplicate suppression, every code
/// detected but not decoded, and the items in view from their first reading until their removal,
/// at their last corners: `LiveViewSightings`, `LiveViewItems`) at most
/// `settings.outlinesPerSecond` times a second (`SightingsPacer`); and, while someone wants
/// pictures, a picture of the scene at most `settings.previewFPS` times a second: the camera's own
/// JPEG of an MJPEG frame no wider than `settings.previewWidth`, as it came (colour; no decode, no
/// encode), else a small grey JPEG.
///
/// It costs the scanner nothing while nobody watches: as the session's `FramePixelsSampler` it
/// picks no frame then, and a frame's pixels it does pick are copied through the session's one
/// pool of copies (never a source's buffer); no outline is encoded without an events viewer (the
/// items alive are kept all the same: an entry each, from `handle` to `itemRemoved`).
/// Choosing, scaling (`PreviewScaler`) and TurboJPEG encoding run on the handler's own thread behind a
/// queue of one frame that drops when busy; viewers read from the `hub` at their own pace.
public final class LiveViewResultsHandler: ResultsHandler, ServiceHooks, CountsReporting, FramePixelsSampler, Sendable {
    private struct Sampling {
        var settings: LiveViewSettings
        var nextPreview: ContinuousClock.Instant?
        /// The frame picked and not yet seen by `frameCompleted`: no second pick meanwhile.
        var pending: UInt64?
        var encoded = 0
        var sightings: SightingsPacer
        var sightingsSent = 0
        var items = LiveViewItems()

        init(settings: LiveViewSettings) {
            self.settings = settings
            sightings = SightingsPacer(perSecond: settings.outlinesPerSecond)
        }
    }

    /// One preview to make: the frame's pixels and the settings when it was picked.
    private struct Job: Sendable {
        let pixels: FramePixels
        let settings: LiveViewSettings
    }

    public let hub: LiveViewHub
    private let source: String
    private let lineEncoder = JSONLineEncoder()
    private let sampling: LockedValue<Sampling>
    private let worker: BoundedWorker<Job>
    private let clock: @Sendable () -> ContinuousClock.Instant

    /// - Parameters:
    ///   - source: the source URI in each line's `source` field.
    ///   - clock: the time a frame is completed at, which paces the outlines and the previews.
    public init(settings: LiveViewSettings, source: String, logger: Logger,
                clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.source = source
        self.clock = clock
        let hub = LiveViewHub(recentCodes: settings.recentCodes)
        self.hub = hub
        let encoder = PreviewEncoder(logger: logger)
        let sampling = LockedValue(Sampling(settings: settings))
        self.sampling = sampling
        worker = BoundedWorker(name: "syncscan-prevw", capacity: 1, overflow: .drop) { job, _ in
            guard let jpeg = encoder.preview(job.pixels, settings: job.settings) else { return }
            sampling.withLock { $0.encoded += 1 }
            hub.publishPicture(jpeg)
        }
    }

    public var pixelsSampler: (any FramePixelsSampler)? { self }
    /// The preview being made and those its worker's queue holds.
    public var pixelCopiesHeld: Int { 1 + worker.capacity }

    /// The preview's settings now.
    public var settings: LiveViewSettings { sampling.withLock { $0.settings } }

    /// New preview settings (a reload), from the next preview on.
    public func apply(_ settings: LiveViewSettings) {
        sampling.withLock { $0.settings = settings; $0.nextPreview = nil; $0.sightings.perSecond = settings.outlinesPerSecond }
    }

    public func start() { worker.start() }

    /// Picks this frame when someone wants pictures and a preview is due (called by scanning threads).
    public func wantsPixels(of frame: FrameInfo) -> Bool {
        guard hub.wantsPictures else { return false }
        let now = ContinuousClock.now
        return sampling.withLock { s in
            guard s.pending == nil, s.nextPreview.map({ now >= $0 }) ?? true else { return false }
            s.pending = frame.sequenceNumber
            return true
        }
    }

    public func handle(_ code: inout DeliveredCode) throws {
        if let item = code.item {
            let read = code.code
            sampling.withLock { $0.items.add(read, item: item) }
        }
        hub.publishCode(lineEncoder.encode(code, source: source, time: .now()))
    }

    public func itemUpdated(_ update: ItemUpdate) throws {
        sampling.withLock { $0.items.update(update) }
    }

    /// The item's outline goes with the next update sent (it is in its `removed`, no longer in its `items`).
    public func itemRemoved(_ item: RemovedItem) throws {
        sampling.withLock { $0.items.remove(item.id) }
    }

    /// What the frame held goes to the events viewers when an update is due; its whole pixels,
    /// when a preview is due, to the encoder.
    public func frameCompleted(_ collection: SynchronizedDataCollection) throws {
        let (wanted, watching) = (hub.wantsPictures, hub.wantsEvents)
        let now = clock()
        let pixels = collection.video.pixels.flatMap { $0.region == PixelRect(x: 0, y: 0, width: $0.frame.width, height: $0.frame.height) ? $0 : nil }
        let scanned = collection.video.frame.flatMap { frame in collection.metadata.map { (frame, $0) } }
        let (due, sightings) = sampling.withLock { s -> (LiveViewSettings?, (readItems: [UInt64?], items: LiveViewItems.Listing)?) in
            if let pending = s.pending, collection.sequenceNumber >= pending { s.pending = nil }
            var sightings: (readItems: [UInt64?], items: LiveViewItems.Listing)?
            if watching, let (frame, metadata) = scanned {
                let readItems = s.items.follow(metadata.metadataObjects, sequenceNumber: frame.sequenceNumber)
                let holdsSomething = !metadata.metadataObjects.isEmpty || !metadata.undecoded.isEmpty || !s.items.alive.isEmpty
                    || !s.items.removed.isEmpty
                if s.sightings.shouldSend(holdsSomething: holdsSomething, at: now) {
                    s.sightingsSent += 1
                    sightings = (readItems, s.items.listing())
                }
            }
            guard wanted, pixels != nil, s.nextPreview.map({ now >= $0 }) ?? true else { return (nil, sightings) }
            s.nextPreview = now + .seconds(1 / max(s.settings.previewFPS, 0.01))
            return (s.settings, sightings)
        }
        if let sightings, let (frame, metadata) = scanned {
            hub.publishSightings(LiveViewSightings.json(frame: frame, metadata: metadata, readItems: sightings.readItems, items: sightings.items))
        }
        if let due, let pixels { _ = worker.submit(Job(pixels: pixels, settings: due)) }
    }

    public var counters: [ResultsCounter] {
        [
            ResultsCounter(name: "live_view_viewers", help: "Live view viewers connected (pictures and events).", kind: .gauge,
                           value: hub.viewers, inLines: false),
            ResultsCounter(name: "live_view_previews", help: "Preview pictures made for the live view (encoded, or the camera's own JPEG).",
                           value: sampling.withLock { $0.encoded }, inLines: false),
            ResultsCounter(name: "live_view_viewers_dropped", help: "Live view event viewers dropped because they stopped reading.",
                           value: hub.viewersDropped, inLines: false),
            ResultsCounter(name: "live_view_outline_updates", help: "Frames' codes (read and undecoded) and items in view sent to live view events viewers.",
                           value: sampling.withLock { $0.sightingsSent }, inLines: false),
        ]
    }

    /// Ends the viewers' streams and the encoder's thread (blocking).
    public func finish() throws {
        hub.close()
        worker.finish()
    }
}

/// Makes previews: the camera's JPEG when it fits, else scaled and encoded; used only on the handler's thread.
private final class PreviewEncoder: @unchecked Sendable {  // unchecked: its `var`s (the JPEG encoder) are the worker thread's alone
    private let logger: Logger
    private var encoder: JPEGEncoder?
    private var failed = false

    init(logger: Logger) { self.logger = logger }

    /// The preview JPEG of `pixels`; `nil` when TurboJPEG failed (logged once).
    func preview(_ pixels: FramePixels, settings: LiveViewSettings) -> [UInt8]? {
        if let jpeg = PreviewScaler.cameraJPEG(of: pixels, maximumWidth: settings.previewWidth) { return jpeg }
        let grey = PreviewScaler.scale(pixels, maximumWidth: settings.previewWidth)
        do {
            let encoder = try self.encoder ?? JPEGEncoder()
            self.encoder = encoder
            return try grey.bytes.withUnsafeBytes { bytes throws(JPEGError) in
                try encoder.encode(bytes, format: .grey, width: grey.width, height: grey.height, bytesPerLine: grey.width,
                                   quality: settings.quality)
            }
        } catch {
            if !failed { logger.error("live view preview not encoded; codes are still reported", metadata: ["error": "\(LogText.error(error))"]) }
            failed = true
            return nil
        }
    }
}
