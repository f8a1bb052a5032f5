/// One element of a GS1 element string: an Application Identifier and its value.
public struct GS1Element: Sendable, Hashable {
    /// The AI's digits, e.g. `01`.
    public var ai: String
    /// The value, checked against the AI's format (so ASCII).
    public var value: String
    public init(ai: String, value: String) { (self.ai, self.value) = (ai, value) }
}

/// A valid GS1 element string: its elements in order and its human-readable form.
public struct GS1ElementString: Sendable, Hashable {
    public var elements: [GS1Element]

    public init(elements: [GS1Element]) { self.elements = elements }

    /// The human-readable interpretation: each AI in parentheses before its value,
    /// `(01)09506000134352(17)201225(10)ABC123` (General Specifications 4.15).
    public var hri: String { elements.map { "(\($0.ai))\($0.value)" }.joined() }

    /// The value of the first element with `ai`, for a handler routing on one (`01`: the GTIN).
    public func value(of ai: String) -> String? { elements.first { $0.ai == ai }?.value }

    /// Whether an element has one of `ais` (`output.gs1_filter`).
    public func hasElement(withAnyOf ais: Set<String>) -> Bool { elements.contains { ais.contains($0.ai) } }
}

/// Why an element string or Digital Link is not valid GS1: the AI concerned (when there is one) and the fault.
public struct GS1Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// The AI whose element is at fault; `nil` when no AI could be read.
    public var ai: String?
    public var fault: String
    public init(ai: String?, fault: String) { (self.ai, self.fault) = (ai, fault) }

    /// `(17): 201345 is not a date (month 13)`, or the fault alone.
    public var description: String { ai.map { "(\($0)): \(fault)" } ?? fault }
}

/// GS1 element strings and Digital Link URIs parsed and checked against the AI table
/// (`GS1ApplicationIdentifiers`): pure Swift, no library.
public enum GS1 {
    /// The group separator that stands for FNC1 between elements of variable length.
    static let groupSeparator: UInt8 = 0x1D

