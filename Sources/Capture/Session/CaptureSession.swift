import Foundation
import Logging
import Media
import SystemCalls

/// Runs one input through the video data output and the metadata output into a synchronizer
/// (AVFoundation's `AVCaptureSession`).
///
/// Threads: one reads the source (blocking I/O, never on the concurrency pool), `scanningThreads`
/// scan with the session's decoder engine; the synchronizer delivers from whichever thread completes the head slot.
/// The source thread is the only one that assigns sequence numbers: a gap becomes
/// `discontinuity` entries, a jump backwards (a reopened device) is rebased so numbers keep
/// increasing; and the only one that assigns presentation times (`PresentationClock`: zero at
/// the first frame, strictly increasing across clock wraps and resets). In `trigger.mode:
/// presentation` it also decides which frames are scanned (`ChangeDetector`, on an eighth-scale
/// picture): a frame with no change is `idle`, released at once, never queued or decoded. In
/// `trigger.mode: triggered` it takes the trigger's pulls once per frame (`ReadWindows.admit`),
/// those made by the frame's capture (`VideoFrame.capturedAt`; a dropped frame takes none made
/// after the last frame's): a frame outside every read window is `untriggered`, released at once
/// likewise; with `trigger.motion` a frame where the scene starts to move presses the trigger
/// first (`MotionTrigger`), stamped with the frame's capture time.
public final class CaptureSession: Sendable {
    public let input: any FrameSource
    public let videoDataOutput: VideoDataOutput
    public let metadataOutput: MetadataOutput
    /// What of a frame with codes the results handlers want copied; `nil`: nothing is copied.
    public let pixelsRequest: PixelsRequest?
    /// Picks frames copied whole whether or not they have codes (a live view's preview); `nil`: none.
    public let pixelsSampler: (any FramePixelsSampler)?
    /// Where frames' pixels are copied when `pixelsRequest` or `pixelsSampler` is set; its
    /// `skipped` counts frames whose pixels were not copied because every copy was in use.
    public let pixelPool: FramePixelPool?
    /// The read windows of `trigger.mode: triggered` (a frame that reads nothing in a window may
    /// be copied for diagnosis through `pixelPool`); `nil`: the mode is never triggered.
    public let readWindows: ReadWindows?
    private let logger: Logger
    private let stopRequested = LockedValue(false)

    /// A gap larger than this is taken as a restart of the source's numbering, not as lost frames.
    public static let maximumDiscontinuity: UInt64 = 100_000

    /// - Parameters:
    ///   - metadataOutput: what scans the frames, with its engine (`MetadataOutput.Settings.engine`).
    ///   - pixelsRequest: copy this part of each frame that has codes, for the results handlers
    ///     (`ResultsHandler.pixelsRequest`); `nil` copies nothing.
    ///   - pixelsSampler: also copy, whole, each scanned frame it picks (with or without codes),
    ///     through the same pool (`ResultsHandler.pixelsSampler`).
    ///   - pixelCopies: copies that may exist at once (the pool's bound).
    ///   - readWindows: the read windows when `trigger.mode` may be `triggered`; the pool then
    ///     has room for two diagnosis copies more.
    public init(input: any FrameSource, videoDataOutput: VideoDataOutput = VideoDataOutput(),
                metadataOutput: MetadataOutput, pixelsRequest: PixelsRequest? = nil,
                pixelsSampler: (any FramePixelsSampler)? = nil, pixelCopies: Int = 8, readWindows: ReadWindows? = nil,
                logger: Logger) {
        self.input = input
        self.videoDataOutput = videoDataOutput
        self.metadataOutput = metadataOutput
        self.pixelsRequest = pixelsRequest
        self.pixelsSampler = pixelsSampler
        self.readWindows = readWindows
        self.pixelPool = pixelsRequest != nil || pixelsSampler != nil || readWindows != nil
            ? FramePixelPool(capacity: pixelCopies + (readWindows != nil ? 2 : 0)) : nil
        self.logger = logger
    }

    /// Streams until the source ends, `stop()` is called, the task is cancelled, or delivery fails.
    ///
    /// Frames already handed to scanners are always finished and delivered before this returns,
    /// also when the source fails: nothing captured is lost. Then the source's error (or the
    /// delivery's) is thrown.
    /// - Parameters:
    ///   - frameLimit: stop after this many sequence numbers (scanned or dropped).
    ///   - onStreaming: called once the source is open and streaming (systemd's READY=1).
    @discardableResult
    public func run(synchronizer: DataOutputSynchronizer, frameLimit: Int? = nil,
                    onStreaming: @escaping @Sendable () -> Void = {}) async throws -> CaptureStatistics {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CaptureStatistics, any Error>) in
                startThread(name: "syncscan-source") { [self] in
                    do {
                        try self.runBlocking(synchronizer: synchronizer, frameLimit: frameLimit, onStreaming: onStreaming)
                        continuation.resume(returning: synchronizer.statistics)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            self.stop()
        }
    }

