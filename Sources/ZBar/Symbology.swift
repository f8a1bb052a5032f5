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
        case .aztec, .datamatrix, .maxicode, .microqr, .rmqr, .databarLtd, .dxfilmedge: nil
        }
    }

    /// The AIM symbology identifier (ISO/IEC 15424) of a code zbar read as this symbology, with
    /// `zbar_symbol_get_modifiers`' flags: `ZBAR_MOD_GS1` (FNC1 in first position) gives `]C1` and
    /// `]Q3`, `ZBAR_MOD_AIM` (FNC1 in second position) `]C2` and `]Q5`. zbar reports neither ECI nor
    /// check-digit options, so QR is `]Q1`, Code 39 `]A0`, ITF `]I0`; an add-on read alone is `]E1`
    /// (EAN-2) or `]E2` (EAN-5). `nil` for SQ (no AIM identifier).
    func aimIdentifier(modifiers: UInt32) -> String? {
        let gs1 = modifiers & (1 << ZBAR_MOD_GS1.rawValue) != 0, aim = modifiers & (1 << ZBAR_MOD_AIM.rawValue) != 0
        switch self {
        case .qrcode: return gs1 ? "]Q3" : aim ? "]Q5" : "]Q1"
        case .code128: return gs1 ? "]C1" : aim ? "]C2" : "]C0"
        case .ean13, .upca, .upce, .isbn10, .isbn13: return "]E0"
        case .ean8: return "]E4"
        case .ean2: return "]E1"
        case .ean5: return "]E2"
        case .i25: return "]I0"
        case .databar, .databarExp: return "]e0"
        case .codabar: return "]F0"
        case .code39: return "]A0"
        case .code93: return "]G0"
        case .pdf417: return "]L2"
        default: return nil
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

