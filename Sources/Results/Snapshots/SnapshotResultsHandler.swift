import Capture
import Foundation
import JPEG
import Logging
import Media
import SystemCalls
import SystemPackage

/// Saves the frame each emitted code was seen in as a JPEG in a directory, and names the file
/// in the code's line (`"snapshot": NAME`, attached for the handlers after it).
///
/// Once per frame, however many codes share it. Names sort by time:
/// `20261122T101500.123Z-seq000123.jpg` (wall clock, UTC, and the frame's sequence number).
/// Encoding (TurboJPEG) and file I/O run on the handler's own thread behind a bounded queue,
/// so a slow or full disk never stalls capture or stdout: with `.drop` (a live source) a full
/// queue skips the snapshot and counts it, with `.wait` (a file) `handle` waits. A failed write
/// is counted (`failed`) and logged once per errno, with the path. The oldest snapshots are
/// deleted first beyond `maxFiles` or `maxBytes`, counting those a previous run left (the
/// directory is listed when the thread starts); the newest is always kept.
///
/// A line names only a snapshot the directory is taking: after a write fails (a full disk, a
/// read-only one), lines carry no `snapshot` until a write works again. Meanwhile each frame's
/// snapshot is still tried, unnamed (and deleted once written: it only proves the directory
/// works again). Snapshots already queued, named, when the disk filled fail too: each is
/// counted in `failed`, and the log names the first.
public final class SnapshotResultsHandler: ResultsHandler, ServiceHooks, CountsReporting, @unchecked Sendable {  // unchecked: `lastFrame` is the delivery thread's alone (`handle` is called from it only)
    /// One frame to save.
    private struct Job: Sendable {
        let pixels: FramePixels
        let name: String
        /// Its name is in a code line; `false`: a trial while the directory fails, deleted once written.
        let named: Bool
    }

    /// The counts the stats line and the metrics read.
    private struct Counts {
        var written = 0, failed = 0
        /// Frames whose codes came without pixels: the session's pool of copies was full.
        var noPixels = 0
        var encodeTimes = RecentDurations(capacity: 512)
        /// The last snapshot tried failed: lines name none until one is written.
        var failing = false
        /// Frames whose snapshot was only a trial, named in no line: the directory was failing.
        var trials = 0
        /// The directory was listed (or found unusable) when the thread started.
        var prepared = false
    }

    public let settings: SnapshotSettings
    private let clock: @Sendable () -> WallClockTime
    private let worker: BoundedWorker<Job>
    private let counts = LockedValue(Counts())
    /// The frame of the previous code `handle` saw and the name its snapshot got (nil: skipped).
    /// Touched only by `handle`, which the pipeline calls serially.
    private var lastFrame: (frame: FrameInfo, pixels: ObjectIdentifier?, name: String?)?

    /// - Parameters:
    ///   - directory: where files go (`FileSystemSnapshotDirectory(path: settings.directory)` in the daemon).
    ///   - overflow: what a full queue does; the daemon sets it per source (`setOverflowPolicy`).
    public init(settings: SnapshotSettings, directory: any SnapshotDirectory, logger: Logger,
                overflow: OverflowPolicy = .wait, clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now) {
        self.settings = settings
        self.clock = clock
        let saver = SnapshotSaver(directory: directory, settings: settings, logger: logger)
        let counts = self.counts
        worker = BoundedWorker(name: "syncscan-shots", capacity: settings.queueFrames, overflow: overflow,
                               onStart: {
            let usable = saver.prepare()
            counts.withLock { ($0.prepared, $0.failing) = (true, !usable) }
            counts.broadcast()
        }) { job, _ in
            switch saver.save(job.pixels, named: job.name) {
            case .written(let seconds):
                // The directory works again before the trial is deleted: once it is gone, lines name snapshots.
                counts.withLock {
                    $0.failing = false
                    if job.named { $0.written += 1 }
                    if let seconds { $0.encodeTimes.add(seconds) }
                }
                if !job.named { saver.remove(named: job.name) }
            case .failed: counts.withLock { $0.failing = true; if job.named { $0.failed += 1 } }
            }
        }
    }

    public var pixelsRequest: PixelsRequest? { settings.pixelsRequest }
    /// Its queue of frames waiting to be written.
    public var pixelCopiesHeld: Int { settings.queueFrames }

    /// Starts the handler's thread, which first lists the directory (files of earlier runs count
    /// toward the limits); `handle` starts it too.
    public func start() { worker.start() }

    /// Changes what a full queue does from now on.
    public func setOverflowPolicy(_ policy: OverflowPolicy) { worker.setOverflow(policy) }

