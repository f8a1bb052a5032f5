/// One component of an AI's value: its character set, its length and its checks.
struct GS1Component: Sendable, Hashable {
    enum CharacterSet: Character, Sendable, Hashable {
        /// Digits.
        case numeric = "N"
        /// GS1's CSET 82: `!"%&'()*+,-./0-9:;<=>?A-Z_a-z`.
        case cset82 = "X"
        /// CSET 39: `#-/0-9A-Z`.
        case cset39 = "Y"
        /// CSET 64: base64url, `=` padding.
        case cset64 = "Z"

        func contains(_ byte: UInt8) -> Bool {
            switch self {
            case .numeric: return (0x30...0x39).contains(byte)
            case .cset39: return byte == 0x23 || byte == 0x2D || byte == 0x2F || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
            case .cset64: return byte == 0x2D || byte == 0x5F || byte == 0x3D || (0x30...0x39).contains(byte)
                || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            case .cset82:
                switch byte {
                case 0x21, 0x22, 0x25...0x3F, 0x41...0x5A, 0x5F, 0x61...0x7A: return true
                default: return false
                }
            }
        }

        var name: String {
            switch self {
            case .numeric: "digits"
            case .cset82: "GS1's CSET 82"
            case .cset39: "GS1's CSET 39"
            case .cset64: "GS1's CSET 64"
            }
        }
    }

    enum Check: String, Sendable, Hashable { case csum, yymmdd, yymmd0, yyyymmdd, hhmm }

    var characters: CharacterSet
    var minLength: Int
    var maxLength: Int
    var optional: Bool
    var checks: [Check]

    var isFixed: Bool { minLength == maxLength && !optional }

    /// Parses `N14,csum`, `X..20`, `[N..12]`; `nil` for anything else.
    init?(_ spec: Substring) {
        var s = spec
        optional = s.hasPrefix("[") && s.hasSuffix("]")
        if optional { s = s.dropFirst().dropLast() }
        let parts = s.split(separator: ",")
        guard let head = parts.first, let first = head.first, let set = CharacterSet(rawValue: first),
              let checks = Optional(parts.dropFirst().compactMap { Check(rawValue: String($0)) }), checks.count == parts.count - 1
        else { return nil }
        characters = set
        self.checks = checks
        let length = head.dropFirst()
        if length.hasPrefix("..") {
            guard let max = Int(length.dropFirst(2)), max > 0 else { return nil }
            (minLength, maxLength) = (1, max)
        } else {
            guard let n = Int(length), n > 0 else { return nil }
            (minLength, maxLength) = (n, n)
        }
    }
}

/// An AI and its value's components, from one line of `GS1ApplicationIdentifiers.table`.
struct GS1Format: Sendable, Hashable {
    var components: [GS1Component]

    /// The value's length when every component is fixed; `nil` otherwise.
    var fixedLength: Int? {
        components.allSatisfy(\.isFixed) ? components.reduce(0) { $0 + $1.maxLength } : nil
    }

    var maxLength: Int { components.reduce(0) { $0 + $1.maxLength } }

    /// The fault of `value` (ASCII bytes) against the format, `nil` when it conforms.
    func fault(of value: ArraySlice<UInt8>) -> String? {
        var rest = value
        for (index, component) in components.enumerated() {
            if rest.isEmpty {
                if component.optional { continue }
                return value.isEmpty ? "the value is empty" : "\(value.count) characters, too short (needs \(minimumLength))"
            }
            // A variable component takes what is left, up to its maximum (only the last one is variable).
            let take = index == components.count - 1 || component.isFixed ? min(rest.count, component.maxLength) : component.maxLength
            let part = rest.prefix(take)
            if part.count < component.minLength {
                return "\(value.count) characters, too short (needs \(minimumLength))"
            }
            if let bad = part.firstIndex(where: { !component.characters.contains($0) }) {
                return "character \(Self.describe(part[bad])) at position \(bad - value.startIndex + 1) is not among \(component.characters.name)"
            }
            for check in component.checks {
                if let fault = Self.fault(of: part, check) { return fault }
            }
            rest = rest.dropFirst(take)
        }
        if !rest.isEmpty { return "\(value.count) characters, too long (at most \(maxLength))" }
        return nil
    }

    private var minimumLength: Int { components.filter { !$0.optional }.reduce(0) { $0 + $1.minLength } }

    /// A byte for a message: itself when printable ASCII, else its hex value.
    static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16, uppercase: true)
    }

    private static func digits(_ part: ArraySlice<UInt8>) -> [Int] { part.map { Int($0) - 0x30 } }

    private static func fault(of part: ArraySlice<UInt8>, _ check: GS1Component.Check) -> String? {
        let d = digits(part)
        switch check {
        case .csum:
            guard let last = d.last else { return nil }
            let expected = GS1CheckDigit.of(d.dropLast())
            return last == expected ? nil : "check digit is \(last), expected \(expected)"
        case .yymmdd, .yymmd0:
            guard d.count >= 6 else { return nil }
            let (yy, mm, dd) = (d[0] * 10 + d[1], d[2] * 10 + d[3], d[4] * 10 + d[5])
            let text = String(decoding: part.prefix(6), as: UTF8.self)
            guard (1...12).contains(mm) else { return "\(text) is not a date (month \(mm))" }
            if dd == 0 && check == .yymmd0 { return nil }
            guard dd >= 1 && dd <= daysIn(month: mm, yy: yy) else { return "\(text) is not a date (day \(dd) of month \(mm))" }
            return nil
        case .yyyymmdd:
            guard d.count >= 8 else { return nil }
            let (yyyy, mm, dd) = (d[0] * 1000 + d[1] * 100 + d[2] * 10 + d[3], d[4] * 10 + d[5], d[6] * 10 + d[7])
            let text = String(decoding: part.prefix(8), as: UTF8.self)
            guard (1...12).contains(mm) else { return "\(text) is not a date (month \(mm))" }
            let days = mm == 2 ? (yyyy % 4 == 0 && (yyyy % 100 != 0 || yyyy % 400 == 0) ? 29 : 28) : daysIn(month: mm, yy: 1)
            guard dd >= 1 && dd <= days else { return "\(text) is not a date (day \(dd) of month \(mm))" }
            return nil
        case .hhmm:
            guard d.count >= 4 else { return nil }
            let (hh, mm) = (d[0] * 10 + d[1], d[2] * 10 + d[3])
            return hh < 24 && mm < 60 ? nil : "\(String(decoding: part.prefix(4), as: UTF8.self)) is not a time (hhmm)"
        }
    }

    /// Days in a month of a two-digit year (read as 20YY: 00 is a leap year).
    static func daysIn(month: Int, yy: Int) -> Int {
        switch month {
        case 2: yy % 4 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// GS1's mod-10 check digit (General Specifications 7.9.1).
public enum GS1CheckDigit {
    /// The check digit for `digits` (0–9 each), weights 3 and 1 alternating from the rightmost.
    public static func of<C: Collection<Int>>(_ digits: C) -> Int where C: BidirectionalCollection {
        var sum = 0
        for (i, d) in digits.reversed().enumerated() { sum += d * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }
}
