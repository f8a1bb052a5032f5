import CZXing
import Media

/// What a `BarcodeReader` looks for and how hard: zxing-cpp's `ZXing_ReaderOptions`.
///
/// `symbologies` outside `BarcodeReader.readable` are ignored. The switches are
/// `ZXing_ReaderOptions_setTryHarder`, `_setTryRotate`, `_setTryInvert` and `_setTryDownscale`
/// (syncscan's `zxing.*` keys set three), `_setBinarizer`, `_setReturnErrors` and `_setEanAddOnSymbol`
/// (`ean.addon`), passed as they are.
public struct ZXingHints: Sendable, Hashable {
    /// How zxing-cpp turns grey into black and white (`ZXing_Binarizer`).
    public enum Binarizer: Sendable, Hashable {
        /// zxing-cpp's default, a threshold per block (`ZXing_Binarizer_LocalAverage`).
        case localAverage
        /// One threshold per row from its histogram (`ZXing_Binarizer_GlobalHistogram`): reads
        /// blurred 1-D codes the default misses.
        case globalHistogram
    }

    public var symbologies: Set<Symbology>
    /// More scan lines and binarizer passes; finds more, costs more (`ZXing_ReaderOptions_setTryHarder`).
    public var tryHarder: Bool
    /// Also read the frame turned 90° (`_setTryRotate`); needed for 1-D codes standing upright.
    public var tryRotate: Bool
    /// Also read downscaled copies of large frames (`_setTryDownscale`).
    public var tryDownscale: Bool
    /// Also read the frame inverted, light on dark (`_setTryInvert`; zxing-cpp's default is on).
    public var tryInvert: Bool
    public var binarizer: Binarizer
    /// Also count codes zxing-cpp detected but could not decode (`_setReturnErrors`): what
    /// `BarcodeReader.readCounting` reports as `undecoded`; they are never returned as codes.
    public var returnErrors: Bool
    /// EAN/UPC add-ons (`_setEanAddOnSymbol`): read, required or ignored.
    public var eanAddOn: EANAddOn

    public init(symbologies: Set<Symbology> = Symbology.defaults, tryHarder: Bool = true,
                tryRotate: Bool = true, tryDownscale: Bool = true, tryInvert: Bool = true,
                binarizer: Binarizer = .localAverage, returnErrors: Bool = false, eanAddOn: EANAddOn = .read) {
        self.symbologies = symbologies
        self.tryHarder = tryHarder
        self.tryRotate = tryRotate
        self.tryDownscale = tryDownscale
        self.tryInvert = tryInvert
        self.binarizer = binarizer
        self.returnErrors = returnErrors
        self.eanAddOn = eanAddOn
    }

    /// The zxing-cpp formats of the readable symbologies, in a stable order; empty means read
    /// nothing (not zxing-cpp's "all").
    var formats: [ZXing_BarcodeFormat] {
        Symbology.allCases.filter(symbologies.contains).flatMap(\.zxingFormats)
    }
}

extension Symbology {
    /// The zxing-cpp formats asked for when this symbology is requested; empty for one zxing-cpp cannot read.
    ///
    /// A symbology format (`QRCode`, `Aztec`, `PDF417`, `Code39`, `ITF`) stands for all its variants;
    /// QR asks for models 1 and 2 only, so that Micro QR and rMQR stay their own choices, and DataBar
    /// is split as zbar splits it (omnidirectional and stacked; expanded), Limited its own.
    var zxingFormats: [ZXing_BarcodeFormat] {
        switch self {
        case .qrcode: [ZXing_BarcodeFormat_QRCodeModel1, ZXing_BarcodeFormat_QRCodeModel2]
        case .microqr: [ZXing_BarcodeFormat_MicroQRCode]
        case .rmqr: [ZXing_BarcodeFormat_RMQRCode]
        case .databarLtd: [ZXing_BarcodeFormat_DataBarLtd]
        case .dxfilmedge: [ZXing_BarcodeFormat_DXFilmEdge]
        case .aztec: [ZXing_BarcodeFormat_Aztec]
        case .datamatrix: [ZXing_BarcodeFormat_DataMatrix]
        case .pdf417: [ZXing_BarcodeFormat_PDF417]
        case .maxicode: [ZXing_BarcodeFormat_MaxiCode]
        case .ean13: [ZXing_BarcodeFormat_EAN13]
        case .ean8: [ZXing_BarcodeFormat_EAN8]
        case .upca: [ZXing_BarcodeFormat_UPCA]
        case .upce: [ZXing_BarcodeFormat_UPCE]
        case .i25: [ZXing_BarcodeFormat_ITF]
        case .databar: [ZXing_BarcodeFormat_DataBarOmni, ZXing_BarcodeFormat_DataBarStk, ZXing_BarcodeFormat_DataBarStkOmni]
        case .databarExp: [ZXing_BarcodeFormat_DataBarExp, ZXing_BarcodeFormat_DataBarExpStk]
        case .codabar: [ZXing_BarcodeFormat_Codabar]
        case .code39: [ZXing_BarcodeFormat_Code39]
        case .code93: [ZXing_BarcodeFormat_Code93]
        case .code128: [ZXing_BarcodeFormat_Code128]
        case .sqcode, .ean2, .ean5, .isbn10, .isbn13: []
        }
    }

    /// The symbology of a format zxing-cpp returned: the one asking for that exact format, else the
    /// first one asking for a format of its symbology (`ZXing_BarcodeFormatSymbology`: a `QRCode`
    /// result is `.qrcode`, which asks for models 1 and 2; `AztecRune` is `.aztec`); `nil` for none.
    init?(zxingFormat format: ZXing_BarcodeFormat) {
        let base = ZXing_BarcodeFormatSymbology(format)
        guard let match = Symbology.allCases.first(where: { $0.zxingFormats.contains(format) })
            ?? Symbology.allCases.first(where: { $0.zxingFormats.contains { ZXing_BarcodeFormatSymbology($0) == base } })
        else { return nil }
        self = match
    }
}

extension EANAddOn {
    /// zxing-cpp's `ZXing_EanAddOnSymbol`.
    var zxing: ZXing_EanAddOnSymbol {
        switch self {
        case .read: ZXing_EanAddOnSymbol_Read
        case .require: ZXing_EanAddOnSymbol_Require
        case .ignore: ZXing_EanAddOnSymbol_Ignore
        }
    }
}
