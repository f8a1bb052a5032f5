import Media

/// One (format, size) a camera offers, with the frame intervals it enumerates at that size
/// (VIDIOC_ENUM_FMT, VIDIOC_ENUM_FRAMESIZES, VIDIOC_ENUM_FRAMEINTERVALS).
public struct CaptureMode: Sendable, Hashable {
    public var fourcc: FourCC
    public var width: Int
    public var height: Int
    /// `V4L2_FMT_FLAG_COMPRESSED` (MJPEG).
    public var isCompressed: Bool
    /// `V4L2_FMT_FLAG_EMULATED`: libv4l2 converts to it from the camera's own format.
    public var isEmulated: Bool
    /// As enumerated at this size; empty when the driver does not enumerate intervals.
    public var intervals: [V4L2FrameInterval]

    public init(fourcc: FourCC, width: Int, height: Int, isCompressed: Bool = false, isEmulated: Bool = false,
                intervals: [V4L2FrameInterval]) {
        self.fourcc = fourcc
        self.width = width
        self.height = height
        self.isCompressed = isCompressed
        self.isEmulated = isEmulated
        self.intervals = intervals
    }

    /// The fastest rates first, as `syncscan devices` and error messages show them: `30, 15 fps`,
    /// `5–30 fps` for a range, `? fps` when not enumerated.
    public var ratesText: String {
        if intervals.isEmpty { return "? fps" }
        var discrete: [Double] = []
        var ranges: [String] = []
        for interval in intervals {
            switch interval {
            case .discrete(let f): discrete.append(f.framesPerSecond)
            case .stepwise(let minimum, let maximum, _):
                ranges.append("\(CaptureModeSelection.fpsText(maximum.framesPerSecond))–\(CaptureModeSelection.fpsText(minimum.framesPerSecond))")
            }
        }
        return (discrete.sorted(by: >).map(CaptureModeSelection.fpsText) + ranges).joined(separator: ", ") + " fps"
    }

    /// `YUYV 1280x720 at 10, 7.5, 5 fps`.
    public var description: String { "\(fourcc) \(width)x\(height) at \(ratesText)" }
}

/// What the configuration asks of the mode (`device.*`, `--fourcc/--width/--height/--fps`).
public struct CaptureModeRequest: Sendable, Hashable {
    public var fourcc: FourCC?
    public var width: Int?
    public var height: Int?
    /// The highest rate wanted (`device.fps`); `nil`: `defaultFramesPerSecond`.
    public var framesPerSecond: Double?
    /// The floor (`device.min_fps`): a largest size slower than this gives way to a smaller,
    /// faster one; 0: none.
    public var minimumFramesPerSecond: Double
    public var maximumWidth: Int
    public var maximumHeight: Int
    /// Whether MJPEG can be captured as MJPEG (a decoder was given); if not, only libv4l2's
    /// conversions of it are candidates.
    public var decodesMJPEG: Bool

    /// The rate aimed at without `device.fps`.
    public static let defaultFramesPerSecond = 30.0

    public init(fourcc: FourCC? = nil, width: Int? = nil, height: Int? = nil, framesPerSecond: Double? = nil,
                minimumFramesPerSecond: Double = 10, maximumWidth: Int = 1280, maximumHeight: Int = 720, decodesMJPEG: Bool = false) {
        self.fourcc = fourcc
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.minimumFramesPerSecond = minimumFramesPerSecond
        self.maximumWidth = maximumWidth
        self.maximumHeight = maximumHeight
        self.decodesMJPEG = decodesMJPEG
    }

    /// The settings the choice followed, for `syncscan devices`: `device.fps 30 (default),
    /// device.min_fps 10, within 1280x720`.
    public var settingsText: String {
        var parts: [String] = []
        if let fourcc { parts.append("device.fourcc \(fourcc)") }
        if let width, let height { parts.append("device.width/height \(width)x\(height)") }
        parts.append("device.fps " + (framesPerSecond.map(CaptureModeSelection.fpsText) ?? "\(CaptureModeSelection.fpsText(Self.defaultFramesPerSecond)) (default)"))
        parts.append("device.min_fps \(CaptureModeSelection.fpsText(minimumFramesPerSecond))")
        if width == nil || height == nil { parts.append("within \(maximumWidth)x\(maximumHeight)") }
        return parts.joined(separator: ", ")
    }

    /// The rate aimed at: `device.fps`, else 30.
    public var targetFramesPerSecond: Double { framesPerSecond ?? Self.defaultFramesPerSecond }
}

