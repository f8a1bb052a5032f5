import Foundation
import Logging
import SystemCalls

/// The `no_read` windows' diagnosis JPEGs on disk: written on their own thread
/// (`syncscan-noread`, a `BoundedWorker`), never on the delivery's, and the oldest of them
/// deleted beyond `keep` (`trigger.no_read_keep`).
///
/// `submit` only queues: it says at once whether the file is being written (its path goes in the
/// line) or why not (`snapshot_error`): the queue was full (`queue_full`) or the directory is
/// failing (the errno of its last failure: `ENOSPC`, `EACCES`, `ENOTDIR`). While it fails each
/// image is still tried, unnamed, and deleted once written: it only proves the directory works
/// again, and the lines name images from then on. An image already queued, named, when the disk
/// filled fails too: it is counted and the log names it. Each kind of failure is logged once.
///
/// Retention counts only files named as this type names them (`isNoReadName`:
/// `no_read-20261122T101500.123Z-w000003.jpg`), those a previous run left included (the directory
/// is listed, through `SnapshotDirectory.prepare(listing:)`, when the thread starts, and again
/// before a write while it could not be): the snapshots beside them are never touched.
final class NoReadImages: Sendable {
    /// Where a no-read image went when `submit` returned.
    enum Outcome: Sendable, Hashable {
        /// Queued under this path (named in the line).
        case queued(path: String)
        /// Not written: `queue_full` or the errno symbol of the directory's last failure.
        case notWritten(reason: String)
    }

    private let store: NoReadImageStore
    private let worker: BoundedWorker<NoReadImageStore.Job>
    private var state: LockedValue<NoReadImageStore.State> { store.state }

    var directory: any SnapshotDirectory { store.directory }
    /// No-read images kept: the oldest beyond are deleted.
    var keep: Int { store.keep }

    /// - Parameters:
    ///   - keep: images kept (at least 1).
    ///   - capacity: images that may wait for the disk; one more is not written (`queue_full`).
    init(directory: any SnapshotDirectory, keep: Int, capacity: Int = 16, logger: Logger) {
        let store = NoReadImageStore(directory: directory, keep: max(1, keep), logger: logger)
        self.store = store
        worker = BoundedWorker(name: "syncscan-noread", capacity: capacity, overflow: .drop, onStart: {
            let listed = store.list()
            store.state.withLock { $0.prepared = true; if listed { $0.failing = nil } }
            store.state.broadcast()
        }) { job, _ in store.write(job) }
    }

    /// Starts the thread, which first creates and lists the directory.
    func start() { worker.start() }

    /// Writes what is queued and stops the thread (blocking; safe to call again).
    func finish() { worker.finish() }

    /// Queues `jpeg` to be written as `name`; never waits for the disk.
    func submit(_ jpeg: [UInt8], named name: String) -> Outcome {
        worker.start()
        let failing = state.withLock { $0.failing }
        guard worker.submit(NoReadImageStore.Job(jpeg: jpeg, name: name, named: failing == nil)) else {
            state.withLock { $0.failed += 1 }
            store.reportOnce("queue_full", "no-read images come faster than the disk takes them; this one is not written, its read result is still reported",
                             error: nil)
            return .notWritten(reason: "queue_full")
        }
        if let failing {
            state.withLock { $0.failed += 1 }
            return .notWritten(reason: failing)
        }
        return .queued(path: directory.path.hasSuffix("/") ? directory.path + name : directory.path + "/" + name)
    }

    /// Images written and named in a line.
    var written: Int { state.withLock { $0.written } }
    /// Images of `no_read` windows not written: a failed write, a failing directory, a full queue.
    var failed: Int { state.withLock { $0.failed } }
    /// Images the retention deleted.
    var deleted: Int { state.withLock { $0.deleted } }

    /// Waits until the thread has listed the directory, or found it unusable (for tests; blocking).
    func waitUntilPrepared() {
        worker.start()
        state.withLock(when: { $0.prepared }) { _, _ in }
    }