    /// Asks the session to stop: the source stops, frames in flight are finished.
    public func stop() {
        stopRequested.withLock { $0 = true }
        input.stop()
    }

    private var isStopRequested: Bool { stopRequested.withLock { $0 } }

    /// The whole run on the calling thread (the source thread).
    func runBlocking(synchronizer: DataOutputSynchronizer, frameLimit: Int? = nil, onStreaming: () -> Void = {}) throws {
        let discardLate = videoDataOutput.discardsLateFrames(for: input)
        let threads = metadataOutput.scanningThreads
        let queue = FrameQueue(capacity: discardLate ? threads : threads + videoDataOutput.maximumQueuedFrames)
        let waitWhenFull = videoDataOutput.framesWait(for: input)
        let overflowReason: DroppedReason = discardLate ? .lateData : .outOfBuffers

        logger.debug("capture session starting", metadata: [
            "source": "\(LogText.untrusted(input.uri))", "alwaysDiscardsLateVideoFrames": "\(discardLate)", "scanningThreads": "\(threads)",
        ])
        try input.start()
        onStreaming()

        let scanners = DispatchGroup()
        let live = input.isLive
        for i in 0..<threads {
            scanners.enter()
            let output = metadataOutput
            let copying = pixelPool.map { PixelCopying(request: pixelsRequest, sampler: pixelsSampler, pool: $0, wait: waitWhenFull,
                                                       windows: readWindows) }
            startThread(name: "syncscan-scan-\(i)") {
                defer { scanners.leave() }
                let scanner = output.makeScanner(live: live)
                let plane = DecodedFramePlane()
                // The frame is scanned (its pixels copied if asked for) and released inside
                // `scanNext`, so its buffer is back with the source before the queue counts the slot as free.
                while let collection = Self.scanNext(from: queue, with: scanner, decodingInto: plane, copying: copying) {
                    synchronizer.fill(collection)
                    queue.done()
                }
            }
        }

        var ledger = SequenceLedger()
        var clock = PresentationClock()
        /// The session's time for the source's `pts`; a clock that stood still or ran back is logged.
        func presentationTime(_ pts: MediaTime, seq: UInt64) -> MediaTime {
            let resets = clock.resets
            let time = clock.presentationTime(for: pts)
            if clock.resets > resets {
                logger.notice("source clock stood still or ran backwards; presentation time continues by the previous interval",
                              metadata: ["seq": "\(seq)", "source pts": "\(pts)", "pts": "\(time)"])
            }
            return time
        }
        var detector = ChangeDetector()
        /// Whether `frame` is left unscanned as `idle` (`trigger.mode: presentation`, nothing changed).
        func isIdle(_ frame: borrowing VideoFrame) -> Bool {
            let settings = metadataOutput.settings
            guard settings.trigger.mode == .presentation else {
                detector.reset()
                return false
            }
            return detector.isIdle(frame, settings: settings.trigger, rect: settings.rectOfInterest)
        }
        var motion = MotionTrigger()
        /// With `trigger.motion` in triggered mode, presses the trigger (origin `motion`) at a frame
        /// where the scene starts to move, before the frame is admitted: the window opens at it.
        func pressOnMotion(_ frame: borrowing VideoFrame) {
            let settings = metadataOutput.settings
            guard let readWindows, settings.trigger.mode == .triggered, settings.trigger.motion else {
                motion.reset()
                return
            }
            if motion.startsMotion(frame, settings: settings.trigger, rect: settings.rectOfInterest) {
                readWindows.triggers.press(origin: MotionTrigger.origin, at: frame.capturedAt)
            }
        }
        /// The capture time of the last frame (`nil`: none yet, or a source without capture times).
        var lastCapturedAt: MediaTime?
        /// Whether a frame outside every read window is left unscanned (`trigger.mode: triggered`);
        /// `nil`: the mode is not triggered.
        func isUntriggered(_ seq: UInt64, pts: MediaTime?, capturedAt: MediaTime?) -> Bool? {
            guard let readWindows else { return nil }
            return readWindows.admit(seq, pts: pts, capturedAt: capturedAt, settings: metadataOutput.settings.trigger).map { $0 == .outside }
        }
        var sourceError: (any Error)?
        var opened = 0
        let limit = frameLimit ?? Int.max
        enum Admission { case sequence(UInt64), repeated, limitReached }
        /// The pipeline number for the source's `raw`, after opening `discontinuity` slots for the
        /// gap before it; `.repeated` for a number the source already delivered.
        func admit(_ raw: UInt64) -> Admission {
            guard let (missing, seq) = ledger.admit(raw, logger: logger) else {
                synchronizer.noteRepeatedSequenceNumber()
                logger.debug("source repeated a sequence number; frame released unscanned", metadata: ["seq": "\(raw)"])
                return .repeated
            }
            for s in missing {
                guard opened < limit else { return .limitReached }
                opened += 1
                synchronizer.open(s, with: SynchronizedDataCollection(
                    video: SynchronizedVideoData(sequenceNumber: s, presentationTime: nil, frame: nil, droppedReason: .discontinuity),
                    metadata: nil))
            }
            guard opened < limit else { return .limitReached }
            opened += 1
            return .sequence(seq)
        }
        reading: while opened < limit && !isStopRequested && synchronizer.deliveryError == nil {
            let event: SourceEvent?
            do { event = try input.next() } catch { sourceError = error; break }
            guard let event else { break }
            switch event {
            case .dropped(let raw, let pts, let reason, let detail):
                let seq: UInt64
                switch admit(raw) {
                case .sequence(let s): seq = s
                case .repeated: continue reading
                case .limitReached: break reading
                }
                logger.debug("frame dropped by source", metadata: ["seq": "\(seq)", "reason": "\(reason)", "detail": "\(LogText.untrusted(detail, limit: LogText.errorLimit))"])
                let time = pts.map { presentationTime($0, seq: seq) }
                _ = isUntriggered(seq, pts: time, capturedAt: lastCapturedAt)
                synchronizer.open(seq, with: SynchronizedDataCollection(
                    video: SynchronizedVideoData(sequenceNumber: seq, presentationTime: time, frame: nil, droppedReason: reason),
                    metadata: nil))
            case .frame(var frame):
                switch admit(frame.sequenceNumber) {
                case .sequence(let s): frame.sequenceNumber = s
                case .repeated: continue reading
                case .limitReached: break reading
                }
                frame.presentationTime = presentationTime(frame.presentationTime, seq: frame.sequenceNumber)
                let info = frame.info
                pressOnMotion(frame)
                lastCapturedAt = frame.capturedAt
                let untriggered = isUntriggered(info.sequenceNumber, pts: info.presentationTime, capturedAt: frame.capturedAt)
                if untriggered == true || (untriggered == nil && isIdle(frame)) {
                    // Released here, unscanned: its buffer goes back to the source at once.
                    synchronizer.open(info.sequenceNumber, with: SynchronizedDataCollection(
                        video: SynchronizedVideoData(sequenceNumber: info.sequenceNumber, presentationTime: info.presentationTime,
                                                     frame: info, droppedReason: untriggered == true ? .untriggered : .idle),
                        metadata: nil))
                    continue reading
                }
                synchronizer.open(info.sequenceNumber)
                if queue.offer(frame, wait: waitWhenFull) {
                    detector.scanned()
                } else {
                    synchronizer.fill(SynchronizedDataCollection(
                        video: SynchronizedVideoData(sequenceNumber: info.sequenceNumber, presentationTime: info.presentationTime,
                                                     frame: info, droppedReason: overflowReason),
                        metadata: nil))
                }
            }
        }
        queue.close()
        scanners.wait()
        input.stop()
        let stats = synchronizer.statistics
        logger.debug("capture session stopped", metadata: ["frames": "\(stats.frames)", "pending": "\(synchronizer.pendingCount)"])
        if let sourceError { throw sourceError }
        if let deliveryError = synchronizer.deliveryError { throw deliveryError }
    }