    /// Snapshots written.
    public var written: Int { counts.withLock { $0.written } }
    /// Snapshots skipped: the queue was full (a live source), the frame's pixels were not
    /// copied (the session's pool of copies was full), or the directory was failing (see the type).
    public var skipped: Int { worker.dropped + counts.withLock { $0.noPixels + $0.trials } }
    /// Snapshots that could not be encoded or written.
    public var failed: Int { counts.withLock { $0.failed } }
    /// The median JPEG encode time of recent snapshots, in seconds.
    public var medianEncodeSeconds: Double? { counts.withLock { $0.encodeTimes.median } }

    public var counters: [ResultsCounter] {
        [
            ResultsCounter(name: "snapshots_written", help: "Snapshot files written.", value: written),
            ResultsCounter(name: "snapshots_skipped",
                           help: "Frames with codes saved no snapshot: the snapshot queue or the pixel pool was full, or the directory was failing.", value: skipped),
            ResultsCounter(name: "snapshots_failed", help: "Snapshot files that could not be written (the log says why).", value: failed),
        ]
    }

    /// `snapshot_encode_p50=2.98ms`: the median JPEG encode time of recent snapshots.
    public var summaryFields: [String] {
        let encode = medianEncodeSeconds.map { DecimalText.string($0 * 1000, fractionDigits: 2, minimumFractionDigits: 2) + "ms" } ?? "-"
        return ["snapshot_encode_p50=\(encode)"]
    }

    public func handle(_ code: inout DeliveredCode) throws {
        guard let pixels = code.pixels else {
            // No room in the session's pool of copies: counted once per frame.
            if lastFrame?.frame != code.code.frame {
                lastFrame = (code.code.frame, nil, nil)
                if pixelsRequest != nil { counts.withLock { $0.noPixels += 1 } }
            }
            return
        }
        let identity = ObjectIdentifier(pixels)
        if let last = lastFrame, last.pixels == identity, last.frame == code.code.frame {
            if let name = last.name { code.fields.append((name: "snapshot", value: name)) }
            return
        }
        let name = Self.fileName(time: clock(), sequenceNumber: code.code.frame.sequenceNumber)
        // Whether the directory is usable is known once the thread has listed it (at its start, once).
        worker.start()
        let named = counts.withLock(when: { $0.prepared }) { counts, _ in
            if counts.failing { counts.trials += 1 }
            return !counts.failing
        }
        let queued = worker.submit(Job(pixels: pixels, name: name, named: named))
        let shown = queued && named
        lastFrame = (code.code.frame, identity, shown ? name : nil)
        if shown { code.fields.append((name: "snapshot", value: name)) }
    }

    /// Writes what is queued and stops the thread; safe to call more than once (blocking).
    public func finish() throws {
        worker.finish()
    }

    /// `20261122T101500.123Z-seq000123.jpg`.
    static func fileName(time: WallClockTime, sequenceNumber: UInt64) -> String {
        let seq = String(sequenceNumber)
        return "\(time.basicFormat)-seq\(String(repeating: "0", count: max(0, 6 - seq.count)))\(seq).jpg"
    }
}

/// Encodes and writes snapshots; used only on the handler's thread (its store and encoder are
/// that thread's alone).
private final class SnapshotSaver: @unchecked Sendable {  // unchecked: its `var`s (store, JPEG encoder) are the worker thread's alone
    /// `encodeSeconds`: `nil` for a camera JPEG written as it came.
    enum Outcome { case written(encodeSeconds: Double?), failed }

    private var store: SnapshotStore
    private let settings: SnapshotSettings
    private let logger: Logger
    private var encoder: JPEGEncoder?
    private var encoderMade = false

    init(directory: any SnapshotDirectory, settings: SnapshotSettings, logger: Logger) {
        self.store = SnapshotStore(directory: directory, settings: settings, logger: logger)
        self.settings = settings
        self.logger = logger
    }

    /// Lists the directory and trims it to the limits; whether it is usable.
    func prepare() -> Bool { store.prepare() }

    /// Deletes a snapshot just written (a trial that no line names).
    func remove(named name: String) { store.remove(named: name) }

