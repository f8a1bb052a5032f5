import Media

/// UPC codes as their symbols' own digits.
///
/// zxing-cpp 3.1.1 gives UPC-A and UPC-E in their 13-digit EAN-13 form (a leading 0; UPC-E
/// expanded) and reports a UPC-A as EAN-13 whenever EAN-13 is read too. zbar and zxing-cpp 1.4
/// give a UPC-A's 12 digits and a UPC-E's 8 (number system, six digits, check digit), and zbar
/// reports an EAN-13 starting with 0 as UPC-A when UPC-A is enabled; syncscan keeps that, so one
/// code reads the same from either engine (and `hybrid` reports it once).
enum UPCDigits {
    /// The symbology and payload to report for a code zxing-cpp read as `symbology` with `data`,
    /// `requested` being the symbologies asked for. Codes other than UPC-A and UPC-E, and a 13-digit
    /// EAN-13 not starting with 0, come back as they are.
    static func symbolDigits(_ symbology: Symbology, _ data: [UInt8], requested: Set<Symbology>) -> (Symbology, [UInt8]) {
        let zero = UInt8(ascii: "0")
        guard data.count == 13, data.first == zero, data.allSatisfy({ (zero...UInt8(ascii: "9")).contains($0) }) else {
            return (symbology, data)
        }
        let upcA = Array(data.dropFirst())
        switch symbology {
        case .upca: return (.upca, upcA)
        case .ean13 where requested.contains(.upca): return (.upca, upcA)
        case .upce: return compressed(upcA).map { (.upce, $0) } ?? (symbology, data)
        default: return (symbology, data)
        }
    }

    /// The main code's digits and its add-on of a code zxing-cpp read with an add-on (symbology
    /// identifier `]E3`): zxing-cpp gives them as one run of digits, the main code's 13 (UPC-A and
    /// UPC-E in their EAN-13 form) then the add-on's 2 or 5; `(bytes, nil)` for any other code.
    static func addOnSplit(_ bytes: [UInt8], symbologyIdentifier: String?) -> (main: [UInt8], addOn: [UInt8]?) {
        guard symbologyIdentifier == "]E3", bytes.count == 15 || bytes.count == 18 else { return (bytes, nil) }
        return (Array(bytes[..<13]), Array(bytes[13...]))
    }

    /// The 8-digit UPC-E of a 12-digit UPC-A (number system N, manufacturer M1-M5, product
    /// P1-P5, check C), by the zero-suppression rules; `nil` when it has no UPC-E form.
    static func compressed(_ a: [UInt8]) -> [UInt8]? {
        guard a.count == 12 else { return nil }
        let zero = UInt8(ascii: "0")
        let n = a[0], m = Array(a[1...5]), p = Array(a[6...10]), c = a[11]
        func zeros(_ digits: ArraySlice<UInt8>) -> Bool { digits.allSatisfy { $0 == zero } }
        if zeros(m[3...4]), m[2] <= UInt8(ascii: "2"), zeros(p[0...1]) {
            return [n, m[0], m[1], p[2], p[3], p[4], m[2], c]
        }
        if zeros(m[3...4]), zeros(p[0...2]) { return [n, m[0], m[1], m[2], p[3], p[4], UInt8(ascii: "3"), c] }
        if m[4] == zero, zeros(p[0...3]) { return [n, m[0], m[1], m[2], m[3], p[4], UInt8(ascii: "4"), c] }
        if zeros(p[0...3]), p[4] >= UInt8(ascii: "5") { return [n, m[0], m[1], m[2], m[3], m[4], p[4], c] }
        return nil
    }
}
