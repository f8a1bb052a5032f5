import ConfigurationKeys
import Media

extension V4L2CaptureSource {
    /// What to ask the camera for and how to ride out faults.
    public struct Configuration: Sendable, Hashable {
        /// Requested frame width; `nil` picks the largest within `maximumWidth`.
        public var width: Int?
        /// Requested frame height; `nil` picks the largest within `maximumHeight`.
        public var height: Int?
        /// The highest frame rate wanted (`device.fps`); `nil`: 30. The mode and interval are
        /// chosen by rate (`CaptureModeSelection`) and the interval is always set (VIDIOC_S_PARM).
        public var framesPerSecond: Double?
        /// The floor (`device.min_fps`): when the largest size is slower than this, a smaller size
        /// at a higher rate is chosen; 0: no floor.
        public var minimumFramesPerSecond: Double = 10
        /// Requested pixel format; `nil` chooses by rate, ties to GREY, the YUV layouts, then MJPEG.
        public var pixelFormat: PixelFormat?
        /// The largest size chosen when no size is requested.
        public var maximumWidth: Int
        public var maximumHeight: Int
        /// mmap buffers to request (VIDIOC_REQBUFS); the driver may adjust.
        public var bufferCount: Int
        /// No buffer for this many frame intervals counts as a stall (0 disables stall detection).
        public var stallTimeoutFrameIntervals: Int
        /// Time after an open during which no stall is declared (cameras take a while to start).
        public var gracePeriod: Duration
        /// First wait before reopening a lost device; doubles per failed attempt up to the maximum.
        public var reconnectBackoffInitial: Duration
        public var reconnectBackoffMaximum: Duration
        /// Retries of a busy (EBUSY) or forbidden (EACCES) device, or of a failed streaming setup at
        /// the first open, before giving up with an error.
        public var busyRetryLimit: Int
        /// How long a lost camera is waited for before `next()` throws; `nil` waits for ever.
        public var missingTimeout: Duration? = .seconds(300)
        /// Controls set after the format is agreed, on every open (`device.controls`).
        public var controls: [V4L2ControlSetting] = []

        public init(width: Int? = nil, height: Int? = nil, framesPerSecond: Double? = nil, pixelFormat: PixelFormat? = nil,
                    maximumWidth: Int = 1280, maximumHeight: Int = 720, bufferCount: Int = 4,
                    stallTimeoutFrameIntervals: Int = 60, gracePeriod: Duration = .seconds(3),
                    reconnectBackoffInitial: Duration = .milliseconds(250), reconnectBackoffMaximum: Duration = .seconds(8),
                    busyRetryLimit: Int = 3) {
            self.width = width
            self.height = height
            self.framesPerSecond = framesPerSecond
            self.pixelFormat = pixelFormat
            self.maximumWidth = maximumWidth
            self.maximumHeight = maximumHeight
            self.bufferCount = bufferCount
            self.stallTimeoutFrameIntervals = stallTimeoutFrameIntervals
            self.gracePeriod = gracePeriod
            self.reconnectBackoffInitial = reconnectBackoffInitial
            self.reconnectBackoffMaximum = reconnectBackoffMaximum
            self.busyRetryLimit = busyRetryLimit
        }

        /// Frame widths and heights a request may name.
        public static let sizeRange = 1...16384
        /// Frame rates a request may name (greater than the lower bound).
        public static let frameRateRange: ClosedRange<Double> = 0...1000
        /// mmap buffer counts: streaming needs two; 32 is V4L2's `VIDEO_MAX_FRAME`.
        public static let bufferCountRange = 2...32

        /// The first out-of-range value, named, or `nil` if all are usable.
        public var problem: String? {
            for (name, v) in [("width", width), ("height", height), ("maximum width", maximumWidth), ("maximum height", maximumHeight)] {
                if let v, !Self.sizeRange.contains(v) { return "\(name) \(v) must be from \(Self.sizeRange.lowerBound) to \(Self.sizeRange.upperBound)" }
            }
            if let f = framesPerSecond, !(f > Self.frameRateRange.lowerBound && f <= Self.frameRateRange.upperBound) {
                return "frame rate \(f) must be in 0<fps≤\(Int(Self.frameRateRange.upperBound))"
            }
            if !Self.frameRateRange.contains(minimumFramesPerSecond) {
                return "minimum frame rate \(minimumFramesPerSecond) must be in 0≤fps≤\(Int(Self.frameRateRange.upperBound))"
            }
            if !Self.bufferCountRange.contains(bufferCount) { return "buffer count \(bufferCount) must be 2…32" }
            if stallTimeoutFrameIntervals < 0 { return "stall timeout \(stallTimeoutFrameIntervals) frame intervals must be ≥ 0" }
            if gracePeriod < .zero { return "grace period \(gracePeriod) must be ≥ 0" }
            if reconnectBackoffInitial <= .zero || reconnectBackoffMaximum < reconnectBackoffInitial {
                return "reconnect backoff \(reconnectBackoffInitial)…\(reconnectBackoffMaximum) must be positive and initial ≤ maximum"
            }
            if busyRetryLimit < 0 { return "busy retry limit \(busyRetryLimit) must be ≥ 0" }
            if let t = missingTimeout, t <= .zero { return "missing timeout \(t) must be positive" }
            return nil
        }
    }
}

extension V4L2CaptureSource.Configuration: ConfigurationSection {
    /// Reads `device.*` (given `keys.scoped(to: "device")`): checked for every source, used only by cameras.
    public init(reading keys: ConfigurationKeyReader) {
        self.init()
        let sizes = Self.sizeRange
        width = keys.int("width", in: sizes)
        height = keys.int("height", in: sizes)
        if (width == nil) != (height == nil) {
            keys.problem(width == nil ? "height" : "width", "\(keys.fullKey("width")) and \(keys.fullKey("height")) must be given together")
        }
        framesPerSecond = keys.double("fps", in: Self.frameRateRange, lowerOpen: true)
        if let v = keys.double("min_fps", in: Self.frameRateRange, " (the floor under which a smaller, faster size is chosen; 0: none)") {
            minimumFramesPerSecond = v
        }
        pixelFormat = keys.choice("fourcc", "pixel format")
        if let v = keys.int("max_width", in: sizes) { maximumWidth = v }
        if let v = keys.int("max_height", in: sizes) { maximumHeight = v }
        if let v = keys.int("buffers", in: Self.bufferCountRange, " (streaming needs 2; V4L2 allows at most 32)") { bufferCount = v }
        if let v = keys.double("missing_timeout", in: 1...86_400, " (seconds a lost camera is waited for)") { missingTimeout = .seconds(v) }
        controls = keys.entries(of: "controls").compactMap { entry in
            let setting = V4L2ControlSetting(name: entry.name, value: entry.value)
            if let problem = setting.typeProblem { keys.problem("controls.\(entry.name)", problem); return nil }
            return setting
        }
    }
}