    /// Every AI of the table with its format, by its digits.
    static let formats: [String: GS1Format] = {
        var formats: [String: GS1Format] = [:]
        for line in GS1ApplicationIdentifiers.table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let ais = fields.first, let format = Optional(GS1Format(components: fields.dropFirst().compactMap(GS1Component.init))),
                  format.components.count == fields.count - 1, !format.components.isEmpty else {
                preconditionFailure("GS1 AI table line \"\(line)\" is malformed")
            }
            let range = ais.split(separator: "-")
            if range.count == 2, let low = Int(range[0]), let high = Int(range[1]) {
                for ai in low...high { formats[String(ai).leftPadded(to: range[0].count)] = format }
            } else {
                formats[String(ais)] = format
            }
        }
        return formats
    }()

    /// Whether `ai` is an AI of the table (`GS1ApplicationIdentifiers`): `01`, `3103`, `7003`; a
    /// configuration naming an AI (`output.gs1_filter`, `mqtt.topic_by_ai`) is checked with it.
    public static func isApplicationIdentifier(_ ai: String) -> Bool { formats[ai] != nil }

    /// Whether an AIM symbology identifier says the payload is a GS1 element string (FNC1 in first
    /// position, or a GS1-only symbology): `]C1` GS1-128, `]e0` DataBar, `]d2`/`]d5` GS1 DataMatrix,
    /// `]Q3`/`]Q4` GS1 QR, `]z1`/`]z4` GS1 Aztec, `]J1` GS1 DotCode, `]K1` GS1 Code 16K (ISO/IEC 15424).
    public static func marksElementString(_ symbologyIdentifier: String?) -> Bool {
        guard let id = symbologyIdentifier else { return false }
        return ["]C1", "]e0", "]d2", "]d5", "]Q3", "]Q4", "]z1", "]z4", "]J1", "]K1"].contains(id)
    }

    /// The GS1 reading of a code, `nil` when it is not GS1: an element string when its symbology
    /// identifier says so, else a Digital Link when its text is an HTTP(S) URI with a primary key.
    public static func reading(symbologyIdentifier: String?, data: [UInt8], text: String?) -> Result<GS1ElementString, GS1Error>? {
        if marksElementString(symbologyIdentifier) { return parse(elementString: data) }
        return text.flatMap(parse(digitalLink:))
    }

    /// Parses an element string: AIs followed by their values, a value of variable length ended by
    /// GS (0x1D, FNC1) unless it is the last. A leading GS (FNC1 in first position) or symbology
    /// identifier (`]C1`) is skipped. Fails on the first fault: an unknown AI, a value too short or
    /// too long, a character outside the AI's set, a wrong check digit, an impossible date.
    public static func parse<C: Collection<UInt8>>(elementString input: C) -> Result<GS1ElementString, GS1Error> {
        var bytes = ArraySlice(input)
        if bytes.count >= 3, bytes.first == 0x5D { bytes = bytes.dropFirst(3) }  // "]C1"
        if bytes.first == groupSeparator { bytes = bytes.dropFirst() }
        guard !bytes.isEmpty else { return .failure(GS1Error(ai: nil, fault: "the element string is empty")) }
        var elements: [GS1Element] = []
        while !bytes.isEmpty {
            guard let (ai, format) = applicationIdentifier(at: bytes) else {
                return .failure(unknownAI(at: bytes, after: elements.last?.ai))
            }
            bytes = bytes.dropFirst(ai.count)
            let value: ArraySlice<UInt8>
            if let length = format.fixedLength, GS1ApplicationIdentifiers.predefinedLengthPrefixes.contains(String(ai.prefix(2))) {
                value = bytes.prefix(length)
                if let gs = value.firstIndex(of: groupSeparator) ?? (value.count < length ? value.endIndex : nil) {
                    return .failure(GS1Error(ai: ai, fault: "\(gs - value.startIndex) characters, too short (needs \(length))"))
                }
                bytes = bytes.dropFirst(length)
            } else {
                let end = bytes.firstIndex(of: groupSeparator) ?? bytes.endIndex
                value = bytes[..<end]
                bytes = bytes[end...]
            }
            if let fault = format.fault(of: value) { return .failure(GS1Error(ai: ai, fault: fault)) }
            elements.append(GS1Element(ai: ai, value: String(decoding: value, as: UTF8.self)))
            if bytes.first == groupSeparator {
                bytes = bytes.dropFirst()
                if bytes.isEmpty { break }
            }
        }
        return .success(GS1ElementString(elements: elements))
    }

    /// The AI at the start of `bytes` (GS1's AIs are prefix-free: 2, 3 or 4 digits) and its format.
    static func applicationIdentifier(at bytes: ArraySlice<UInt8>) -> (String, GS1Format)? {
        var ai = ""
        for byte in bytes.prefix(4) {
            guard (0x30...0x39).contains(byte) else { return nil }
            ai.append(Character(Unicode.Scalar(byte)))
            if ai.count >= 2, let format = formats[ai] { return (ai, format) }
        }
        return nil
    }

    private static func unknownAI(at bytes: ArraySlice<UInt8>, after previous: String?) -> GS1Error {
        let digits = bytes.prefix(4).prefix { (0x30...0x39).contains($0) }
        let place = previous.map { " after (\($0))" } ?? ""
        if digits.count < 2 {
            guard bytes.startIndex + digits.count < bytes.endIndex else {
                return GS1Error(ai: nil, fault: "no AI\(place): the element string ends within an AI's digits (\(String(decoding: digits, as: UTF8.self)))")
            }
            let byte = bytes[bytes.startIndex + digits.count]
            return GS1Error(ai: nil, fault: "no AI\(place): \(GS1Format.describe(byte)) where an AI's digits belong")
        }
        return GS1Error(ai: String(decoding: digits, as: UTF8.self), fault: "unknown AI\(place)")
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