    /// Encodes and writes one frame; its pixels go back to the pool when the job is released.
    /// The whole of a camera's MJPEG frame is written as the camera's JPEG, not re-encoded.
    func save(_ pixels: FramePixels, named name: String) -> Outcome {
        if let cameraJPEG = pixels.cameraJPEG {
            return store.save(cameraJPEG, named: name) ? .written(encodeSeconds: nil) : .failed
        }
        if !encoderMade {
            encoderMade = true
            do { encoder = try JPEGEncoder() } catch {
                logger.error("snapshots cannot be encoded; codes are still reported", metadata: ["error": "\(LogText.error(error))"])
            }
        }
        guard let encoder else { return .failed }
        let start = ContinuousClock.now
        let jpeg: [UInt8]
        do {
            jpeg = try pixels.withUnsafeBytes { bytes throws(JPEGError) in
                try encoder.encode(bytes, format: pixels.format, width: pixels.width, height: pixels.height,
                                   bytesPerLine: pixels.bytesPerLine, quality: settings.quality)
            }
        } catch {
            store.reportOnce(kind: "jpeg", "snapshot not encoded; codes are still reported", error: "\(error)", name: name)
            return .failed
        }
        let elapsed = ContinuousClock.now - start
        return store.save(jpeg, named: name)
            ? .written(encodeSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            : .failed
    }
}

/// The snapshot files on disk, oldest first, and the retention limits; used only on the
/// handler's thread.
struct SnapshotStore {
    private let directory: any SnapshotDirectory
    private let settings: SnapshotSettings
    private let logger: Logger
    private var stored: [StoredSnapshot] = []
    private var oldest = 0
    private var totalBytes = 0
    /// The failure kinds (errno symbols, `jpeg`) already logged: each is logged once.
    private var reported: Set<String> = []

    init(directory: any SnapshotDirectory, settings: SnapshotSettings, logger: Logger) {
        self.directory = directory
        self.settings = settings
        self.logger = logger
    }

    /// Lists what a previous run left and trims it to the limits; whether the directory is usable.
    mutating func prepare() -> Bool {
        switch directory.prepare() {
        case .success(let found):
            stored = found
            totalBytes = found.reduce(0) { $0 + $1.bytes }
            if !found.isEmpty {
                logger.info("snapshot directory holds snapshots from before", metadata: [
                    "directory": "\(LogText.untrusted(directory.path))", "files": "\(found.count)", "bytes": "\(totalBytes)"])
            }
            trim()
            return true
        case .failure(let error):
            reportOnce(kind: error.errno.symbol, "snapshot directory unusable; codes are still reported", error: "\(error)", name: nil)
            return false
        }
    }

    /// Writes `jpeg` as `name` and deletes the oldest beyond the limits; false when it failed (logged once per errno).
    mutating func save(_ jpeg: [UInt8], named name: String) -> Bool {
        switch directory.write(jpeg, named: name) {
        case .success:
            stored.append(StoredSnapshot(name: name, bytes: jpeg.count))
            totalBytes += jpeg.count
            trim()
            return true
        case .failure(let error):
            reportOnce(kind: error.errno.symbol, "snapshot not saved; capture and results go on", error: "\(error)", name: name)
            return false
        }
    }

    /// Deletes `name`, the newest snapshot (a trial no line names).
    mutating func remove(named name: String) {
        guard stored.count > oldest, let last = stored.last, last.name == name else { return }
        stored.removeLast()
        totalBytes -= last.bytes
        if case .failure(let error) = directory.remove(named: name), error.errno != .noSuchFileOrDirectory {
            reportOnce(kind: "unlink " + error.errno.symbol, "trial snapshot not deleted", error: "\(error)", name: name)
        }
    }

    /// Deletes the oldest snapshots while more than `maxFiles` or `maxBytes` are kept (never the newest).
    private mutating func trim() {
        func over() -> Bool {
            let files = stored.count - oldest
            return files > 1 && ((settings.maxFiles > 0 && files > settings.maxFiles)
                                 || (settings.maxBytes > 0 && totalBytes > settings.maxBytes))
        }
        while over() {
            let victim = stored[oldest]
            oldest += 1
            totalBytes -= victim.bytes
            if case .failure(let error) = directory.remove(named: victim.name), error.errno != .noSuchFileOrDirectory {
                reportOnce(kind: "unlink " + error.errno.symbol, "old snapshot not deleted", error: "\(error)", name: victim.name)
            }
        }
        if oldest > 256 && oldest * 2 > stored.count { stored.removeFirst(oldest); oldest = 0 }
    }

    /// Logs a failure the first time its kind occurs; later ones are only counted.
    mutating func reportOnce(kind: String, _ message: String, error: String, name: String?) {
        guard reported.insert(kind).inserted else { return }
        var metadata: Logger.Metadata = ["directory": "\(LogText.untrusted(directory.path))", "error": "\(LogText.untrusted(error, limit: LogText.errorLimit))",
                                         "later": "further \(kind) failures are counted as snapshots_failed, not logged"]
        if let name { metadata["snapshot"] = "\(LogText.untrusted(name))" }
        logger.error("\(message)", metadata: metadata)
    }
}
