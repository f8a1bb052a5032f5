import CZBar

/// A barcode family zbar can decode, named as in zbar's config strings (`zbarcam -S qrcode.enable`).
public enum Symbology: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case qrcode, sqcode
    case ean13, ean8, ean2, ean5, upca, upce, isbn10, isbn13
    case i25, databar
    case databarExp = "databar-exp"
    case codabar, code39, code93, code128, pdf417

    public var description: String { rawValue }

    /// Parses a config name, case-insensitive; `nil` for a name zbar does not know.
    public init?(configName: String) {
        self.init(rawValue: configName.lowercased())
    }

    /// The symbologies to scan for unless configured: QR only (the others triple zbar's cost per frame).
    public static let defaults: Set<Symbology> = [.qrcode]

    var zbarType: zbar_symbol_type_t {
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
        }
    }

    init?(zbarType: zbar_symbol_type_t) {
        guard let match = Symbology.allCases.first(where: { $0.zbarType == zbarType }) else { return nil }
        self = match
    }
}

/// Which way a code faces in the frame (zbar's `zbar_orientation_t`).
public enum SymbolOrientation: String, Sendable, Hashable, Codable {
    case up, right, down, left, unknown

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

extension Symbology {
    /// The symbologies a configured list names (each by name, or `all` alone) and a problem for
    /// each element that names none; `index` is `nil` for a problem with the whole list.
    public static func parse(list names: [String]) -> (symbologies: Set<Symbology>, problems: [(index: Int?, message: String)]) {
        let known = allCases.map(\.rawValue).joined(separator: ", ")
        if names.count == 1, names[0].lowercased() == "all" { return (Set(allCases), []) }
        if names.allSatisfy(\.isEmpty) { return ([], [(nil, "the list is empty; name at least one symbology (known: \(known))")]) }
        var chosen: Set<Symbology> = [], problems: [(index: Int?, message: String)] = []
        for (index, name) in names.enumerated() {
            if let symbology = Symbology(configName: name) { chosen.insert(symbology); continue }
            problems.append((index, name.lowercased() == "all" ? "\"all\" must stand alone (write symbologies: all)"
                                                                : "unknown symbology \"\(name)\" (known: \(known))"))
        }
        return (chosen, problems)
    }
}
