import Media
import ZBar
import ZXing

/// Which library decodes which symbology: zbar, zxing-cpp, or both split by symbology (`engine`).
///
/// `hybrid` sends the 2-D symbologies zxing-cpp reads (QR, Micro QR, Aztec, DataMatrix, PDF417,
/// MaxiCode) to zxing-cpp and every other symbology to zbar, in the same scanning thread.
public enum DecoderEngine: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case zbar, zxing, hybrid

    public var description: String { rawValue }

    /// The symbologies zxing-cpp 1.4 reads.
    public static var zxingReadable: Set<Symbology> { BarcodeReader.readable }

    /// Everything this engine reads: what `symbologies: all` means.
    public var readable: Set<Symbology> {
        switch self {
        case .zbar: Symbology.zbarReadable
        case .zxing: Self.zxingReadable
        case .hybrid: Symbology.zbarReadable.union(Self.zxingReadable)
        }
    }

    /// The part of `symbologies` that goes to zxing-cpp; the rest goes to zbar.
    public func zxingPart(of symbologies: Set<Symbology>) -> Set<Symbology> {
        switch self {
        case .zbar: []
        case .zxing: symbologies
        case .hybrid: symbologies.filter { $0.isTwoDimensional && Self.zxingReadable.contains($0) }
        }
    }

    /// The engines that read `symbology`, for an error that names them.
    public static func engines(reading symbology: Symbology) -> [DecoderEngine] {
        allCases.filter { $0.readable.contains(symbology) }
    }
}

/// zxing-cpp's decode hints that a user may turn off to trade recall for speed (`zxing.*` keys).
public struct ZXingSettings: Sendable, Hashable {
    /// Look harder: more scan lines and binarizer passes (`DecodeHints::setTryHarder`).
    public var tryHarder = true
    /// Also try the frame turned 90° (`setTryRotate`).
    public var tryRotate = true
    /// Also try downscaled copies, which finds large codes faster (`setTryDownscale`).
    public var tryDownscale = true

    public init(tryHarder: Bool = true, tryRotate: Bool = true, tryDownscale: Bool = true) {
        (self.tryHarder, self.tryRotate, self.tryDownscale) = (tryHarder, tryRotate, tryDownscale)
    }
}