    /// `no_read-20261122T101500.123Z-w000003.jpg`: a name `ReadResultsHandler.fileName` makes.
    static func isNoReadName(_ name: String) -> Bool {
        let digits = { (s: Substring) in !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        guard name.hasPrefix("no_read-"), name.hasSuffix(".jpg") else { return false }
        let parts = name.dropFirst(8).dropLast(4).split(separator: "-w", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, digits(parts[1]) else { return false }
        let time = parts[0]
        return time.count == 20 && digits(time.prefix(8)) && time.dropFirst(8).first == "T" && digits(time.dropFirst(9).prefix(6))
            && time.dropFirst(15).first == "." && digits(time.dropFirst(16).prefix(3)) && time.last == "Z"
    }
}

/// The no-read images' directory, worked on the `NoReadImages` thread only (its `state` from any).
private final class NoReadImageStore: @unchecked Sendable {  // unchecked: `stored` is the writing thread's alone (the worker runs one job at a time)
    struct Job: Sendable {
        let jpeg: [UInt8]
        let name: String
        /// Its path is in a line; `false`: a trial while the directory fails, deleted once written.
        let named: Bool
    }

    struct State {
        var written = 0, failed = 0, deleted = 0
        /// The errno symbol of the last failure while it lasts (a write since then worked: `nil`).
        var failing: String?
        /// The directory was listed, or found unusable, when the thread started.
        var prepared = false
        var reported: Set<String> = []
    }

    let directory: any SnapshotDirectory
    let keep: Int
    let state = LockedValue(State())
    private let logger: Logger
    /// The images on disk, oldest first (`nil`: not listed yet).
    private var stored: [String]?

    init(directory: any SnapshotDirectory, keep: Int, logger: Logger) {
        (self.directory, self.keep, self.logger) = (directory, keep, logger)
    }

    /// Creates and lists the directory, then trims it to `keep`; whether it is usable.
    func list() -> Bool {
        switch directory.prepare(listing: NoReadImages.isNoReadName) {
        case .success(let found):
            stored = found.map(\.name)
            trim()
            return true
        case .failure(let error):
            state.withLock { $0.failing = error.errno.symbol }
            reportOnce(error.errno.symbol, "no-read image directory unusable; read results are still reported, without images", error: error)
            return false
        }
    }

    func write(_ job: Job) {
        guard stored != nil || list() else {
            if job.named { state.withLock { $0.failed += 1 } }
            return
        }
        switch directory.write(job.jpeg, named: job.name) {
        case .success:
            state.withLock { $0.failing = nil; if job.named { $0.written += 1 } }
            if job.named {
                stored?.append(job.name)
                trim()
            } else {
                _ = directory.remove(named: job.name)
            }
        case .failure(let error):
            state.withLock { $0.failing = error.errno.symbol; if job.named { $0.failed += 1 } }
            reportOnce(error.errno.symbol, "no-read image not saved; the read result is still reported", error: error)
        }
    }

    /// Deletes the oldest images beyond `keep`.
    private func trim() {
        guard var names = stored, names.count > keep else { return }
        let excess = names.count - keep
        for name in names.prefix(excess) {
            if case .failure(let error) = directory.remove(named: name) {
                reportOnce("unlink \(error.errno.symbol)", "an old no-read image could not be deleted", error: error,
                           later: "further unlink \(error.errno.symbol) failures are not logged")
            } else {
                state.withLock { $0.deleted += 1 }
            }
        }
        names.removeFirst(excess)
        stored = names
    }

    /// Logs `message` the first time a failure of `kind` happens.
    func reportOnce(_ kind: String, _ message: String, error: (any Error)?, later: String? = nil) {
        guard state.withLock({ $0.reported.insert(kind).inserted }) else { return }
        var metadata: Logger.Metadata = ["directory": "\(LogText.untrusted(directory.path))",
                                         "later": "\(later ?? "further \(kind) failures are counted as no_read_images_failed, not logged")"]
        if let error { metadata["error"] = "\(LogText.error(error))" }
        logger.error("\(message)", metadata: metadata)
    }
}
