import CZXing
import Media

/// What a `BarcodeReader` looks for and how hard: zxing-cpp's `ZXing::DecodeHints`.
///
/// `symbologies` outside `BarcodeReader.readable` are ignored. The three switches are zxing's
/// `setTryHarder`, `setTryRotate` and `setTryDownscale` (syncscan's `zxing.*` keys), except that
/// downscaling is only ever on for 2-D codes: see `effectiveTryDownscale`.
public struct ZXingHints: Sendable, Hashable {
    public var symbologies: Set<Symbology>
    /// More scan lines and binarizer passes; finds more, costs more (`DecodeHints::setTryHarder`).
    public var tryHarder: Bool
    /// Also read the frame turned 90° (`setTryRotate`); needed for 1-D codes standing upright.
    public var tryRotate: Bool
    /// Also read downscaled copies of large frames (`setTryDownscale`); see `effectiveTryDownscale`.
    public var tryDownscale: Bool

    public init(symbologies: Set<Symbology> = Symbology.defaults, tryHarder: Bool = true,
                tryRotate: Bool = true, tryDownscale: Bool = true) {
        self.symbologies = symbologies
        self.tryHarder = tryHarder
        self.tryRotate = tryRotate
        self.tryDownscale = tryDownscale
    }

    /// `tryDownscale` as passed to zxing-cpp: off whenever a 1-D symbology is requested.
    ///
    /// Debian's zxing-cpp 1.4.0 aborts the process on an assertion (`Result::operator==`,
    /// `lineCount() == 1`) for some large EAN-13 and other 1-D frames when downscaling is on
    /// and 1-D formats are enabled: it merges a downscaled pass's 1-D result with a full-size
    /// one. An abort cannot be caught, so downscaling is dropped for such hints.
    public var effectiveTryDownscale: Bool {
        tryDownscale && !symbologies.contains { !$0.isTwoDimensional && BarcodeReader.readable.contains($0) }
    }

    /// The `CZXING_FORMAT_*` bits of the readable symbologies.
    var formatBits: UInt32 {
        symbologies.reduce(0) { $0 | ($1.zxingFormat ?? 0) }
    }
}

extension Symbology {
    /// zxing-cpp's `BarcodeFormat` bit (`CZXING_FORMAT_*`); `nil` for one zxing-cpp 1.4 cannot read.
    var zxingFormat: UInt32? {
        let bit: Int? = switch self {
        case .qrcode: CZXING_FORMAT_QRCODE
        case .microqr: CZXING_FORMAT_MICROQRCODE
        case .aztec: CZXING_FORMAT_AZTEC
        case .datamatrix: CZXING_FORMAT_DATAMATRIX
        case .pdf417: CZXING_FORMAT_PDF417
        case .maxicode: CZXING_FORMAT_MAXICODE
        case .ean13: CZXING_FORMAT_EAN13
        case .ean8: CZXING_FORMAT_EAN8
        case .upca: CZXING_FORMAT_UPCA
        case .upce: CZXING_FORMAT_UPCE
        case .i25: CZXING_FORMAT_ITF
        case .databar: CZXING_FORMAT_DATABAR
        case .databarExp: CZXING_FORMAT_DATABAR_EXPANDED
        case .codabar: CZXING_FORMAT_CODABAR
        case .code39: CZXING_FORMAT_CODE39
        case .code93: CZXING_FORMAT_CODE93
        case .code128: CZXING_FORMAT_CODE128
        case .sqcode, .ean2, .ean5, .isbn10, .isbn13: nil
        }
        return bit.map { UInt32($0) }
    }

    /// The symbology of a zxing-cpp format bit; `nil` for none or several.
    init?(zxingFormat bits: UInt32) {
        guard let match = Symbology.allCases.first(where: { $0.zxingFormat == bits }) else { return nil }
        self = match
    }
}