/// The mode chosen, the interval to set with VIDIOC_S_PARM, and what it beat.
public struct CaptureModeChoice: Sendable, Hashable {
    public var mode: CaptureMode
    /// The time per frame to ask for; `nil` when the driver enumerates no intervals (then
    /// `targetFramesPerSecond` is asked for).
    public var interval: V4L2Fraction?
    /// One line: the mode, its rate, and what it beat (`1280x720 MJPG at 30 fps; YUYV gives 10 fps at this size`).
    public var summary: String
}

/// Chooses the capture mode by frame rate, as AVFoundation's `bestFrameRateForDevice` does.
///
/// 1. Candidates: every enumerated mode of a format syncscan reads (GREY, the YUV layouts, MJPEG
///    when it can decode it, libv4l2's conversions), narrowed by the requested fourcc and size.
/// 2. The size: the largest within `maximumWidth`×`maximumHeight` (or the one asked for), unless
///    its fastest rate (up to the target) is under the floor (`min(minimumFramesPerSecond, target)`): then the largest
///    size that reaches the floor, or, if none does, the fastest size.
/// 3. At that size, the format and interval with the highest rate not above the target
///    (`device.fps`, 30 when unset; a mode with only faster rates offers its slowest). Ties go to
///    the format cheapest to scan: GREY, then the YUV layouts, then MJPEG, then libv4l2's conversions.
///
/// Pure: the V4L2 calls are the caller's (`V4L2Device.captureModes`, `negotiateFormat`).
public enum CaptureModeSelection {
    /// Rates closer than this are equal (7.5 fps is 2/15 s, not a round number of nanoseconds).
    static let rateTolerance = 0.001

    /// What it costs to scan a frame of `mode`: 0 GREY, 1 a YUV layout, 2 MJPEG decoded by
    /// syncscan, 3 a libv4l2 conversion; `nil` for a format syncscan cannot read.
    public static func cost(of mode: CaptureMode, decodesMJPEG: Bool) -> Int? {
        guard let format = mode.fourcc.pixelFormat else { return nil }
        if mode.isEmulated { return format.isCompressed ? nil : 3 }
        if format.isCompressed { return decodesMJPEG ? 2 : nil }
        return format == .grey ? 0 : 1
    }

    /// The interval of `mode` with the highest rate not above `target`, else its slowest one; with
    /// its rate. `nil` when the driver enumerates none.
    public static func bestInterval(of mode: CaptureMode, target: Double) -> (interval: V4L2Fraction, framesPerSecond: Double)? {
        var options: [(V4L2Fraction, Double)] = []
        for interval in mode.intervals {
            switch interval {
            case .discrete(let f) where f.numerator > 0 && f.denominator > 0:
                options.append((f, f.framesPerSecond))
            case .discrete:
                continue
            case .stepwise(let minimum, let maximum, let step):
                let fastest = minimum.framesPerSecond, slowest = maximum.framesPerSecond
                if target >= fastest - rateTolerance || fastest == 0 {
                    options.append((minimum, fastest))
                } else if target <= slowest + rateTolerance {
                    options.append((maximum, slowest))
                } else {
                    // The shortest minimum + k·step not shorter than 1/target.
                    let first = 1 / max(fastest, 1e-9), stepSeconds = step.numerator == 0 || step.denominator == 0
                        ? 0 : Double(step.numerator) / Double(step.denominator)
                    let k = stepSeconds > 0 ? ((1 / target - first) / stepSeconds - 1e-9).rounded(.up) : 0
                    let seconds = stepSeconds > 0 ? first + k * stepSeconds : 1 / target
                    let f = V4L2Fraction(framesPerSecond: 1 / seconds)
                    options.append((f, f.framesPerSecond))
                }
            }
        }
        let notAbove = options.filter { $0.1 <= target + rateTolerance }
        if let best = notAbove.max(by: { $0.1 < $1.1 }) { return best }
        return options.min { $0.1 < $1.1 }
    }

    /// The highest rate `mode` enumerates; `nil` when it enumerates none.
    static func fastestRate(of mode: CaptureMode) -> Double? {
        mode.intervals.map { interval -> Double in
            switch interval {
            case .discrete(let f): f.framesPerSecond
            case .stepwise(let minimum, _, _): minimum.framesPerSecond
            }
        }.max()
    }

