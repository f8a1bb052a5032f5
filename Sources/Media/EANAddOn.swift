/// What becomes of an EAN/UPC add-on (the 2- or 5-digit symbol beside an EAN-13, UPC-A or UPC-E:
/// a periodical's issue, a book's price): `ean.addon`, zxing-cpp's `EanAddOnSymbol`.
///
/// With `read` and `require` a main code and its add-on are one code whose payload is zxing-cpp's
/// form, the main code's digits, a space and the add-on's (`9780735200449 51299`), from either
/// engine; an add-on is never a code of its own. `ignore` reads main codes alone, and `ean2`/`ean5`
/// (zbar) as codes of their own when the symbologies name them.
public enum EANAddOn: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A main code is read with its add-on when it has one, alone when not (`ZXing_EanAddOnSymbol_Read`).
    case read
    /// Only main codes with an add-on are read (`ZXing_EanAddOnSymbol_Require`).
    case require
    /// Add-ons are not looked for (`ZXing_EanAddOnSymbol_Ignore`).
    case ignore

    public var description: String { rawValue }

    /// The symbologies an add-on may follow.
    public static let mainSymbologies: Set<Symbology> = [.ean13, .upca, .upce, .isbn10, .isbn13]
    /// The add-ons' own symbologies (zbar reads them as symbols of their own).
    public static let addOnSymbologies: Set<Symbology> = [.ean2, .ean5]

    /// The payload of a main code `main` with add-on `addOn`: `main`, a space, `addOn`.
    public static func joined(_ main: [UInt8], _ addOn: [UInt8]) -> [UInt8] { main + [UInt8(ascii: " ")] + addOn }
}
