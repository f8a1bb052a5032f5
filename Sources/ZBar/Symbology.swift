import CZBar
import Media

extension Symbology {
    /// The symbologies zbar reads: every one with a zbar symbol type.
    public static let zbarReadable = Set(allCases.filter { $0.zbarType != nil })

    var zbarType: zbar_symbol_type_t? {
        switch self {
        case .qrcode: ZBAR_QRCODE
        case .sqcode: ZBAR_SQCODE
        case .ean13: ZBAR_EAN13
        case .ean8: ZBAR_EAN8
        case .ean2: ZBAR_EAN2
        case .ean5: ZBAR_EAN5
        case .upca: ZBAR_UPCA
        case .upce: ZBAR_UPCE
        case .isbn10: ZBAR_ISBN10
        case .isbn13: ZBAR_ISBN13
        case .i25: ZBAR_I25
        case .databar: ZBAR_DATABAR
        case .databarExp: ZBAR_DATABAR_EXP
        case .codabar: ZBAR_CODABAR
        case .code39: ZBAR_CODE39
        case .code93: ZBAR_CODE93
        case .code128: ZBAR_CODE128
        case .pdf417: ZBAR_PDF417
        case .aztec, .datamatrix, .maxicode, .microqr: nil
        }
    }

    init?(zbarType: zbar_symbol_type_t) {
        guard let match = Symbology.allCases.first(where: { $0.zbarType == zbarType }) else { return nil }
        self = match
    }
}

extension SymbolOrientation {
    /// zbar's `zbar_orientation_t`.
    init(_ o: zbar_orientation_t) {
        switch o {
        case ZBAR_ORIENT_UP: self = .up
        case ZBAR_ORIENT_RIGHT: self = .right
        case ZBAR_ORIENT_DOWN: self = .down
        case ZBAR_ORIENT_LEFT: self = .left
        default: self = .unknown
        }
    }
}

