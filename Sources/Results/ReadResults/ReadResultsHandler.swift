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
/// it came, else encoded with TurboJPEG (`JPEGEncoder`). It is written on the delivery's thread,
/// once per `no_read` window, as `no_read-20261122T101500.123Z-w000003.jpg` (wall clock, UTC,
/// the window's number) through a `SnapshotDirectory` (a temporary name, then rename). A failed
/// write (a full or read-only disk) is counted and logged once per errno with the path and what
/// to do; the result still goes on, without `snapshot`. Without a directory the JPEG is still
/// encoded for the handlers after it (MQTT's `no_read/image`).
public final class ReadResultsHandler: ResultsHandler, @unchecked Sendable {
    private struct State {
        var written = 0, failed = 0
        var prepared: Bool?
        var encoder: JPEGEncoder?
        var encoderFailed = false
        var reported: Set<String> = []
    }

    public let directory: (any SnapshotDirectory)?
    public let counts: ReadWindowCounts
    public let triggers: TriggerSwitch
    private let quality: Int
    private let logger: Logger
    private let clock: @Sendable () -> WallClockTime
    private let state = LockedValue(State())

    /// - Parameters:
    ///   - directory: where the diagnosis JPEGs go (`trigger.no_read_directory`, else the
    ///     snapshots directory); `nil`: none written.
    ///   - counts: the read windows' counts (the service's, shared by its sessions).
    ///   - triggers: the service's trigger switch (its pulls and drops are counted).
    public init(directory: (any SnapshotDirectory)?, counts: ReadWindowCounts, triggers: TriggerSwitch, quality: Int = 85,
                logger: Logger, clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now) {
        (self.directory, self.counts, self.triggers, self.quality, self.logger, self.clock) = (directory, counts, triggers, quality, logger, clock)
    }

    public func handle(_ code: inout DeliveredCode) throws {}

    public func finish() throws {}

    /// Encodes a `no_read` window's diagnosis frame and writes it; attaches both to `result`.
    public func readResult(_ result: inout ReadResult) throws {
        guard result.kind == .noRead, let diagnosis = result.diagnosis else { return }
        guard let jpeg = diagnosis.pixels.cameraJPEG ?? encode(diagnosis.pixels) else { return }
        result.jpeg = jpeg
        guard let directory, prepare(directory) else { return }
        let name = Self.fileName(time: clock(), window: result.window)
        switch directory.write(jpeg, named: name) {
        case .success:
            state.withLock { $0.written += 1 }
            result.snapshot = directory.path.hasSuffix("/") ? directory.path + name : directory.path + "/" + name
        case .failure(let error):
            state.withLock { $0.failed += 1 }
            reportOnce(error.errno.symbol, "no-read image not saved; the read result is still reported", error: error)
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

    /// Creates the directory once (then lists it: `SnapshotDirectory.prepare`); false while it cannot be.
    private func prepare(_ directory: any SnapshotDirectory) -> Bool {
        if let prepared = state.withLock({ $0.prepared }) { return prepared }
        switch directory.prepare() {
        case .success:
            state.withLock { $0.prepared = true }
            return true
        case .failure(let error):
            state.withLock { ($0.prepared, $0.failed) = (false, $0.failed + 1) }
            reportOnce("prepare", "no-read image directory unusable; read results are still reported without images", error: error)
            return false
        }
    }

    private func reportOnce(_ kind: String, _ message: String, error: (any Error)?) {
        guard state.withLock({ $0.reported.insert(kind).inserted }) else { return }
        var metadata: Logger.Metadata = ["later": "further \(kind) failures are counted as no_read_images_failed, not logged"]
        if let directory { metadata["directory"] = "\(directory.path)" }
        if let error { metadata["error"] = "\(error)" }
        logger.error("\(message)", metadata: metadata)
    }

    public var counters: [ResultsCounter] {
        let (reads, pulls) = (counts.current, triggers.counts)
        let (written, failed) = state.withLock { ($0.written, $0.failed) }
        return [
            ResultsCounter(name: "reads_good", help: "Read windows that read 1 to trigger.expected codes.", value: reads.good, inStatus: true),
            ResultsCounter(name: "reads_no_read", help: "Read windows that read no code.", value: reads.noRead, inStatus: true),
            ResultsCounter(name: "reads_multiple", help: "Read windows that read more than trigger.expected codes.", value: reads.multiple, inStatus: true),
            ResultsCounter(name: "triggers", help: "Trigger presses and releases recorded.", value: pulls.pulls),
            ResultsCounter(name: "triggers_dropped", help: "Trigger pulls dropped unseen: too many waited between two frames.", value: pulls.dropped),
            ResultsCounter(name: "triggers_ignored", help: "Trigger presses ignored: a read window was already open.", value: reads.ignored, inStatus: true),
            ResultsCounter(name: "no_read_images_written", help: "No-read diagnosis JPEGs written.", value: written),
            ResultsCounter(name: "no_read_images_failed", help: "No-read diagnosis JPEGs that could not be written (the log says why).", value: failed),
        ]
    }
}
