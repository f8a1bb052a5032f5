import Media

/// A V4L2 pixel format code: four ASCII characters packed little-endian (`v4l2_fourcc`).
public struct FourCC: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The code for a four-character string such as `"YUYV"`; `nil` unless exactly four ASCII characters.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        rawValue = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    /// The four characters, e.g. `YUYV`; spaces kept (`Y16 `), unprintable bytes as `?`.
    public var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }
        return String(decoding: bytes.map { (0x20..<0x7f).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let code = FourCC(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "fourcc must be four ASCII characters, got \"\(text)\""))
        }
        self = code
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public static let grey = FourCC("GREY")!
    public static let yuyv = FourCC("YUYV")!
    public static let uyvy = FourCC("UYVY")!
    public static let nv12 = FourCC("NV12")!
    public static let nv21 = FourCC("NV21")!
    public static let yu12 = FourCC("YU12")!
    public static let yv12 = FourCC("YV12")!
    public static let yuv422p = FourCC("422P")!
    public static let mjpeg = FourCC("MJPG")!
    public static let rgb24 = FourCC("RGB3")!

    /// The pipeline's pixel format for this code, if zbar can read it (`PixelFormat(v4l2FourCC:)`).
    public var pixelFormat: PixelFormat? { PixelFormat(v4l2FourCC: description) }

    /// The V4L2 code of a pipeline pixel format; `nil` for layouts V4L2 has no single-planar code for.
    public init?(_ format: PixelFormat) {
        guard let code = format.v4l2FourCC else { return nil }
        self.init(code)
    }
}

/// Capability bits of `struct v4l2_capability` (`V4L2_CAP_*`).
public struct V4L2Capabilities: OptionSet, Sendable, Hashable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let videoCapture = V4L2Capabilities(rawValue: 0x0000_0001)
    public static let videoOutput = V4L2Capabilities(rawValue: 0x0000_0002)
    public static let videoCaptureMultiplanar = V4L2Capabilities(rawValue: 0x0000_1000)
    public static let metadataCapture = V4L2Capabilities(rawValue: 0x0080_0000)
    public static let readWrite = V4L2Capabilities(rawValue: 0x0100_0000)
    public static let streaming = V4L2Capabilities(rawValue: 0x0400_0000)
    /// `device_caps` is filled in and describes this node.
    public static let deviceCaps = V4L2Capabilities(rawValue: 0x8000_0000)

    /// The `V4L2_CAP_*` names of the bits set, for messages.
    public var names: [String] {
        let known: [(V4L2Capabilities, String)] = [
            (.videoCapture, "V4L2_CAP_VIDEO_CAPTURE"), (.videoOutput, "V4L2_CAP_VIDEO_OUTPUT"),
            (.videoCaptureMultiplanar, "V4L2_CAP_VIDEO_CAPTURE_MPLANE"), (.metadataCapture, "V4L2_CAP_META_CAPTURE"),
            (.readWrite, "V4L2_CAP_READWRITE"), (.streaming, "V4L2_CAP_STREAMING"), (.deviceCaps, "V4L2_CAP_DEVICE_CAPS"),
        ]
        return known.filter { contains($0.0) }.map(\.1)
    }
}

/// What VIDIOC_QUERYCAP reports.
public struct V4L2Capability: Sendable, Hashable {
    public var driver: String
    public var card: String
    public var busInfo: String
    public var version: UInt32
    /// The physical device's capabilities as a whole.
    public var capabilities: V4L2Capabilities
    /// This node's capabilities; meaningful only when `capabilities` contains `.deviceCaps`.
    public var deviceCapabilities: V4L2Capabilities

    public init(driver: String, card: String, busInfo: String, version: UInt32 = 0,
                capabilities: V4L2Capabilities, deviceCapabilities: V4L2Capabilities) {
        self.driver = driver
        self.card = card
        self.busInfo = busInfo
        self.version = version
        self.capabilities = capabilities
        self.deviceCapabilities = deviceCapabilities
    }

    /// What this node can do: `device_caps` when V4L2_CAP_DEVICE_CAPS is set, else `capabilities`.
    public var nodeCapabilities: V4L2Capabilities {
        capabilities.contains(.deviceCaps) ? deviceCapabilities : capabilities
    }
}

/// One entry of VIDIOC_ENUM_FMT.
public struct V4L2FormatDescription: Sendable, Hashable {
    public var index: Int
    public var fourcc: FourCC
    public var description: String
    /// `V4L2_FMT_FLAG_COMPRESSED` (MJPEG, H.264…).
    public var isCompressed: Bool
    /// `V4L2_FMT_FLAG_EMULATED`: libv4l2 converts to it from a native format.
    public var isEmulated: Bool

    public init(index: Int, fourcc: FourCC, description: String, isCompressed: Bool = false, isEmulated: Bool = false) {
        self.index = index
        self.fourcc = fourcc
        self.description = description
        self.isCompressed = isCompressed
        self.isEmulated = isEmulated
    }
}

/// One entry of VIDIOC_ENUM_FRAMESIZES.
public enum V4L2FrameSize: Sendable, Hashable {
    case discrete(width: Int, height: Int)
    /// Any size from min to max in steps (continuous: steps of 1, `continuous` true).
    case stepwise(minWidth: Int, maxWidth: Int, stepWidth: Int, minHeight: Int, maxHeight: Int, stepHeight: Int, continuous: Bool)
}

/// A time per frame in seconds, `numerator / denominator` (`struct v4l2_fract`).
public struct V4L2Fraction: Sendable, Hashable, Codable {
    public var numerator: UInt32
    public var denominator: UInt32

