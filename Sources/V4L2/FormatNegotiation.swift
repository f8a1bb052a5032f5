import Media
import SystemCalls

/// Chooses the format to ask VIDIOC_S_FMT for, from what the device enumerates.
///
/// Order: the requested fourcc if any; else the first of GREY, YUYV, UYVY, NV12, YU12 the
/// camera produces natively; else one of those libv4l2 offers by conversion (an MJPEG-only
/// camera), YU12 first; else YU12 anyway (libv4l2 converts most formats to it). The size is the
/// requested one, else the largest enumerated size within the maximum (the smallest if none fits).
public enum FormatNegotiation {
    /// The formats zbar reads without a conversion, best first.
    public static let preferredFourCCs: [FourCC] = [.grey, .yuyv, .uyvy, .nv12, .yu12]
    /// What to ask libv4l2 to convert to, best first, when the camera has none of the preferred.
    public static let convertedFourCCs: [FourCC] = [.yu12, .grey]

    /// The fourcc to request from `formats`, given an explicit request.
    public static func chooseFourCC(from formats: [V4L2FormatDescription], requested: FourCC?) -> FourCC {
        if let requested { return requested }
        let native = formats.filter { !$0.isEmulated && !$0.isCompressed }.map(\.fourcc)
        if let best = preferredFourCCs.first(where: native.contains) { return best }
        let emulated = formats.filter(\.isEmulated).map(\.fourcc)
        if let best = convertedFourCCs.first(where: emulated.contains) { return best }
        return .yu12
    }

    /// The size to request: `requested` when both dimensions are given, else the largest of
    /// `sizes` (by area) not above `maximum` (`nil` if the driver enumerates no sizes).
    public static func chooseSize(from sizes: [V4L2FrameSize], requested: (width: Int?, height: Int?),
                                  maximum: (width: Int, height: Int)) -> (width: Int, height: Int)? {
        if let w = requested.width, let h = requested.height { return (w, h) }
        let limit = (width: requested.width ?? maximum.width, height: requested.height ?? maximum.height)
        var candidates: [(width: Int, height: Int)] = []
        for size in sizes {
            switch size {
            case .discrete(let w, let h):
                candidates.append((w, h))
            case .stepwise(let minW, let maxW, let stepW, let minH, let maxH, let stepH, _):
                let w = fit(limit.width, minimum: minW, maximum: maxW, step: stepW)
                let h = fit(limit.height, minimum: minH, maximum: maxH, step: stepH)
                candidates.append((w, h))
            }
        }
        let fitting = candidates.filter { $0.width <= limit.width && $0.height <= limit.height
            && (requested.width == nil || $0.width == requested.width)
            && (requested.height == nil || $0.height == requested.height) }
        if let best = fitting.max(by: { $0.width * $0.height < $1.width * $1.height }) { return best }
        let underMaximum = candidates.filter { $0.width <= limit.width && $0.height <= limit.height }
        if let best = underMaximum.max(by: { $0.width * $0.height < $1.width * $1.height }) { return best }
        return candidates.min(by: { $0.width * $0.height < $1.width * $1.height })
    }

    /// The largest `minimum + k·step` not above `limit`, within `minimum...maximum`.
    static func fit(_ limit: Int, minimum: Int, maximum: Int, step: Int) -> Int {
        let top = min(limit, maximum)
        guard top > minimum else { return minimum }
        return minimum + (top - minimum) / max(step, 1) * max(step, 1)
    }
}

/// The format a capture stream ended up with, as S_FMT and S_PARM returned it.
public struct NegotiatedFormat: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var fourcc: FourCC
    public var pixelFormat: PixelFormat
    /// Bytes per luma row: the driver's `bytesperline`, or the minimum when it left 0.
    public var bytesPerLine: Int
    /// Bytes a valid frame has at least (`PixelFormat.frameSize`).
    public var frameSize: Int
    /// The time per frame the driver reports, if any.
    public var frameInterval: V4L2Fraction?

    public init(width: Int, height: Int, fourcc: FourCC, pixelFormat: PixelFormat, bytesPerLine: Int, frameSize: Int,
                frameInterval: V4L2Fraction?) {
        self.width = width
        self.height = height
        self.fourcc = fourcc
        self.pixelFormat = pixelFormat
        self.bytesPerLine = bytesPerLine
        self.frameSize = frameSize
        self.frameInterval = frameInterval
    }
}

extension V4L2Device {
    /// Negotiates the capture format per `configuration` (VIDIOC_ENUM_FMT, VIDIOC_ENUM_FRAMESIZES,
    /// VIDIOC_S_FMT, then VIDIOC_S_PARM or VIDIOC_G_PARM) and returns what the driver set.
    public func negotiateFormat(_ configuration: V4L2CaptureSource.Configuration) throws(IOError) -> NegotiatedFormat {
        let formats = try formats()
        let requestedFourCC = configuration.pixelFormat.flatMap { FourCC($0) }
        if configuration.pixelFormat != nil, requestedFourCC == nil {
            throw IOError.v4l2(.notSupported, call: "VIDIOC_S_FMT", device: path,
                               problem: "pixel format \(configuration.pixelFormat!) has no V4L2 single-planar code",
                               remedy: "request one of \(FormatNegotiation.preferredFourCCs.map(\.description).joined(separator: ", "))")
        }
        let fourcc = FormatNegotiation.chooseFourCC(from: formats, requested: requestedFourCC)
        let sizes = try frameSizes(for: fourcc)
        let size = FormatNegotiation.chooseSize(
            from: sizes, requested: (configuration.width, configuration.height),
            maximum: (configuration.maximumWidth, configuration.maximumHeight))
            ?? (configuration.width ?? configuration.maximumWidth, configuration.height ?? configuration.maximumHeight)
        let set = try setFormat(V4L2PixelFormat(width: size.width, height: size.height, fourcc: fourcc))
        guard let pixelFormat = set.fourcc.pixelFormat else {
            throw IOError.v4l2(.notSupported, call: "VIDIOC_S_FMT", device: path,
                               problem: "asked for \(fourcc) \(size.width)x\(size.height), the driver set \(set.fourcc), which cannot be scanned",
                               remedy: "request a pixel format the camera lists (`syncscan devices`): GREY, YUYV, UYVY, NV12 or YU12")
        }
        guard set.width > 0, set.height > 0 else {
            throw IOError.v4l2(.notSupported, call: "VIDIOC_S_FMT", device: path,
                               problem: "the driver set an empty frame size \(set.width)x\(set.height)",
                               remedy: "request a size the camera lists (`syncscan devices`)")
        }
        let bytesPerLine = max(set.bytesPerLine, pixelFormat.minimumBytesPerLine(width: set.width))
        var interval: V4L2Fraction?
        if let fps = configuration.framesPerSecond, fps > 0 {
            // A driver without VIDIOC_S_PARM keeps its rate; the caller compares and warns.
            interval = (try? setFrameInterval(V4L2Fraction(framesPerSecond: fps))) ?? (try? frameInterval())
        } else {
            interval = try? frameInterval()
        }
        return NegotiatedFormat(width: set.width, height: set.height, fourcc: set.fourcc, pixelFormat: pixelFormat,
                                bytesPerLine: bytesPerLine,
                                frameSize: pixelFormat.frameSize(width: set.width, height: set.height, bytesPerLine: bytesPerLine),
                                frameInterval: interval)
    }
}
