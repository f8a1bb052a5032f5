/// Text from outside (a code's payload, an MQTT topic, a file name, a device's name, a library's
/// message, an error quoting any of them) as it may stand in a log line: one line, no terminal
/// control, bounded.
///
/// Every logging call that puts such text in its message or a metadata value passes it through
/// here, so it can neither end the log record and forge another, nor reach a terminal raw. `\` is
/// `\\`; `\n`, `\r`, `\t` are written as such; every other C0 control, DEL, C1 control (U+0080 to
/// U+009F), U+2028, U+2029, bidirectional control (U+061C, U+200E, U+200F, U+202A to U+202E,
/// U+2066 to U+2069) and U+FFFD (a replacement for bytes that were no UTF-8) as `\u{XX}`, its
/// scalar in hex. Bytes that are no UTF-8 (`untrusted(bytes:)`) are `\xNN` each. Past `limit`
/// Unicode scalars (bytes for bytes) the text is cut and ends with `… (N more)`. Everything else
/// stands as it is.
public enum LogText {
    /// The Unicode scalars (bytes, for bytes) of untrusted text a log line shows by default.
    public static let limit = 200

    /// The Unicode scalars of an error's description shown (`error(_:)`): an error says what to
    /// do after what it quotes, so it is kept whole up to far more than a payload.
    public static let errorLimit = 2000

    /// `value`'s text escaped and cut to `limit` Unicode scalars.
    public static func untrusted(_ value: some CustomStringConvertible, limit: Int = LogText.limit) -> String {
        let scalars = value.description.unicodeScalars
        var text = ""
        var shown = 0
        for scalar in scalars {
            if shown >= limit { return text + "… (\(scalars.count - shown) more)" }
            append(scalar, to: &text)
            shown += 1
        }
        return text
    }

    /// `bytes` as UTF-8, escaped as text is, each byte that is no UTF-8 `\xNN`; cut to `limit` bytes.
    /// - Parameter length: the whole length when `bytes` are only its beginning (what the cut counts).
    public static func untrusted(bytes: some Collection<UInt8>, length: Int? = nil, limit: Int = LogText.limit) -> String {
        let total = max(length ?? 0, bytes.count)
        let kept = bytes.prefix(max(0, limit))
        var text = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = kept.makeIterator()
        var position = kept.startIndex
        decoding: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                append(Unicode.UTF8.decode(encoded), to: &text)
                position = kept.index(position, offsetBy: encoded.count)
            case .error(let length):
                for byte in kept[position...].prefix(length) { text += "\\x" + hex(byte, digits: 2) }
                position = kept.index(position, offsetBy: length)
            case .emptyInput:
                break decoding
            }
        }
        return total > kept.count ? text + "… (\(total - kept.count) more bytes)" : text
    }

    /// `error`'s description escaped and cut to `errorLimit` Unicode scalars.
    public static func error(_ error: any Error) -> String {
        untrusted(String(describing: error), limit: errorLimit)
    }

    /// Whether `scalar` stands escaped in a log line.
    public static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x5C, 0x2028, 0x2029, 0xFFFD: true
        default: scalar.properties.isBidiControl
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to text: inout String) {
        guard isEscaped(scalar) else {
            text.unicodeScalars.append(scalar)
            return
        }
        switch scalar {
        case "\\": text += "\\\\"
        case "\n": text += "\\n"
        case "\r": text += "\\r"
        case "\t": text += "\\t"
        default: text += "\\u{" + hex(scalar.value, digits: 2) + "}"
        }
    }

    private static func hex(_ value: some BinaryInteger, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