    /// What to copy of frames with codes, which other frames to copy whole, into which pool, and
    /// whether a full pool is waited for (for frames with codes only).
    private struct PixelCopying {
        let request: PixelsRequest?
        let sampler: (any FramePixelsSampler)?
        let pool: FramePixelPool
        let wait: Bool
        let windows: ReadWindows?

        /// The part of `frame` to copy given its `codes`; `nil`: none.
        func region(of frame: VideoFrame, codes: [MachineReadableCodeObject]) -> PixelRect? {
            let sampled = sampler?.wantsPixels(of: frame.info) == true
            let wanted: PixelsRequest? = sampled ? .frame : (codes.isEmpty ? nil : request)
            return wanted?.region(for: codes, width: frame.width, height: frame.height)
        }
    }

    /// Takes the next frame from `queue`, scans it and copies the pixels asked for (of a frame
    /// with codes, or of one the sampler picked); the frame's own buffer is released when this
    /// returns. A compressed frame is decoded into `plane` first and released right after (after
    /// the late-frame decision, so a late frame is never decoded); one that does not decode is an
    /// `undecodable` drop.
    private static func scanNext(from queue: FrameQueue, with scanner: MetadataOutput.Scanner, decodingInto plane: DecodedFramePlane,
                                 copying: PixelCopying?) -> SynchronizedDataCollection? {
        guard var frame = queue.take() else { return nil }
        let info = frame.info
        if frame.format.isCompressed {
            switch plane.decode(frame, keepBytes: copying != nil) {
            case .success(let grey):
                frame = grey  // the last reference to the source's buffer goes here
            case .failure:
                return SynchronizedDataCollection(
                    video: SynchronizedVideoData(sequenceNumber: info.sequenceNumber, presentationTime: info.presentationTime,
                                                 frame: info, droppedReason: .undecodable),
                    metadata: nil)
            }
        }
        let report = scanner.scanReport(frame)
        // Codes name the frame as it came (MJPG), not the grey plane it was scanned in.
        func named(_ codes: [MachineReadableCodeObject]) -> [MachineReadableCodeObject] {
            info.format.isCompressed ? codes.map { var code = $0; code.frame = info; return code } : codes
        }
        let codes = named(report.codes), unconfirmed = named(report.unconfirmed)
        var pixels: FramePixels?
        var diagnosis: DiagnosisFrame?
        // A window's frame that read nothing: copied whole when it is its most promising so far.
        if let copying, let windows = copying.windows, codes.isEmpty, unconfirmed.isEmpty,
           case .inside(let window, _)? = windows.mark(of: info.sequenceNumber) {
            let score = DiagnosisScore(undecoded: report.undecoded.count, sharpness: Sharpness.gradientEnergy(of: frame))
            if windows.offer(score, window: window) {
                let decodedFrom = info.format.isCompressed ? plane.compressedBytes.map { (info: info, bytes: $0) } : nil
                diagnosis = copying.pool.copy(frame, wait: false, decodedFrom: decodedFrom).map { DiagnosisFrame(score: score, pixels: $0) }
            }
        }
        // An unconfirmed reading may become an item's first line: its pixels are kept as a code's are.
        if let copying, let region = copying.region(of: frame, codes: codes + unconfirmed) {
            let decodedFrom = info.format.isCompressed ? plane.compressedBytes.map { (info: info, bytes: $0) } : nil
            pixels = copying.pool.copy(frame, region: region, wait: copying.wait && !(codes.isEmpty && unconfirmed.isEmpty), decodedFrom: decodedFrom)
        }
        return SynchronizedDataCollection(
            video: SynchronizedVideoData(sequenceNumber: info.sequenceNumber, presentationTime: info.presentationTime,
                                         frame: info, droppedReason: nil, pixels: pixels),
            metadata: SynchronizedMetadataObjectData(presentationTime: info.presentationTime, metadataObjects: codes,
                                                     passesCut: report.passesCut, undecoded: report.undecoded,
                                                     readingCheck: report.readingCheck, unconfirmed: unconfirmed, diagnosis: diagnosis))
    }
}