    public init(numerator: UInt32, denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The interval of `framesPerSecond` frames a second, kept exact to a thousandth of a frame.
    public init(framesPerSecond: Double) {
        var num: UInt32 = 1000
        var den = UInt32(clamping: Int((framesPerSecond * 1000).rounded()))
        var a = num, b = den
        while b != 0 { (a, b) = (b, a % b) }
        if a > 1 { num /= a; den /= a }
        self.init(numerator: num, denominator: den)
    }

    /// Frames per second; 0 for an invalid (zero) interval.
    public var framesPerSecond: Double {
        numerator == 0 ? 0 : Double(denominator) / Double(numerator)
    }

    /// The interval as a duration; `nil` if either term is zero.
    public var duration: Duration? {
        guard numerator > 0, denominator > 0 else { return nil }
        return .nanoseconds(Int64(numerator) * 1_000_000_000 / Int64(denominator))
    }
}

/// One entry of VIDIOC_ENUM_FRAMEINTERVALS.
public enum V4L2FrameInterval: Sendable, Hashable {
    case discrete(V4L2Fraction)
    case stepwise(minimum: V4L2Fraction, maximum: V4L2Fraction, step: V4L2Fraction)
}

/// The single-planar capture format (`struct v4l2_pix_format`) as VIDIOC_S_FMT carries it.
public struct V4L2PixelFormat: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var fourcc: FourCC
    /// Bytes per row of the first plane; 0 from a driver that leaves it to the application.
    public var bytesPerLine: Int
    /// Bytes a whole frame needs; 0 if the driver did not say.
    public var sizeImage: Int
    /// `enum v4l2_field`; 1 is V4L2_FIELD_NONE (progressive).
    public var field: UInt32

    public init(width: Int, height: Int, fourcc: FourCC, bytesPerLine: Int = 0, sizeImage: Int = 0, field: UInt32 = 1) {
        self.width = width
        self.height = height
        self.fourcc = fourcc
        self.bytesPerLine = bytesPerLine
        self.sizeImage = sizeImage
        self.field = field
    }
}

/// Where VIDIOC_QUERYBUF says an mmap buffer lives.
public struct V4L2BufferLocation: Sendable, Hashable {
    public var index: Int
    public var length: Int
    /// The `offset` to pass to mmap.
    public var offset: Int64

    public init(index: Int, length: Int, offset: Int64) {
        self.index = index
        self.length = length
        self.offset = offset
    }
}

/// What VIDIOC_DQBUF returns about a filled buffer.
public struct V4L2DequeuedBuffer: Sendable, Hashable {
    public var index: Int
    public var bytesUsed: Int
    /// `V4L2_BUF_FLAG_*` bits.
    public var flags: UInt32
    /// The driver's frame counter.
    public var sequence: UInt32
    /// The kernel timestamp (CLOCK_MONOTONIC for almost every driver).
    public var timestamp: MediaTime

    /// V4L2_BUF_FLAG_ERROR: the data may be corrupt.
    public static let errorFlag: UInt32 = 0x0000_0040

    public init(index: Int, bytesUsed: Int, flags: UInt32 = 0, sequence: UInt32, timestamp: MediaTime) {
        self.index = index
        self.bytesUsed = bytesUsed
        self.flags = flags
        self.sequence = sequence
        self.timestamp = timestamp
    }

    public var hasErrorFlag: Bool { flags & Self.errorFlag != 0 }

    /// V4L2_BUF_FLAG_TIMESTAMP_MASK and its V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC value.
    static let timestampTypeMask: UInt32 = 0x0000_E000, timestampMonotonic: UInt32 = 0x0000_2000

    /// When the frame was captured on CLOCK_MONOTONIC, dequeued at `now`: the kernel's stamp when
    /// the driver says it is monotonic and it lies in the last `plausibleAge` (a wrapped or
    /// copied stamp is not), else `now`.
    public func monotonicCaptureTime(now: MediaTime) -> MediaTime {
        let age = now.nanoseconds &- timestamp.nanoseconds  // never traps: a wrapped stamp is far off either way
        guard flags & Self.timestampTypeMask == Self.timestampMonotonic, (0...Self.plausibleAge.nanoseconds).contains(age)
        else { return now }
        return timestamp
    }

    /// The oldest a monotonic stamp is taken to be when its buffer is dequeued.
    static let plausibleAge = MediaTime(seconds: 10)

    /// A VIDIOC_DQBUF `struct timeval` in nanoseconds, modulo 2^64 like the kernel's own `u64`
    /// nanosecond clock: never traps, so a clock that wraps (vivid's `wrap_timestamp=1` goes from
    /// 2^63 − 1 ns to −2^63 ns, whose `tv_sec` times 10^9 is below `Int64.min`) stays a step
    /// the capture session can measure.
    public static func timestamp(seconds: Int64, microseconds: Int64) -> MediaTime {
        MediaTime(nanoseconds: seconds &* 1_000_000_000 &+ microseconds &* 1_000)
    }
}

/// What `poll` found on the device and the wake-up descriptor.
public struct V4L2PollEvents: OptionSet, Sendable, Hashable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A buffer can be dequeued (POLLIN).
    public static let readable = V4L2PollEvents(rawValue: 1)
    /// POLLERR/POLLHUP/POLLNVAL on the device: unplugged, or not streaming.
    public static let error = V4L2PollEvents(rawValue: 2)
    /// The wake-up descriptor was signalled: `stop()` was called.
    public static let wakeUp = V4L2PollEvents(rawValue: 4)
}
