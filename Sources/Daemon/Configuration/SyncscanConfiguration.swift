import Capture
import Logging
import Media
import Results
import SystemCalls
import V4L2
import ZBar

/// Everything the syncscan service can be configured with, already validated.
///
/// Read by `SyncscanConfiguration.load(file:environment:overrides:)`; the code in
/// `SyncscanConfiguration+Reading.swift` that reads each key is the schema, and
/// `config/syncscan.yaml` documents every key.
public struct SyncscanConfiguration: Sendable, Hashable {
    /// Dropping a code seen again soon after it was reported.
    public struct DuplicateSuppression: Sendable, Hashable {
        public var enabled = true
        /// A code with the same symbology and bytes seen within this many seconds of frame time
        /// after its last report is not reported again.
        public var windowSeconds = 1.0
        public init(enabled: Bool = true, windowSeconds: Double = 1.0) { (self.enabled, self.windowSeconds) = (enabled, windowSeconds) }
    }

    /// The results writer: lines its bounded queue holds before results are dropped (and counted).
    public struct Output: Sendable, Hashable {
        public var queueLines = 1024
        public init(queueLines: Int = 1024) { self.queueLines = queueLines }
    }

    /// The frame source URI (`/dev/video0`, `y4m:PATH`, `-`); always one `SourceFactory` can open.
    public var source = "/dev/video0"
    /// How to open a V4L2 camera (validated for every source; used only by cameras).
    public var device = V4L2CaptureSource.Configuration()
    /// `nil`: on for live sources (camera, pipe), off for files (`VideoDataOutput`'s rule).
    public var alwaysDiscardLateVideoFrames: Bool?
    /// Threads scanning frames in parallel, each with its own scanners; `auto` (the default) is the
    /// processors this process may run on, at most 8.
    public var scanningThreads = min(8, schedulableProcessorCount())
    /// Which library decodes which symbology.
    public var engine = DecoderEngine.zbar
    /// Symbologies, per-symbology lengths, `test-inverted` and densities, for zbar.
    public var scanner = ScannerSettings()
    /// zxing-cpp's hints, for the symbologies the engine sends to zxing-cpp.
    public var zxing = ZXingSettings()
    /// The part of the frame scanned, normalized 0–1 from the top-left corner.
    public var rectOfInterest = NormalizedRect.full
    public var duplicateSuppression = DuplicateSuppression()
    /// Seconds between statistics log lines; 0 turns them off.
    public var statsIntervalSeconds = 60.0
    public var logLevel = Logger.Level.info
    public var output = Output()
    /// JPEG snapshots of the frame each code was seen in; `nil` (no `snapshots.directory`): none.
    public var snapshots: SnapshotSettings?
    /// The node_exporter textfile (`*.prom`) written every stats interval and at exit; `nil`: none.
    public var metricsTextfile: String?

    /// The defaults: `/dev/video0`, zbar, QR codes only, whole frame, a scanning thread per processor.
    public init() {}

    /// The metadata output's settings: what zbar scans for and where.
    public var metadataSettings: MetadataOutput.Settings {
        MetadataOutput.Settings(engine: engine, scanner: scanner, zxing: zxing, rectOfInterest: rectOfInterest)
    }

    /// The video data output's late-frame policy.
    public var videoDataOutput: VideoDataOutput {
        VideoDataOutput(alwaysDiscardsLateVideoFrames: alwaysDiscardLateVideoFrames)
    }
}
