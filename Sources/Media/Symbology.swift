/// A barcode family, by the name syncscan's configuration and output use.
///
/// One table for every decoder engine: zbar's config names where zbar reads the symbology
/// (`zbarcam -S qrcode.enable`), and `aztec`, `datamatrix`, `maxicode`, `microqr`, `rmqr`
/// (rectangular Micro QR), `databar-ltd` (DataBar Limited), `dxfilmedge` (DX film edge) for the
/// ones only zxing-cpp reads. Which engine reads which is the decoder's business (`DecoderEngine`).
public enum Symbology: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case qrcode, sqcode
    case ean13, ean8, ean2, ean5, upca, upce, isbn10, isbn13
    case i25, databar
    case databarExp = "databar-exp"
    case codabar, code39, code93, code128, pdf417
    case aztec, datamatrix, maxicode, microqr, rmqr
    case databarLtd = "databar-ltd"
    case dxfilmedge

    public var description: String { rawValue }

    /// Parses a config name, case-insensitive; `nil` for a name syncscan does not know.
    public init?(configName: String) {
        self.init(rawValue: configName.lowercased())
    }

    /// The symbologies to scan for unless configured: QR only (the others multiply the cost per frame).
    public static let defaults: Set<Symbology> = [.qrcode]

    /// Matrix and stacked codes, read from an area rather than along scan lines.
    public var isTwoDimensional: Bool {
        switch self {
        case .qrcode, .sqcode, .pdf417, .aztec, .datamatrix, .maxicode, .microqr, .rmqr: true
        default: false
        }
    }

    /// The symbologies a configured list names (each by name, or `all` for every one in `all`)
    /// and a problem for each element that names none; `index` is `nil` for the whole list.
    public static func parse(list names: [String], all: Set<Symbology>) -> (symbologies: Set<Symbology>, problems: [(index: Int?, message: String)]) {
        let known = allCases.map(\.rawValue).joined(separator: ", ")
        if names.count == 1, names[0].lowercased() == "all" { return (all, []) }
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

/// Which way a code faces in the frame: `up` is upright, `right` turned 90° clockwise.
public enum SymbolOrientation: String, Sendable, Hashable, Codable {
    case up, right, down, left, unknown

    /// The orientation nearest to a clockwise rotation in degrees.
    public init(clockwiseDegrees degrees: Int) {
        switch ((degrees % 360 + 360 + 45) % 360) / 90 {
        case 0: self = .up
        case 1: self = .right
        case 2: self = .down
        default: self = .left
        }
    }
}
