import Media
import SystemCalls

/// The format a capture stream ended up with, as S_FMT and S_PARM returned it.
public struct NegotiatedFormat: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var fourcc: FourCC
    public var pixelFormat: PixelFormat
    /// Bytes per luma row: the driver's `bytesperline`, or the minimum when it left 0 (0 for MJPEG).
    public var bytesPerLine: Int
    /// Bytes a valid frame has at least (`PixelFormat.frameSize`; 1 for a compressed format).
    public var frameSize: Int
    /// The time per frame the driver reports, if any.
    public var frameInterval: V4L2Fraction?
    /// The format is one libv4l2 converts to from the camera's own (`V4L2_FMT_FLAG_EMULATED`).
    public var isEmulated: Bool = false
    /// What was chosen and what it beat, for the log (`CaptureModeChoice.summary`).
    public var modeSummary: String = ""

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

extension V4L2CaptureSource.Configuration {
    /// The mode request these settings make; `decodesMJPEG`: a decoder for MJPEG is at hand.
    public func modeRequest(decodesMJPEG: Bool) -> CaptureModeRequest {
        CaptureModeRequest(fourcc: pixelFormat.flatMap { FourCC($0) }, width: width, height: height, framesPerSecond: framesPerSecond,
                           minimumFramesPerSecond: minimumFramesPerSecond, maximumWidth: maximumWidth, maximumHeight: maximumHeight,
                           decodesMJPEG: decodesMJPEG)
    }
}

extension V4L2Device {
    /// Every (format, size) with its intervals (VIDIOC_ENUM_FMT, VIDIOC_ENUM_FRAMESIZES,
    /// VIDIOC_ENUM_FRAMEINTERVALS). A stepwise or continuous size range gives the size on its grid
    /// nearest below the requested size, else below the maximum; a format whose sizes are not
    /// enumerated gives the requested (or maximum) size, with no intervals.
    public func captureModes(for request: CaptureModeRequest) throws(IOError) -> [CaptureMode] {
        let limit = (width: request.width ?? request.maximumWidth, height: request.height ?? request.maximumHeight)
        var modes: [CaptureMode] = []
        for format in try formats() {
            var sizes: [(Int, Int)] = []
            for size in try frameSizes(for: format.fourcc) {
                switch size {
                case .discrete(let w, let h):
                    sizes.append((w, h))
                case .stepwise(let minW, let maxW, let stepW, let minH, let maxH, let stepH, _):
                    sizes.append((Self.fit(limit.width, minimum: minW, maximum: maxW, step: stepW),
                                  Self.fit(limit.height, minimum: minH, maximum: maxH, step: stepH)))
                }
            }
            if sizes.isEmpty { sizes = [limit] }
            for (w, h) in sizes {
                let intervals = (try? frameIntervals(for: format.fourcc, width: w, height: h)) ?? []
                modes.append(CaptureMode(fourcc: format.fourcc, width: w, height: h, isCompressed: format.isCompressed,
                                         isEmulated: format.isEmulated, intervals: intervals))
            }
        }
        return modes
    }

    /// The largest `minimum + k·step` not above `limit`, within `minimum...maximum`.
    static func fit(_ limit: Int, minimum: Int, maximum: Int, step: Int) -> Int {
        let top = min(limit, maximum)
        guard top > minimum else { return minimum }
        return minimum + (top - minimum) / max(step, 1) * max(step, 1)
    }

    /// Chooses the mode by frame rate (`CaptureModeSelection`) and sets it: VIDIOC_S_FMT, then
    /// VIDIOC_S_PARM with the chosen interval (always), VIDIOC_G_PARM if the driver cannot set it.
    ///
    /// A driver that enumerates nothing is asked for the requested fourcc (else YU12, which libv4l2
    /// converts most formats to) at the requested (else maximum) size.
    /// - Parameter decodesMJPEG: MJPEG may be captured as MJPEG (a decoder is at hand).
    public func negotiateFormat(_ configuration: V4L2CaptureSource.Configuration, decodesMJPEG: Bool = false) throws(IOError) -> NegotiatedFormat {
        if let requested = configuration.pixelFormat, FourCC(requested) == nil {
            throw IOError.v4l2(.notSupported, call: "VIDIOC_S_FMT", device: path,
                               problem: "pixel format \(requested) has no V4L2 single-planar code",
                               remedy: "request one of GREY, YUYV, UYVY, NV12, YU12, MJPG, or leave device.fourcc unset")
        }
        let request = configuration.modeRequest(decodesMJPEG: decodesMJPEG)
        let modes = try captureModes(for: request)
        let choice: CaptureModeChoice
        switch CaptureModeSelection.choose(from: modes, request: request) {
        case .success(let chosen):
            choice = chosen
        case .failure(let problem) where !problem.offered.isEmpty || request.fourcc != nil || request.width != nil:
            throw IOError.v4l2(.notSupported, call: "VIDIOC_ENUM_FMT", device: path, problem: problem.description,
                               remedy: "ask for a mode it offers (`syncscan devices`), or leave device.fourcc, device.width and device.height unset")
        case .failure:
            let size = (width: configuration.width ?? configuration.maximumWidth, height: configuration.height ?? configuration.maximumHeight)
            choice = CaptureModeChoice(mode: CaptureMode(fourcc: request.fourcc ?? .yu12, width: size.width, height: size.height, intervals: []),
                                       interval: nil, summary: "\(size.width)x\(size.height) \(request.fourcc ?? .yu12): the driver enumerates no formats")
        }
        let fourcc = choice.mode.fourcc
        let set = try setFormat(V4L2PixelFormat(width: choice.mode.width, height: choice.mode.height, fourcc: fourcc))
        guard let pixelFormat = set.fourcc.pixelFormat, !(pixelFormat.isCompressed && !decodesMJPEG) else {
            throw IOError.v4l2(.notSupported, call: "VIDIOC_S_FMT", device: path,
                               problem: "asked for \(fourcc) \(choice.mode.width)x\(choice.mode.height), the driver set \(set.fourcc), which cannot be scanned",
                               remedy: "request a pixel format the camera lists (`syncscan devices`): GREY, YUYV, UYVY, NV12, YU12 or MJPG")
        }
        guard set.width > 0, set.height > 0 else {
            throw IOError.v4l2(.notSupported, call: "VIDIOC_S_FMT", device: path,
                               problem: "the driver set an empty frame size \(set.width)x\(set.height)",
                               remedy: "request a size the camera lists (`syncscan devices`)")
        }
        let bytesPerLine = pixelFormat.isCompressed ? 0 : max(set.bytesPerLine, pixelFormat.minimumBytesPerLine(width: set.width))
        // A driver without VIDIOC_S_PARM keeps its rate; the caller compares and warns.
        let wanted = choice.interval ?? V4L2Fraction(framesPerSecond: request.targetFramesPerSecond)
        let interval = (try? setFrameInterval(wanted)) ?? (try? frameInterval())
        var negotiated = NegotiatedFormat(
            width: set.width, height: set.height, fourcc: set.fourcc, pixelFormat: pixelFormat, bytesPerLine: bytesPerLine,
            frameSize: pixelFormat.isCompressed ? 1 : pixelFormat.frameSize(width: set.width, height: set.height, bytesPerLine: bytesPerLine),
            frameInterval: interval)
        negotiated.isEmulated = set.fourcc == fourcc && choice.mode.isEmulated
        negotiated.modeSummary = choice.summary
        return negotiated
    }
}
