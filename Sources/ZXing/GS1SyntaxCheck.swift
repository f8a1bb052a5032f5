import CZXing

/// GS1 element strings checked against GS1's Barcode Syntax Dictionary by the checker zxing-cpp
/// builds in (libzint's, generated from the dictionary): whether each AI exists and its value's length.
///
/// `fault(of:)` asks zxing-cpp to create a GS1 DataMatrix from the elements
/// (`ZXing_CreateBarcodeFromText` with the creator option `gs1`) and reads a refusal's message
/// (`ZXing_LastErrorMsg`). libzint refuses only an unknown AI or a value of the wrong length; the
/// faults it finds in a value's content (a check digit, a date, a country code) it reports as
/// warnings, which zxing-cpp's C API does not pass on, so they are not seen here. What the GS1
/// module's AI table is tested against. Needs zxing-cpp built with its writers
/// (`ZXING_WRITERS=NEW`, as scripts/setup.sh builds it); `isAvailable` says whether it was.
public enum GS1SyntaxCheck {
    /// A fault libzint found: the AI it names (as written, `17`, `8007`), and the fault.
    public struct Fault: Sendable, Hashable {
        public var ai: String?
        public var message: String
    }

    /// The elements as libzint reads them: each AI in square brackets before its value
    /// (`[01]09506000134352[10]ABC`); values hold no brackets (GS1's character sets have none).
    public static func bracketed(_ elements: [(ai: String, value: String)]) -> String {
        elements.map { "[\($0.ai)]\($0.value)" }.joined()
    }

    /// The first fault in `bracketed` (see `bracketed(_:)`), `nil` when libzint accepts it.
    public static func fault(of bracketed: String) -> Fault? {
        guard let options = ZXing_CreatorOptions_new(ZXing_BarcodeFormat_DataMatrix) else {
            return Fault(ai: nil, message: "zxing-cpp could not make creator options")
        }
        defer { ZXing_CreatorOptions_delete(options) }
        ZXing_CreatorOptions_setOptions(options, "gs1")
        let bytes = Array(bracketed.utf8)
        let barcode = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                ZXing_CreateBarcodeFromText($0, Int32(buffer.count), options)
            }
        }
        if let barcode {
            ZXing_Barcode_delete(barcode)
            return nil
        }
        var message = "refused without a message"
        if let last = ZXing_LastErrorMsg() {
            defer { ZXing_free(last) }
            if last.pointee != 0 { message = String(cString: last) }
        }
        return parse(message)
    }

    /// Whether this build of zxing-cpp has its creator (a valid GS1 string is accepted).
    public static let isAvailable: Bool = fault(of: "[01]09506000134352") == nil

    /// libzint's message without its number and return code, and the AI it names:
    /// `Error 261: AI (17) position 3: Invalid month '13' (retval: 6)` → `17`,
    /// `Invalid month '13' (character 3 of the value)`; `Error 260: Invalid AI (99)` → `99`, `Invalid AI (99)`.
    static func parse(_ raw: String) -> Fault {
        var message = Substring(raw)
        if message.hasPrefix("Error "), let colon = message.firstIndex(of: ":") {
            message = message[message.index(after: colon)...].drop { $0 == " " }
        }
        if let retval = message.ranges(of: " (retval: ").last, message.hasSuffix(")") {
            message = message[..<retval.lowerBound]
        }
        guard let open = message.firstRange(of: "AI ("), let close = message[open.upperBound...].firstIndex(of: ")") else {
            return Fault(ai: nil, message: String(message))
        }
        let ai = String(message[open.upperBound..<close])
        guard !ai.isEmpty, ai.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else { return Fault(ai: nil, message: String(message)) }
        // "AI (17) position 3: Invalid month '13'"
        let after = message[message.index(after: close)...]
        if open.lowerBound == message.startIndex, after.hasPrefix(" position "), let colon = after.firstIndex(of: ":") {
            let position = after.dropFirst(" position ".count).prefix { $0 != ":" }
            let fault = after[after.index(after: colon)...].drop { $0 == " " }
            return Fault(ai: ai, message: "\(fault) (character \(position) of the value)")
        }
        return Fault(ai: ai, message: String(message))
    }
}
