import Capture
import Logging
import Media
import ZBar

/// Everything the syncscan service can be configured with, already validated.
///
/// Built by `SyncscanConfiguration.load(file:environment:overrides:)` from command-line overrides,
/// `SYNCSCAN_*` environment variables, a YAML file and these defaults (in that precedence). The
/// YAML keys are documented in `config/syncscan.yaml`; `ConfigurationSchema` lists them all.
public struct SyncscanConfiguration: Sendable, Hashable {
    /// How to open a V4L2 camera (ignored for file and pipe sources).
    public struct Device: Sendable, Hashable {
        /// Requested frame size; `nil` picks the largest the camera offers within `maxWidth`×`maxHeight`.
        /// Width and height are given together or not at all.
        public var width: Int?
        public var height: Int?
        /// Requested frames per second; `nil` keeps the camera's rate.
        public var fps: Double?
        /// Requested pixel format; `nil` picks the first the pipeline can scan.
        public var fourcc: PixelFormat?
        /// The largest frame size picked when `width`/`height` are not given.
        public var maxWidth: Int
        public var maxHeight: Int
        /// Memory-mapped capture buffers to request (`VIDIOC_REQBUFS` count).
        public var buffers: Int

        public init(width: Int? = nil, height: Int? = nil, fps: Double? = nil, fourcc: PixelFormat? = nil,
                    maxWidth: Int = 1280, maxHeight: Int = 720, buffers: Int = 4) {
            self.width = width
            self.height = height
            self.fps = fps
            self.fourcc = fourcc
            self.maxWidth = maxWidth
            self.maxHeight = maxHeight
            self.buffers = buffers
        }
    }

    /// Dropping a code seen again soon after it was reported.
    public struct DuplicateSuppression: Sendable, Hashable {
        public var enabled: Bool
        /// A code with the same symbology and bytes seen within this many seconds of frame time
        /// after its last report is not reported again.
        public var windowSeconds: Double

        public init(enabled: Bool = true, windowSeconds: Double = 1.0) {
            self.enabled = enabled
            self.windowSeconds = windowSeconds
        }
    }

    /// The results writer.
    public struct Output: Sendable, Hashable {
        /// Lines the bounded output queue holds before results are dropped (and counted).
        public var queueLines: Int

        public init(queueLines: Int = 1024) {
            self.queueLines = queueLines
        }
    }

    /// The frame source: a V4L2 device path (`/dev/video0`), a Y4M file, or `-` for stdin.
    public var source: String
    public var device: Device
    /// `nil`: on for live sources (camera, pipe), off for files (`VideoDataOutput`'s rule).
    public var alwaysDiscardLateVideoFrames: Bool?
    /// Threads scanning frames in parallel, each with its own zbar scanner.
    public var scanningThreads: Int
    /// Symbologies, per-symbology lengths, `test-inverted` and densities, for zbar.
    public var scanner: ScannerConfiguration
    /// The part of the frame scanned, normalized 0–1 from the top-left corner.
    public var rectOfInterest: NormalizedRect
    public var duplicateSuppression: DuplicateSuppression
    /// Seconds between statistics log lines; 0 turns them off.
    public var statsIntervalSeconds: Double
    public var logLevel: Logger.Level
    public var output: Output

    /// The defaults: `/dev/video0`, QR codes only, whole frame, one scanning thread.
    public init(source: String = "/dev/video0", device: Device = Device(), alwaysDiscardLateVideoFrames: Bool? = nil,
                scanningThreads: Int = 1, scanner: ScannerConfiguration = ScannerConfiguration(),
                rectOfInterest: NormalizedRect = .full, duplicateSuppression: DuplicateSuppression = DuplicateSuppression(),
                statsIntervalSeconds: Double = 60, logLevel: Logger.Level = .info, output: Output = Output()) {
        self.source = source
        self.device = device
        self.alwaysDiscardLateVideoFrames = alwaysDiscardLateVideoFrames
        self.scanningThreads = scanningThreads
        self.scanner = scanner
        self.rectOfInterest = rectOfInterest
        self.duplicateSuppression = duplicateSuppression
        self.statsIntervalSeconds = statsIntervalSeconds
        self.logLevel = logLevel
        self.output = output
    }

    /// The metadata output's settings: what zbar scans for and where.
    public var metadataSettings: MetadataOutput.Settings {
        MetadataOutput.Settings(scanner: scanner, rectOfInterest: rectOfInterest)
    }

    /// The video data output's late-frame policy.
    public var videoDataOutput: VideoDataOutput {
        VideoDataOutput(alwaysDiscardsLateVideoFrames: alwaysDiscardLateVideoFrames)
    }
}
