import ConfigurationKeys

/// How an `rtsp://` or `rtsps://` source is read (`rtsp.*`).
public struct RTSPSettings: Sendable, Hashable, ConfigurationSection {
    public typealias Transport = GStreamerURI.RTSPTransport
    /// `tcp` (interleaved, the default) or `udp`.
    public var transport = Transport.tcp
    /// The jitter buffer, milliseconds (`rtspsrc latency`).
    public var latencyMilliseconds = 200
    /// The range `rtsp.latency_ms` accepts.
    public static let latencyRange = 0...10_000
    /// Each frame's wall-clock time on the camera's clock, from its RTCP sender reports
    /// (`rtsp.camera_time`; the code lines' `frame.camera_time`).
    public var cameraTime = false

    public init() {}

    /// Reads `rtsp.*` (given `keys.scoped(to: "rtsp")`).
    public init(reading keys: ConfigurationKeyReader) {
        if let v: Transport = keys.choice("transport", "RTSP transport") { transport = v }
        if let v = keys.int("latency_ms", in: Self.latencyRange, " (milliseconds of RTSP jitter buffer)") { latencyMilliseconds = v }
        if let v = keys.bool("camera_time") { cameraTime = v }
    }
}
