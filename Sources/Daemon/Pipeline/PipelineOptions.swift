import Capture
import Media
import ZBar

/// Everything that shapes one run of the pipeline, resolved from config file, environment and flags.
public struct PipelineOptions: Sendable, Hashable {
    /// Camera settings; used only by V4L2 sources.
    public struct Device: Sendable, Hashable {
        public var width: Int?
        public var height: Int?
        public var framesPerSecond: Double?
        public var fourcc: String?
        public var maximumWidth = 1280
        public var maximumHeight = 720
        public var bufferCount = 4
        public init() {}
    }

    /// `y4m:PATH`, `y4m:-`, `PATH.y4m`, `/dev/videoN`, `v4l2:/dev/videoN`.
    public var source: String
    public var device = Device()
    public var video = VideoDataOutput()
    public var metadata = MetadataOutput.Settings()
    public var scanningThreads = 1
    /// Frame-time window for duplicate suppression, seconds; 0 reports every sighting.
    public var duplicateWindow: Double = 1.0
    /// Also write one record per frame (the ledger) on stdout.
    public var emitFrames = false
    /// Stop after this many frames (scanned or dropped); `nil` runs until the source ends.
    public var frameLimit: Int?
    /// Lines that may wait for a slow stdout reader before lines are dropped (live sources).
    public var outputQueueLines = 1024
    /// Seconds between stats lines on stderr; 0 turns them off.
    public var statsInterval: Double = 60

    public init(source: String) { self.source = source }
}
