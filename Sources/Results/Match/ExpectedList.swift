import Capture
import ConfigurationKeys
import GS1

/// `match.list` read as expected codes with quantities: one entry a line, a payload or a GS1
/// pattern, each expected once unless the line gives a quantity.
///
/// A line is `ENTRY` (quantity 1) or `ENTRY,QUANTITY`: the quantity is what follows the line's last
/// comma when that is only digits (spaces or tabs around it allowed), 1 to `maximumQuantity`, and
/// the entry is what comes before that comma (trailing spaces cut). So a payload that holds commas
/// is written as it is (`A,B` is the payload `A,B`, `A,B,2` that payload twice), and one that
/// itself ends in a comma and digits is written with its quantity (`LOT,7,1`).
///
/// An entry `gs1:AI=VALUE` (`gs1:01=09506000134352`) is a GS1 pattern: it stands for every code
/// whose GS1 reading (element string or Digital Link, `GS1.reading`) has an element of that AI
/// with that value, whatever its other elements (a GTIN with any serial, lot or date). The AI must
/// be one of the GS1 table and the value valid for it (`GS1.parse(elementString:)`: its length,
/// characters and check digit). Every other entry is a payload, compared with the code's `text`
/// exactly. The same entry on two lines is one entry whose quantities add up.
///
/// A code counts against the payload entry its text is, else the first GS1 entry (in list order)
/// one of its elements matches, else against none (`wrong`).
public struct ExpectedList: Sendable, Hashable {
    /// What an entry stands for.
    public enum Key: Sendable, Hashable {
        case payload(String)
        case gs1(ai: String, value: String)
    }

    /// One entry: what it stands for, how many are expected, and the first line it is on.
    public struct Entry: Sendable, Hashable {
        public var key: Key
        public var quantity: Int
        /// The entry as written, without its quantity (`SN-1`, `gs1:01=09506000134352`).
        public var name: String
        public var line: Int
    }

    /// Why a line was refused: the line's number and what is wrong with it.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The largest quantity a line may give.
    public static let maximumQuantity = 1_000_000

    /// The entries in file order (an entry on several lines at its first).
    public private(set) var entries: [Entry] = []
    private var payloads: [String: Int] = [:]
    /// GS1 entries' indexes: by AI, then by value.
    private var gs1: [String: [String: Int]] = [:]

    public init() {}

    /// The entries of a list file's lines (`ListFile.lines`).
    /// - Throws: `Problem` naming the first bad line: a quantity of 0 or over `maximumQuantity`,
    ///   a quantity with no entry before it, a `gs1:` entry that is not `gs1:AI=VALUE` of a known AI
    ///   and a valid value.
    public init(lines: [ListFile.Line]) throws(Problem) {
        for line in lines {
            let (key, name, quantity) = try Self.parse(line)
            add(key, name: name, quantity: quantity, line: line.number)
        }
    }

    /// The entries of `texts`, one a line from line 1 (tests, and lists made in code).
    public init(_ texts: [String]) throws(Problem) {
        try self.init(lines: texts.enumerated().map { ListFile.Line(number: $0.offset + 1, text: $0.element) })
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    private mutating func add(_ key: Key, name: String, quantity: Int, line: Int) {
        let known: Int?
        switch key {
        case .payload(let text): known = payloads[text]
        case .gs1(let ai, let value): known = gs1[ai]?[value]
        }
        if let known {
            entries[known].quantity = min(entries[known].quantity + quantity, Int(Int32.max))
            return
        }
        switch key {
        case .payload(let text): payloads[text] = entries.count
        case .gs1(let ai, let value): gs1[ai, default: [:]][value] = entries.count
        }
        entries.append(Entry(key: key, quantity: quantity, name: name, line: line))
    }

    /// The index of the payload entry `text` is; `nil`: none.
    public func entry(text: String?) -> Int? { text.flatMap { payloads[$0] } }

    /// The index of the entry `code` counts against: its text's payload entry, else the first GS1
    /// entry one of its GS1 elements matches (its GS1 reading is parsed only when the list has
    /// GS1 entries); `nil`: none.
    public func entry(for code: MachineReadableCodeObject) -> Int? {
        if let index = entry(text: code.text) { return index }
        guard !gs1.isEmpty, case .success(let reading)? = GS1.reading(symbologyIdentifier: code.symbologyIdentifier, data: code.data, text: code.text) else {
            return nil
        }
        return reading.elements.compactMap { gs1[$0.ai]?[$0.value] }.min()
    }

    /// One line's entry, its name and its quantity.
    static func parse(_ line: ListFile.Line) throws(Problem) -> (Key, String, Int) {
        var entry = Substring(line.text)
        var quantity = 1
        if let comma = entry.lastIndex(of: ",") {
            let tail = entry[entry.index(after: comma)...].trimmingBlanks
            if !tail.isEmpty, tail.allSatisfy({ $0.isASCII && $0.isNumber }) {
                guard tail.count <= 7, let value = Int(tail), value >= 1, value <= maximumQuantity else {
                    throw Problem(description: "line \(line.number): the quantity \(tail) is not 1 to \(maximumQuantity) (a line is ENTRY or ENTRY,QUANTITY)")
                }
                quantity = value
                entry = entry[..<comma].trimmingBlanks
                guard !entry.isEmpty else {
                    throw Problem(description: "line \(line.number): the quantity \(tail) has no entry before its comma (a line is ENTRY or ENTRY,QUANTITY)")
                }
            }
        }
        let name = String(entry)
        guard entry.hasPrefix("gs1:") else { return (.payload(name), name, quantity) }
        let pattern = entry.dropFirst(4)
        let usage = "a GS1 entry is gs1:AI=VALUE, like gs1:01=09506000134352"
        guard let equals = pattern.firstIndex(of: "=") else {
            throw Problem(description: "line \(line.number): \(name) has no = (\(usage))")
        }
        let (ai, value) = (String(pattern[..<equals]), String(pattern[pattern.index(after: equals)...]))
        guard GS1.isApplicationIdentifier(ai) else {
            throw Problem(description: "line \(line.number): \(name): \(ai.isEmpty ? "no AI" : "\(ai) is not a GS1 application identifier") (\(usage))")
        }
        guard !value.isEmpty else { throw Problem(description: "line \(line.number): \(name) has no value after = (\(usage))") }
        switch GS1.parse(elementString: Array((ai + value).utf8)) {
        case .success(let parsed) where parsed.elements.count == 1 && parsed.elements[0].value == value:
            return (.gs1(ai: ai, value: value), name, quantity)
        case .success: throw Problem(description: "line \(line.number): \(name): the value is not one element of (\(ai)) (\(usage))")
        case .failure(let error): throw Problem(description: "line \(line.number): \(name): \(error)")
        }
    }
}

extension Substring {
    /// Without the spaces and tabs at either end.
    fileprivate var trimmingBlanks: Substring {
        var s = self
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return s
    }
}