    /// The mode to capture in `modes` for `request`, or a problem naming what the camera offers.
    public static func choose(from modes: [CaptureMode], request: CaptureModeRequest) -> Result<CaptureModeChoice, CaptureModeProblem> {
        let target = request.targetFramesPerSecond
        let readable = modes.filter { cost(of: $0, decodesMJPEG: request.decodesMJPEG) != nil }
        let narrowed = readable.filter { mode in
            (request.fourcc == nil || mode.fourcc == request.fourcc)
                && (request.width == nil || mode.width == request.width) && (request.height == nil || mode.height == request.height)
        }
        guard !narrowed.isEmpty else {
            return .failure(CaptureModeProblem(request: request, offered: readable, all: modes))
        }
        /// A mode's rate under the target; the target itself when the driver does not say.
        func rate(_ mode: CaptureMode) -> Double { bestInterval(of: mode, target: target)?.framesPerSecond ?? target }
        let limit = (width: request.width ?? request.maximumWidth, height: request.height ?? request.maximumHeight)
        var sizes: [(width: Int, height: Int)] = []
        for mode in narrowed where !sizes.contains(where: { $0 == (mode.width, mode.height) }) { sizes.append((mode.width, mode.height)) }
        let fitting = sizes.filter { $0.width <= limit.width && $0.height <= limit.height }
        let bySizeDescending = (fitting.isEmpty ? [sizes.min { $0.width * $0.height < $1.width * $1.height }!] : fitting)
            .sorted { $0.width * $0.height > $1.width * $1.height }
        /// The fastest the size goes, up to the target (what the floor is compared with).
        func bestRate(_ size: (width: Int, height: Int)) -> Double {
            let fastest = narrowed.filter { $0.width == size.width && $0.height == size.height }
                .map { fastestRate(of: $0) ?? target }.max() ?? 0
            return min(fastest, target)
        }
        let floor = request.minimumFramesPerSecond > 0 ? min(request.minimumFramesPerSecond, target) : 0
        let size = bySizeDescending.first { bestRate($0) >= floor - rateTolerance }
            ?? bySizeDescending.max { bestRate($0) < bestRate($1) - rateTolerance }!
        let atSize = narrowed.filter { $0.width == size.width && $0.height == size.height }
        let chosen = atSize.enumerated().min { a, b in
            let (ra, rb) = (rate(a.element), rate(b.element))
            if abs(ra - rb) > rateTolerance { return ra > rb }
            let (ca, cb) = (cost(of: a.element, decodesMJPEG: true)!, cost(of: b.element, decodesMJPEG: true)!)
            return ca != cb ? ca < cb : a.offset < b.offset
        }!.element
        let interval = bestInterval(of: chosen, target: target)
        var summary = "\(size.width)x\(size.height) \(chosen.fourcc) at \(interval.map { fpsText($0.framesPerSecond) } ?? "? (not enumerated;")"
            + (interval == nil ? " asking \(fpsText(target)))" : " fps")
        var beaten: [String] = []
        var named: Set<FourCC> = [chosen.fourcc]
        for other in atSize where !named.contains(other.fourcc) {
            named.insert(other.fourcc)
            beaten.append("\(other.fourcc) gives \(fpsText(rate(other))) fps at this size")
        }
        for larger in bySizeDescending where larger.width * larger.height > size.width * size.height {
            beaten.append("\(larger.width)x\(larger.height) gives at most \(fpsText(bestRate(larger))) fps, under device.min_fps \(fpsText(floor))")
        }
        if !beaten.isEmpty { summary += "; " + beaten.joined(separator: "; ") }
        return .success(CaptureModeChoice(mode: chosen, interval: interval?.interval, summary: summary))
    }

    /// `30`, `7.5`, `12.5`: a rate with at most three decimals, no trailing zeros.
    public static func fpsText(_ value: Double) -> String { DecimalText.string(value, fractionDigits: 3) }
}

/// No enumerated mode fits the request: what was asked and what the camera offers.
public struct CaptureModeProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var request: CaptureModeRequest
    /// The modes syncscan could read.
    public var offered: [CaptureMode]
    /// Every enumerated mode.
    public var all: [CaptureMode]

    public var description: String {
        var asked: [String] = []
        if let fourcc = request.fourcc { asked.append("\(fourcc)") }
        if let w = request.width, let h = request.height { asked.append("\(w)x\(h)") }
        else if let w = request.width { asked.append("width \(w)") }
        else if let h = request.height { asked.append("height \(h)") }
        let wanted = asked.isEmpty ? "a format syncscan reads" : asked.joined(separator: " ")
        let list = (offered.isEmpty ? all : offered).map(\.description).joined(separator: "; ")
        var text = "the camera has no \(wanted); it offers \(list.isEmpty ? "no modes" : list)"
        if request.fourcc == .mjpeg, !request.decodesMJPEG { text += " (MJPEG is read only through libv4l2's conversion here)" }
        if offered.isEmpty, !all.isEmpty { text += " (none of them in a format syncscan reads)" }
        return text
    }
}
