import Capture
import Foundation
import JPEG
import Logging
import Media
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
public final class SnapshotResultsHandler: ResultsHandler, @unchecked Sendable {
    /// One frame to save.
    private struct Job {
        let pixels: FramePixels
        let name: String
    }

    public let settings: SnapshotSettings
    private let directory: any SnapshotDirectory
    private let logger: Logger
    private let clock: @Sendable () -> WallClockTime
    private let condition = NSCondition()
    private var queue: [Job?] = []
    private var queueHead = 0
    private var overflow: LineWriter.OverflowPolicy
    private var closed = false
    private var finished = false
    private var counts = (written: 0, skipped: 0, failed: 0)
    private var encodeTimes = RecentDurations(capacity: 512)
    /// The frame of the previous code `handle` saw and the name its snapshot got (nil: skipped).
    /// Touched only by `handle`, which the pipeline calls serially.
    private var lastFrame: (frame: FrameInfo, pixels: ObjectIdentifier, name: String?)?

    /// - Parameters:
    ///   - directory: where files go (`FileSystemSnapshotDirectory(path: settings.directory)` in the daemon).
    ///   - overflow: what a full queue does; the daemon sets it per source (`setOverflowPolicy`).
    public init(settings: SnapshotSettings, directory: any SnapshotDirectory, logger: Logger,
                overflow: LineWriter.OverflowPolicy = .wait, clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now) {
        self.settings = settings
        self.directory = directory
        self.logger = logger
        self.overflow = overflow
        self.clock = clock
        let thread = Thread { [self] in self.run() }
        thread.name = "syncscan-snapshots"
        thread.start()
    }

    public var pixelsRequest: PixelsRequest? { settings.pixelsRequest }

    /// Changes what a full queue does from now on.
    public func setOverflowPolicy(_ policy: LineWriter.OverflowPolicy) {
        condition.withLock {
            overflow = policy
            condition.broadcast()
        }
    }

    /// Snapshots written.
    public var written: Int { condition.withLock { counts.written } }
    /// Snapshots skipped because the queue was full (a live source).
    public var skipped: Int { condition.withLock { counts.skipped } }
    /// Snapshots that could not be encoded or written.
    public var failed: Int { condition.withLock { counts.failed } }
    /// The median JPEG encode time of recent snapshots, in seconds.
    public var medianEncodeSeconds: Double? { condition.withLock { encodeTimes.median } }

    public func handle(_ code: inout DeliveredCode) throws {
        guard let pixels = code.pixels else { return }  // no room in the pool: the session counted it
        let identity = ObjectIdentifier(pixels)
        if let last = lastFrame, last.pixels == identity, last.frame == code.code.frame {
            if let name = last.name { code.fields.append((name: "snapshot", value: name)) }
            return
        }
        let name = Self.fileName(time: clock(), sequenceNumber: code.code.frame.sequenceNumber)
        let queued = enqueue(Job(pixels: pixels, name: name))
        lastFrame = (code.code.frame, identity, queued ? name : nil)
        if queued { code.fields.append((name: "snapshot", value: name)) }
    }

    /// Writes what is queued and stops the thread; safe to call more than once.
    public func finish() throws {
        condition.lock(); defer { condition.unlock() }
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
    }

    /// `20261122T101500.123Z-seq000123.jpg`.
    static func fileName(time: WallClockTime, sequenceNumber: UInt64) -> String {
        let seq = String(sequenceNumber)
        return "\(time.basicFormat)-seq\(String(repeating: "0", count: max(0, 6 - seq.count)))\(seq).jpg"
    }

    /// Queues `job`; false when it was skipped (full queue with `.drop`, or the handler finished).
    private func enqueue(_ job: Job) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while queue.count - queueHead >= max(1, settings.queueFrames) && !closed {
            if overflow == .drop { counts.skipped += 1; return false }
            condition.wait()
        }
        if closed { counts.skipped += 1; return false }
        queue.append(job)
        condition.broadcast()
        return true
    }

    /// The handler's thread: lists the directory, then encodes and writes each queued frame.
    private func run() {
        var store = SnapshotStore(directory: directory, settings: settings, logger: logger)
        store.prepare()
        let encoder: JPEGEncoder?
        do { encoder = try JPEGEncoder() } catch {
            logger.error("snapshots cannot be encoded; codes are still reported", metadata: ["error": "\(error)"])
            encoder = nil
        }
        condition.lock()
        while true {
            while queue.count == queueHead && !closed { condition.wait() }
            if queue.count == queueHead { break }
            var job = queue[queueHead]
            queue[queueHead] = nil
            queueHead += 1
            if queueHead > 64 && queueHead * 2 > queue.count { queue.removeFirst(queueHead); queueHead = 0 }
            condition.broadcast()
            condition.unlock()
            let outcome = save(job!, with: encoder, into: &store)
            job = nil  // the pixels go back to their pool now, not under this handler's lock
            condition.lock()
            switch outcome {
            case .written(let seconds): counts.written += 1; encodeTimes.add(seconds)
            case .failed: counts.failed += 1
            }
        }
        queue.removeAll()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private enum Outcome { case written(encodeSeconds: Double), failed }

    /// Encodes and writes one frame; its pixels go back to the pool when the job is dropped.
    private func save(_ job: Job, with encoder: JPEGEncoder?, into store: inout SnapshotStore) -> Outcome {
        guard let encoder else { return .failed }
        let pixels = job.pixels
        let start = ContinuousClock.now
        let jpeg: [UInt8]
        do {
            jpeg = try pixels.withUnsafeBytes { bytes throws(JPEGError) in
                try encoder.encode(bytes, format: pixels.format, width: pixels.width, height: pixels.height,
                                   bytesPerLine: pixels.bytesPerLine, quality: settings.quality)
            }
        } catch {
            store.reportOnce(kind: "jpeg", "snapshot not encoded; codes are still reported", error: "\(error)", name: job.name)
            return .failed
        }
        let elapsed = ContinuousClock.now - start
        return store.save(jpeg, named: job.name)
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

    /// Lists what a previous run left and trims it to the limits.
    mutating func prepare() {
        switch directory.prepare() {
        case .success(let found):
            stored = found
            totalBytes = found.reduce(0) { $0 + $1.bytes }
            if !found.isEmpty {
                logger.info("snapshot directory holds snapshots from before", metadata: [
                    "directory": "\(directory.path)", "files": "\(found.count)", "bytes": "\(totalBytes)"])
            }
            trim()
        case .failure(let error):
            reportOnce(kind: error.errno.symbol, "snapshot directory unusable; codes are still reported", error: "\(error)", name: nil)
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
        var metadata: Logger.Metadata = ["directory": "\(directory.path)", "error": "\(error)",
                                         "later": "further \(kind) failures are counted as snapshots_failed, not logged"]
        if let name { metadata["snapshot"] = "\(name)" }
        logger.error("\(message)", metadata: metadata)
    }
}
