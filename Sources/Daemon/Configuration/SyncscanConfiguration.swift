import Capture
import Decoders
import GStreamer
import Logging
import Media
import Results
import SystemCalls
import HTTP
import V4L2

/// Everything the syncscan service can be configured with, already validated.
///
/// Read by `SyncscanConfiguration.load(file:environment:overrides:)`; the code in
/// `SyncscanConfiguration+Reading.swift` that reads each key is the schema, and
/// `config/syncscan.yaml` documents every key.
public struct SyncscanConfiguration: Sendable, Hashable {
    /// How an `rtsp://` or `rtsps://` source is read.
    public struct RTSPSettings: Sendable, Hashable {
        public typealias Transport = GStreamerURI.RTSPTransport
        /// `tcp` (interleaved, the default) or `udp`.
        public var transport = GStreamerURI.RTSPTransport.tcp
        /// The jitter buffer, milliseconds (`rtspsrc latency`).
        public var latencyMilliseconds = 200
        /// The range `rtsp.latency_ms` accepts.
        public static let latencyRange = 0...10_000
        /// Each frame's wall-clock time on the camera's clock, from its RTCP sender reports
        /// (`rtsp.camera_time`; the code lines' `frame.camera_time`).
        public var cameraTime = false
        public init() {}
    }

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
        /// JSON lines on stdout; false when another sink (MQTT) is the only one.
        public var stdout = true
        public init(queueLines: Int = 1024, stdout: Bool = true) { (self.queueLines, self.stdout) = (queueLines, stdout) }
    }

    /// The frame source URI (`/dev/video0`, `y4m:PATH`, `-`); always one `SourceFactory` can open.
    public var source = "/dev/video0"
    /// How to open a V4L2 camera (validated for every source; used only by cameras).
    public var device = V4L2CaptureSource.Configuration()
    /// How an `rtsp://` source is read (`rtsp.transport`, `rtsp.latency_ms`, `rtsp.camera_time`).
    public var rtsp = RTSPSettings()
    /// `nil`: on for live sources (camera, pipe), off for files (`VideoDataOutput`'s rule).
    public var alwaysDiscardLateVideoFrames: Bool?
    /// Threads scanning frames in parallel, each with its own scanners; `auto` (the default) is the
    /// processors this process may run on, at most 8.
    public var scanningThreads = min(8, schedulableProcessorCount())
    /// Which library decodes which symbology.
    public var engine = DecoderEngine.zxing
    /// How many of the engine's passes a frame gets: `fast`, `auto` or `max` (`ScanEffort`).
    public var effort = ScanEffort.auto
    /// The engine's passes restricted to these (`passes`, for benchmarks and known-good subsets); `nil`: all.
    public var passes: Set<DecoderPass>?
    /// Symbologies, per-symbology lengths, `test-inverted` and densities, for zbar.
    public var scanner = ScannerSettings()
    /// zxing-cpp's hints, for the symbologies the engine sends to zxing-cpp.
    public var zxing = ZXingSettings()
    /// The part of the frame scanned, normalized 0–1 from the top-left corner.
    public var rectOfInterest = NormalizedRect.full
    public var duplicateSuppression = DuplicateSuppression()
    /// Seconds between statistics log lines; 0 turns them off.
    public var statsIntervalSeconds = 60.0
    /// Seconds a scan of one frame may take before it counts as stuck (`scan_timeout_seconds`):
    /// logged, counted, in STATUS=, and the watchdog pings stop (without a watchdog, the run ends).
    public var scanTimeoutSeconds = 10.0
    public var logLevel = Logger.Level.info
    public var output = Output()
    /// JPEG snapshots of the frame each code was seen in; `nil` (no `snapshots.directory`): none.
    public var snapshots: SnapshotSettings?
    /// Every code, the status and the counters to an MQTT broker; `nil` (no `mqtt.url`): none.
    public var mqtt: MQTTSettings?
    /// Every code POSTed to web endpoints; `nil` (no `webhook.url`): none.
    public var webhook: WebhookSettings?
    /// The live view over HTTP; `nil` (no `http.listen`): no server.
    public var http: HTTPSettings?
    /// The node_exporter textfile (`*.prom`) written every stats interval and at exit; `nil`: none.
    public var metricsTextfile: String?

    /// The defaults: `/dev/video0`, zbar, QR codes only, whole frame, a scanning thread per processor.
    public init() {}

    /// The metadata output's settings: what zbar scans for and where.
    public var metadataSettings: MetadataOutput.Settings {
        // With a live view, codes detected and not decoded are outlined there.
        MetadataOutput.Settings(engine: engine, scanner: scanner, zxing: zxing, effort: effort, onlyPasses: passes,
                                rectOfInterest: rectOfInterest, reportsUndecoded: http != nil)
    }

    /// The video data output's late-frame policy.
    public var videoDataOutput: VideoDataOutput {
        VideoDataOutput(alwaysDiscardsLateVideoFrames: alwaysDiscardLateVideoFrames)
    }
}

/// The live view's HTTP server: where it listens, who may connect, what the preview costs.
public struct HTTPSettings: Sendable, Hashable {
    /// `http.listen`: a loopback address unless `allowRemote` with a `passwordFile`.
    public var listen: HTTPListenAddress
    /// `http.allow_remote`: a non-loopback `listen` is allowed (with a password).
    public var allowRemote = false
    /// `http.password_file`: HTTP Basic is required, with this file's first line as the password
    /// (any user name).
    public var passwordFile: String?
    /// `http.tls_cert_file` and `http.tls_key_file` (both or neither): HTTPS with this PEM
    /// certificate chain and private key, read at start and at each reload.
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    /// `http.max_connections`: requests served at once (streams included); more get 503.
    public var maxConnections = 16
    /// `http.max_connections_per_address`: connections one client address may hold at once (half-sent
    /// requests and idle ones included); more are closed at once.
    public var maxConnectionsPerAddress = 12
    /// `http.preview_fps`, `http.preview_width`.
    public var liveView = LiveViewSettings()

    public init(listen: HTTPListenAddress) { self.listen = listen }
}
