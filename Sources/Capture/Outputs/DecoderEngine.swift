import Media
import ZBar
import ZXing

/// Which library decodes which symbology: zbar, zxing-cpp, or both (`engine`).
///
/// `hybrid` runs both in the same scanning thread, each on every requested symbology it reads,
/// so it reads at least what either reads alone: zxing-cpp is the stronger on most 2-D codes,
/// zbar on 1-D codes and on low-contrast QR. A code both read is reported once, as read by
/// zxing-cpp for a 2-D symbology and by zbar for a 1-D one (`preferred(for:)`). It costs about
/// what zbar and zxing-cpp cost together. Each library reads in one or more passes
/// (`DecoderPass.passes(for:symbologies:)`); `ScanEffort` picks which a frame gets.
public enum DecoderEngine: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case zbar, zxing, hybrid

    public var description: String { rawValue }

    /// The symbologies zxing-cpp 3.1.1 reads (`BarcodeReader.readable`).
    public static var zxingReadable: Set<Symbology> { BarcodeReader.readable }

    /// Everything this engine reads: what `symbologies: all` means.
    public var readable: Set<Symbology> {
        switch self {
        case .zbar: Symbology.zbarReadable
        case .zxing: Self.zxingReadable
        case .hybrid: Symbology.zbarReadable.union(Self.zxingReadable)
        }
    }

    /// The part of `symbologies` that zxing-cpp reads with this engine.
    public func zxingPart(of symbologies: Set<Symbology>) -> Set<Symbology> {
        switch self {
        case .zbar: []
        case .zxing: symbologies
        case .hybrid: symbologies.intersection(Self.zxingReadable)
        }
    }

    /// The part of `symbologies` that zbar reads with this engine.
    public func zbarPart(of symbologies: Set<Symbology>) -> Set<Symbology> {
        switch self {
        case .zbar: symbologies
        case .zxing: []
        case .hybrid: symbologies.intersection(Symbology.zbarReadable)
        }
    }

    /// Whose reading of a code both libraries read is kept: zxing-cpp's for 2-D symbologies
    /// (its corners are the code's own), zbar's for 1-D ones (they carry zbar's quality).
    public static func preferred(for symbology: Symbology) -> DecoderEngine {
        symbology.isTwoDimensional ? .zxing : .zbar
    }

    /// The engines that read `symbology`, for an error that names them.
    public static func engines(reading symbology: Symbology) -> [DecoderEngine] {
        allCases.filter { $0.readable.contains(symbology) }
    }
}

/// zxing-cpp's decode hints that a user may turn off to trade recall for speed (`zxing.*` keys).
public struct ZXingSettings: Sendable, Hashable {
    /// Look harder: more scan lines and binarizer passes (`ZXing_ReaderOptions_setTryHarder`).
    public var tryHarder = true
    /// Also try the frame turned 90° (`setTryRotate`).
    public var tryRotate = true
    /// Also try downscaled copies, which finds large codes faster (`setTryDownscale`).
    public var tryDownscale = true

    public init(tryHarder: Bool = true, tryRotate: Bool = true, tryDownscale: Bool = true) {
        (self.tryHarder, self.tryRotate, self.tryDownscale) = (tryHarder, tryRotate, tryDownscale)
    }
}
