import Capture
import GS1

/// `mqtt.topic_by_ai`: the topic a code with a GS1 element of the AI goes to instead of
/// `<prefix>/codes`, `<prefix>/gs1/<ai>/<value>` (`syncscan/dock1/video0/gs1/01/09506000134352`),
/// so a subscriber takes one product's codes by its topic. A code that is not GS1, whose element
/// string is at fault (`gs1_error`), or that has no element of the AI, goes to `<prefix>/codes`.
///
/// The value is one topic level: `%`, `/`, `+` and `#` in it (a batch `A/B+C`, CSET 82 allows `/`
/// and `+`) are percent-encoded (`A%2FB%2BC`), so no value adds a level or a wildcard and the
/// encoding is undone by percent-decoding. A GTIN, an SSCC, a GLN are digits: as they are.
public struct MQTTGS1Topic: Sendable, Hashable {
    public var prefix: String
    public var ai: String

    public init(prefix: String, ai: String) { (self.prefix, self.ai) = (prefix, ai) }

    /// The code's topic, `nil` when it has no valid element of `ai`.
    public func topic(for code: MachineReadableCodeObject) -> String? {
        guard case .success(let reading)? = GS1.reading(symbologyIdentifier: code.symbologyIdentifier, data: code.data, text: code.text),
              let value = reading.value(of: ai) else { return nil }
        return "\(prefix)/gs1/\(ai)/\(Self.level(value))"
    }

    /// `value` as one topic level: `%`, `/`, `+`, `#` and any byte outside printable ASCII as `%XX`.
    public static func level(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case 0x25, 0x2F, 0x2B, 0x23, 0...0x20, 0x7F...:
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            default:
                out.append(Character(Unicode.Scalar(byte)))
            }
        }
        return out
    }
}
