/// What a source says of itself (`FrameSource.report`): its kind, a label, its mode, its controls
/// and its health.
///
/// Outputs (the live view's `/status`, the stats and metrics, MQTT) show any input through it,
/// without knowing the source's type or its URI's scheme. A snapshot: read it again for news.
public struct SourceReport: Sendable, Hashable {
    /// The input family, as in `SourceURI.family` (`v4l2`, `y4m`, `gst`), or a test's own.
    public var kind: String
    /// The source for people, without secrets (`SecretRedaction`): `V4L2 camera /dev/video0 (HD Webcam)`.
    public var label: String
    /// The mode frames arrive in now; `nil` before the source knows it (not streaming yet).
    public var mode: SourceMode?
    /// A camera's device settings and how many failed; `nil` for a source without any.
    public var controls: SourceControls?
    public var health: SourceHealth

    public init(kind: String, label: String, mode: SourceMode? = nil, controls: SourceControls? = nil,
                health: SourceHealth = SourceHealth()) {
        (self.kind, self.label, self.mode, self.controls, self.health) = (kind, label, mode, controls, health)
    }
}

/// The mode a source delivers frames in: size, format and frame rate, and where they come from.
public struct SourceMode: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// The source's own name of the format: a camera's FourCC (`YUYV`, `MJPG`), a Y4M colour space's
    /// pixel format (`GREY`, `YU12`), GStreamer's video format (`I420`, `GRAY8`).
    public var format: String
    /// Frames a second; `nil` when the source gives no rate (a driver without an interval, a variable-rate stream).
    public var framesPerSecond: Double?
    /// Where the mode comes from: `negotiated` (with a camera), `file` (a file's header or caps),
    /// `assumed` (a Y4M header without a rate: 25 fps), `stream` (a network stream's or a pipeline's caps).
    public var origin: String

    public init(width: Int, height: Int, format: String, framesPerSecond: Double?, origin: String) {
        (self.width, self.height, self.format, self.framesPerSecond, self.origin) = (width, height, format, framesPerSecond, origin)
    }
}

/// A camera's device settings (`device.controls`) in force, and how many failed to apply after
/// it started (refused at a reopen or a reload).
public struct SourceControls: Sendable, Hashable {
    /// One setting: the control's name and its value as configured.
    public struct Setting: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) { (self.name, self.value) = (name, value) }
    }

    public var settings: [Setting]
    public var failures: Int

    public init(settings: [Setting], failures: Int) { (self.settings, self.failures) = (settings, failures) }
}

/// How a source is doing: whether its device is gone and being waited for, and how often it was reopened.
public struct SourceHealth: Sendable, Hashable {
    /// Since when the source's device is gone and being waited for (a camera's reconnect backoff,
    /// a stream being reopened); `nil` when it is not.
    public var missingSince: ContinuousClock.Instant?
    /// Times the source reopened its device or stream after a fault or an unplug (0 for a file or pipe).
    public var reopens: Int

    public init(missingSince: ContinuousClock.Instant? = nil, reopens: Int = 0) {
        (self.missingSince, self.reopens) = (missingSince, reopens)
    }
}
