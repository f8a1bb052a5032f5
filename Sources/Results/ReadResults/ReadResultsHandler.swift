import Capture
import JPEG
import Logging
import Media
import SystemCalls

/// The triggered reads' own handler (`trigger.mode: triggered`): writes each `no_read` window's
/// diagnosis JPEG, attaches it to the result for the handlers after it (`snapshot`, `jpeg`), and
/// shows the read windows' counters (`reads_good`, `reads_no_read`, `reads_multiple`, `triggers`,
/// `triggers_dropped`, `triggers_ignored`, then `no_read_images_written` and `_failed`).
///
/// The JPEG is the window's most promising frame (`DiagnosisFrame`): a camera's MJPEG frame as
/// it came, else encoded with TurboJPEG (`JPEGEncoder`) on the delivery's thread, once per
/// `no_read` window. The file is written off that thread (`NoReadImages`, its own thread behind a
/// bounded queue) as `no_read-20261122T101500.123Z-w000003.jpg` (wall clock, UTC, the window's
/// number) through a `SnapshotDirectory` (a temporary name, then rename); the oldest beyond
/// `keep` (`trigger.no_read_keep`) are deleted. The result names the file as queued (`snapshot`),
/// or why none is written (`snapshot_error`: the directory's errno, `queue_full`); a failure is
/// counted and logged once per kind with the path and what to do, and the result still goes on.
/// Without a directory the JPEG is still encoded for the handlers after it (MQTT's `no_read/image`).
public final class ReadResultsHandler: ResultsHandler, ServiceHooks, CountsReporting, Sendable {
    private struct State {
        var encoder: JPEGEncoder?
        var encoderFailed = false
        var reported: Set<String> = []
    }

    public var directory: (any SnapshotDirectory)? { images?.directory }
    /// The no-read JPEGs kept in `directory`: the oldest beyond are deleted.
    public let keep: Int
    public let counts: ReadWindowCounts
    public let triggers: TriggerSwitch
    private let quality: Int
    private let logger: Logger
    private let clock: @Sendable () -> WallClockTime
    private let state = LockedValue(State())
    let images: NoReadImages?

    /// - Parameters:
    ///   - directory: where the diagnosis JPEGs go (`trigger.no_read_directory`, else the
    ///     snapshots directory); `nil`: none written.
    ///   - counts: the read windows' counts (the service's, shared by its sessions).
    ///   - triggers: the service's trigger switch (its pulls and drops are counted).
    ///   - keep: no-read JPEGs kept in `directory` (`trigger.no_read_keep`).
    public init(directory: (any SnapshotDirectory)?, keep: Int = TriggerSettings.defaultNoReadKeep, counts: ReadWindowCounts,
                triggers: TriggerSwitch, quality: Int = 85,
                logger: Logger, clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now) {
        (self.keep, self.counts, self.triggers, self.quality, self.logger, self.clock) = (max(1, keep), counts, triggers, quality, logger, clock)
        images = directory.map { NoReadImages(directory: $0, keep: keep, logger: logger) }
    }

    public func handle(_ code: inout DeliveredCode) throws {}

    /// Starts the images' thread, which creates and lists the directory.
    public func start() { images?.start() }

    /// Writes the images queued and stops their thread (blocking).
    public func finish() throws { images?.finish() }

    /// Encodes a `no_read` window's diagnosis frame and queues its file; attaches the JPEG and
    /// the file's path (or why none is written) to `result`. Never waits for the disk.
    public func readResult(_ result: inout ReadResult) throws {
        guard result.kind == .noRead, let diagnosis = result.diagnosis else { return }
        guard let jpeg = diagnosis.pixels.cameraJPEG ?? encode(diagnosis.pixels) else { return }
        result.jpeg = jpeg
        guard let images else { return }
        switch images.submit(jpeg, named: Self.fileName(time: clock(), window: result.window)) {
        case .queued(let path): result.snapshot = path
        case .notWritten(let reason): result.snapshotError = reason
        }
    }

    /// `no_read-20261122T101500.123Z-w000003.jpg`.
    static func fileName(time: WallClockTime, window: UInt64) -> String {
        let number = String(window)
        return "no_read-\(time.basicFormat)-w\(String(repeating: "0", count: max(0, 6 - number.count)))\(number).jpg"
    }

    private func encode(_ pixels: FramePixels) -> [UInt8]? {
        let encoder: JPEGEncoder? = state.withLock { state in
            if state.encoder == nil && !state.encoderFailed {
                do { state.encoder = try JPEGEncoder() } catch { state.encoderFailed = true }
            }
            return state.encoder
        }
        guard let encoder else {
            reportOnce("jpeg init", "no-read images cannot be encoded; read results are still reported", error: nil)
            return nil
        }
        do {
            return try pixels.withUnsafeBytes { bytes throws(JPEGError) in
                try encoder.encode(bytes, format: pixels.format, width: pixels.width, height: pixels.height,
                                   bytesPerLine: pixels.bytesPerLine, quality: quality)
            }
        } catch {
            reportOnce("jpeg", "no-read image not encoded; the read result is still reported", error: error)
            return nil
        }
    }

    private func reportOnce(_ kind: String, _ message: String, error: (any Error)?) {
        guard state.withLock({ $0.reported.insert(kind).inserted }) else { return }
        var metadata: Logger.Metadata = ["later": "further \(kind) failures are not logged"]
        if let error { metadata["error"] = "\(LogText.error(error))" }
        logger.error("\(message)", metadata: metadata)
    }

    public var counters: [ResultsCounter] {
        let (reads, pulls) = (counts.current, triggers.counts)
        let (written, failed) = (images?.written ?? 0, images?.failed ?? 0)
        return [
            ResultsCounter(name: "reads_good", help: "Read windows that read 1 to trigger.expected codes.", value: reads.good, inStatus: true),
            ResultsCounter(name: "reads_no_read", help: "Read windows that read no code.", value: reads.noRead, inStatus: true),
            ResultsCounter(name: "reads_multiple", help: "Read windows that read more than trigger.expected codes.", value: reads.multiple, inStatus: true),
            ResultsCounter(name: "triggers", help: "Trigger presses and releases recorded.", value: pulls.pulls),
            ResultsCounter(name: "triggers_dropped", help: "Trigger pulls dropped unseen: too many waited between two frames.", value: pulls.dropped),
            ResultsCounter(name: "triggers_ignored", help: "Trigger presses ignored: a read window was already open.", value: reads.ignored, inStatus: true),
            ResultsCounter(name: "triggers_refused", help: "Trigger pulls the scan never took: made after it stopped, or waiting then.", value: pulls.refused),
            ResultsCounter(name: "no_read_images_written", help: "No-read diagnosis JPEGs written.", value: written),
            ResultsCounter(name: "no_read_images_failed", help: "No-read diagnosis JPEGs that could not be written (the log says why).", value: failed),
        ]
    }
}
