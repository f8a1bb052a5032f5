import Capture
import GS1

/// A TCP result message's template (`tcp.format`, `tcp.no_read`): literal bytes and `{field}`s.
///
/// Fields: `{text}`, `{symbology}`, `{symbology_id}`, `{item}`, `{result}`, `{count}`, `{seq}`,
/// `{time}`, `{match}`, `{correct}`, `{wrong}`, `{missing}`, `{extra}` (the tally against
/// `match.list` after the code, or the read window's: `ExpectedCounts`; empty without a list),
/// and `{gs1:AI}` (the value of the code's GS1 element with that AI); `{{`
/// and `}}` are a literal brace. Escapes `\xHH`, `\r`, `\n`, `\t` and `\\` are bytes (as in
/// `tcp.prefix` and `tcp.suffix`). A field with no value for a message (`{item}` without items,
/// `{symbology_id}` of a code without one, every code field of a no-read) is empty.
public struct TCPMessageTemplate: Sendable, Hashable {
    public enum Field: Sendable, Hashable {
        case text, symbology, symbologyID, item, result, count, seq, time, match
        case correct, wrong, missing, extra
        case gs1(String)

        static let named: [String: Field] = [
            "text": .text, "symbology": .symbology, "symbology_id": .symbologyID, "item": .item, "result": .result,
            "count": .count, "seq": .seq, "time": .time, "match": .match,
            "correct": .correct, "wrong": .wrong, "missing": .missing, "extra": .extra,
        ]
    }

    public enum Part: Sendable, Hashable {
        case literal([UInt8])
        case field(Field)
    }

    public let parts: [Part]

    /// What a template's text got wrong.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Parses `text`; a problem names every unknown field, or an unclosed or stray brace.
    public init(parsing text: String) throws(Problem) {
        var parts: [Part] = []
        var literal: [UInt8] = []
        var unknown: [String] = []
        var rest = Substring(text)
        while let c = rest.first {
            rest = rest.dropFirst()
            if c == "{" && rest.first == "{" || c == "}" && rest.first == "}" {
                literal.append(UInt8(ascii: c == "{" ? "{" : "}"))
                rest = rest.dropFirst()
            } else if c == "{" {
                guard let close = rest.firstIndex(of: "}") else { throw Problem(description: "a { is not closed: write {{ for a literal brace") }
                let name = String(rest[..<close])
                rest = rest[rest.index(after: close)...]
                if let field = Self.field(named: name) {
                    if !literal.isEmpty { parts.append(.literal(TCPFraming.bytes(unescaping: literal))); literal = [] }
                    parts.append(.field(field))
                } else {
                    unknown.append("{\(name)}")
                }
            } else if c == "}" {
                throw Problem(description: "a } with no { before it: write }} for a literal brace")
            } else {
                literal += Array(String(c).utf8)
            }
        }
        if !unknown.isEmpty {
            throw Problem(description: "unknown field\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", ")): the fields are "
                          + "{text}, {symbology}, {symbology_id}, {item}, {result}, {count}, {seq}, {time}, {match}, {correct}, {wrong}, {missing}, {extra} "
                          + "and {gs1:AI} ({gs1:01})")
        }
        if !literal.isEmpty { parts.append(.literal(TCPFraming.bytes(unescaping: literal))) }
        self.parts = parts
    }

    static func field(named name: String) -> Field? {
        if name.hasPrefix("gs1:") {
            let ai = String(name.dropFirst(4))
            return GS1.isApplicationIdentifier(ai) ? .gs1(ai) : nil
        }
        return Field.named[name]
    }

    /// What one message tells: a code (an item's first reading, or a read window's first code) or none (a no-read).
    public struct Values: Sendable {
        public var code: MachineReadableCodeObject?
        public var item: UInt64?
        /// `good`, `no_read`, `multiple`.
        public var result: String
        public var count: Int
        public var seq: UInt64
        public var time: WallClockTime
        public var match: Bool?
        /// The tally against `match.list`; `nil`: no list.
        public var expected: ExpectedCounts?

        public init(code: MachineReadableCodeObject?, item: UInt64?, result: String, count: Int, seq: UInt64, time: WallClockTime, match: Bool?,
                    expected: ExpectedCounts? = nil) {
            (self.code, self.item, self.result, self.count, self.seq, self.time, self.match) = (code, item, result, count, seq, time, match)
            self.expected = expected
        }
    }

    /// The message's bytes (without prefix and suffix); payload bytes that would break framing
    /// are escaped (`TCPFraming.escapingPayload`).
    public func render(_ values: Values) -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            switch part {
            case .literal(let bytes): out += bytes
            case .field(let field): out += value(field, values)
            }
        }
        return out
    }

    private func value(_ field: Field, _ values: Values) -> [UInt8] {
        let code = values.code
        switch field {
        case .text: return code.map { TCPFraming.escapingPayload($0.text.map { Array($0.utf8) } ?? $0.data) } ?? []
        case .symbology: return Array((code?.symbology.rawValue ?? "").utf8)
        case .symbologyID: return Array((code?.symbologyIdentifier ?? "").utf8)
        case .item: return Array((values.item.map { "\($0)" } ?? "").utf8)
        case .result: return Array(values.result.utf8)
        case .count: return Array("\(values.count)".utf8)
        case .seq: return Array("\(values.seq)".utf8)
        case .time: return Array(values.time.rfc3339.utf8)
        case .match: return Array((values.match.map { $0 ? "true" : "false" } ?? "").utf8)
        case .correct: return Array((values.expected.map { "\($0.correct)" } ?? "").utf8)
        case .wrong: return Array((values.expected.map { "\($0.wrong)" } ?? "").utf8)
        case .missing: return Array((values.expected.map { "\($0.missing)" } ?? "").utf8)
        case .extra: return Array((values.expected.map { "\($0.extra)" } ?? "").utf8)
        case .gs1(let ai):
            guard let code, case .success(let parsed)? = GS1.reading(symbologyIdentifier: code.symbologyIdentifier, data: code.data, text: code.text),
                  let element = parsed.elements.first(where: { $0.ai == ai }) else { return [] }
            return TCPFraming.escapingPayload(Array(element.value.utf8))
        }
    }
}

/// The bytes around and inside TCP result messages.
public enum TCPFraming {
    /// The bytes a payload never carries as they are: CR, LF, STX, ETX and the backslash, each
    /// written `\xHH` (`\x0D`, `\x0A`, `\x02`, `\x03`, `\x5C`), so a payload cannot end a message early.
    static let escaped: Set<UInt8> = [0x0D, 0x0A, 0x02, 0x03, 0x5C]

    /// `bytes` with each of `escaped` written as `\xHH`.
    public static func escapingPayload(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(where: escaped.contains) else { return bytes }
        let hex = Array("0123456789ABCDEF".utf8)
        return bytes.flatMap { byte in
            escaped.contains(byte) ? [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]] : [byte]
        }
    }

    /// `text`'s bytes with `\xHH`, `\r`, `\n`, `\t` and `\\` made the bytes they name; any other
    /// backslash is kept.
    public static func bytes(unescaping text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < text.count {
            guard text[i] == UInt8(ascii: "\\"), i + 1 < text.count else { out.append(text[i]); i += 1; continue }
            switch text[i + 1] {
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "\\"): out.append(0x5C); i += 2
            case UInt8(ascii: "x") where i + 3 < text.count && hexValue(text[i + 2]) != nil && hexValue(text[i + 3]) != nil:
                out.append(hexValue(text[i + 2])! << 4 | hexValue(text[i + 3])!)
                i += 4
            default: out.append(text[i]); i += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