/// Turns the source's sequence numbers into the pipeline's: consecutive and increasing.
///
/// Numbers pass through unchanged while the source counts up, so a camera's frames keep the
/// kernel's sequence numbers. A gap is reported as the missing numbers. A number equal to the
/// previous one (drivers occasionally repeat one: vivid under emulation does) is a repeat: the
/// frame has no number of its own and is left out. A jump backwards, or forwards by more than
/// `CaptureSession.maximumDiscontinuity`, is a restart of the source's numbering (a reopened
/// device): it is renumbered to continue, with nothing reported missing.
struct SequenceLedger {
    private var offset: UInt64 = 0
    private var expected: UInt64?

    /// The pipeline number for the source's `raw` and the numbers skipped before it;
    /// `nil` when `raw` repeats the previous number.
    mutating func admit(_ raw: UInt64, logger: Logger) -> (missing: Range<UInt64>, sequence: UInt64)? {
        var seq = raw &+ offset
        var missing: Range<UInt64> = seq..<seq
        if let expected {
            if seq &+ 1 == expected { return nil }
            if seq < expected || seq - expected > CaptureSession.maximumDiscontinuity {
                logger.notice("source sequence restarted; renumbering", metadata: ["from": "\(raw)", "continuing at": "\(expected)"])
                offset = offset &+ (expected &- seq)
                seq = expected
            }
            missing = expected..<seq
        }
        expected = seq + 1
        return (missing, seq)
    }
}
