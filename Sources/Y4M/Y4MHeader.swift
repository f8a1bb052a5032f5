import Media
import SystemCalls

/// A ratio from a Y4M tag, `n:d` (frame rate `F`, pixel aspect `A`).
public struct Y4MRatio: Sendable, Hashable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public init(_ numerator: Int, _ denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    public var description: String { "\(numerator):\(denominator)" }
}

/// How the frames of a Y4M stream are interlaced (`I` tag). The bytes of a frame are laid out
/// the same way in every case, so all are read; barcodes in interlaced frames may scan worse.
public enum Y4MInterlacing: String, Sendable, Hashable {
    case progressive = "p"
    case topFieldFirst = "t"
    case bottomFieldFirst = "b"
    case mixed = "m"
    case unknown = "?"
}

/// The stream header of a YUV4MPEG2 file: `YUV4MPEG2` then space-separated tags.
///
/// `W` and `H` are required; `F` defaults to 25:1 when absent or `0:0` (as ffmpeg does);
/// `I`, `A` and `X` are optional; a missing `C` means `420jpeg` as the format specifies.
/// Unknown tags are ignored, as the format asks readers to do.
public struct Y4MHeader: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// Frames per second, `numerator / denominator`.
    public var frameRate: Y4MRatio
    /// Whether `frameRate` came from the header (false: the 25:1 default).
    public var frameRateIsFromHeader: Bool
    public var interlacing: Y4MInterlacing
    /// Pixel aspect ratio; `nil` when absent, `0:0` when the header says unknown.
    public var pixelAspectRatio: Y4MRatio?
    /// The `C` tag's value as written (`420jpeg` when absent).
    public var colourSpace: String
    public var pixelFormat: PixelFormat

    /// The frame rate used when the header has none.
    public static let defaultFrameRate = Y4MRatio(25, 1)
    /// The largest width or height accepted.
    public static let maximumDimension = 16_384
    /// The largest frame payload accepted, in bytes (256 MiB).
    public static let maximumFrameByteCount = 1 << 28

    /// The magic that starts every stream.
    static let magic: [UInt8] = Array("YUV4MPEG2".utf8)

    /// Bytes per row of the luma plane: Y4M rows are unpadded.
    public var bytesPerLine: Int { width }

    /// Bytes of one frame's pixels after its `FRAME` line: the luma plane then, for colour,
    /// two chroma planes of `ceil(W/2) x ceil(H/2)` (4:2:0), `ceil(W/2) x H` (4:2:2) or `W x H`
    /// (4:4:4), unpadded: `PixelFormat.frameSize` at a stride of `width`.
    public var frameByteCount: Int {
        pixelFormat.frameSize(width: width, height: height, bytesPerLine: bytesPerLine)
    }

    /// The presentation time of frame `sequenceNumber` at `frameRate`, rounded down to a nanosecond.
    public func presentationTime(ofFrame sequenceNumber: UInt64) -> MediaTime {
        let nanoseconds = Int128(sequenceNumber) * Int128(frameRate.denominator) * 1_000_000_000
            / Int128(frameRate.numerator)
        return MediaTime(nanoseconds: Int64(clamping: nanoseconds))
    }

    public init(width: Int, height: Int, frameRate: Y4MRatio = Y4MHeader.defaultFrameRate,
                frameRateIsFromHeader: Bool = true, interlacing: Y4MInterlacing = .progressive,
                pixelAspectRatio: Y4MRatio? = nil, colourSpace: String, pixelFormat: PixelFormat) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.frameRateIsFromHeader = frameRateIsFromHeader
        self.interlacing = interlacing
        self.pixelAspectRatio = pixelAspectRatio
        self.colourSpace = colourSpace
        self.pixelFormat = pixelFormat
    }

    /// The pixel format for a `C` tag value, or `nil` if it is not one this input reads.
    public static func pixelFormat(forColourSpace colourSpace: String) -> PixelFormat? {
        switch colourSpace {
        case "mono": .grey
        case "420", "420jpeg", "420paldv", "420mpeg2": .yuv420
        case "422": .yuv422p
        case "444": .yuv444p
        default: nil
        }
    }

    /// Parses a header line (without its newline), `YUV4MPEG2` included.
    ///
    /// The caller has checked the magic; a line that does not start with it is still rejected.
    static func parse(line: some Collection<UInt8>, path: String) throws(IOError) -> Y4MHeader {
        guard line.starts(with: magic) else { throw .notY4M(path: path, found: quotedBytes(line)) }
        let rest = line.dropFirst(magic.count)
        guard rest.isEmpty || rest.first == 0x20 else {
            throw .notY4M(path: path, found: quotedBytes(line))
        }

        var width: Int?
        var height: Int?
        var frameRate: Y4MRatio?
        var interlacing = Y4MInterlacing.progressive
        var aspect: Y4MRatio?
        var colourSpace = "420jpeg"

        for token in rest.split(separator: 0x20, omittingEmptySubsequences: true) {
            let tag = String(decoding: token, as: UTF8.self)
            let value = tag.dropFirst()
            switch token.first {
            case UInt8(ascii: "W"): width = try dimension(value, tag: tag, name: "width")
            case UInt8(ascii: "H"): height = try dimension(value, tag: tag, name: "height")
            case UInt8(ascii: "F"):
                let rate = try ratio(value, tag: tag, name: "frame rate")
                if rate.numerator == 0 && rate.denominator == 0 {
                    frameRate = nil
                } else if rate.numerator == 0 || rate.denominator == 0 {
                    throw .malformedTag(tag, reason: "frame rate must be N:D with both positive (e.g. F30000:1001), or 0:0 for unknown")
                } else {
                    frameRate = rate
                }
            case UInt8(ascii: "I"):
                guard let mode = Y4MInterlacing(rawValue: String(value)) else {
                    throw .malformedTag(tag, reason: "interlacing must be one of p, t, b, m, ?")
                }
                interlacing = mode
            case UInt8(ascii: "A"): aspect = try ratio(value, tag: tag, name: "pixel aspect ratio")
            case UInt8(ascii: "C"):
                guard !value.isEmpty else { throw .malformedTag(tag, reason: "colour space is empty") }
                colourSpace = String(value)
            default:
                break  // X (extension) and unknown tags carry nothing this reader needs.
            }
        }

        guard let width else { throw .missingTag("W") }
        guard let height else { throw .missingTag("H") }
        guard let format = pixelFormat(forColourSpace: colourSpace) else {
            throw .unsupportedColourSpace(colourSpace)
        }
        let bytes = format.frameSize(width: width, height: height, bytesPerLine: width)
        guard bytes <= maximumFrameByteCount else {
            throw .frameTooLarge(width: width, height: height, bytes: bytes, limit: maximumFrameByteCount)
        }
        return Y4MHeader(width: width, height: height, frameRate: frameRate ?? defaultFrameRate,
                         frameRateIsFromHeader: frameRate != nil, interlacing: interlacing,
                         pixelAspectRatio: aspect, colourSpace: colourSpace, pixelFormat: format)
    }

    /// A decimal number of at most 9 digits, no sign.
    private static func number(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.count <= 9,
              digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(digits)
    }

    private static func dimension(_ value: Substring, tag: String, name: String) throws(IOError) -> Int {
        guard let n = number(value), n >= 1, n <= maximumDimension else {
            throw .malformedTag(tag, reason: "\(name) must be a whole number from 1 to \(maximumDimension)")
        }
        return n
    }

    private static func ratio(_ value: Substring, tag: String, name: String) throws(IOError) -> Y4MRatio {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = number(parts[0]), let d = number(parts[1]) else {
            throw .malformedTag(tag, reason: "\(name) must be two whole numbers N:D")
        }
        return Y4MRatio(n, d)
    }
}
