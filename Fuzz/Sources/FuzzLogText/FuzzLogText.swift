// libFuzzer: arbitrary bytes → LogText, as bytes (`untrusted(bytes:)`) and as the text they decode
// to (`untrusted(_:)`), each with the default limit and with one the first byte draws (0 to 31).
// The output holds no C0 or C1 control, DEL, U+2028, U+2029, bidirectional control or U+FFFD; it
// is bounded by its limit (each scalar shown is at most 10 characters escaped, then the cut's
// marker); the same input gives the same output; and within its limit, reading the escapes back
// gives the input (its bytes, for bytes): no two inputs look alike in a log.
import FuzzDriver
import SystemCalls

/// Whether `scalar` may stand raw in the output: only what LogText leaves unescaped.
func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0xFFFD: true
    default: scalar.properties.isBidiControl
    }
}

/// The bytes `text` stands for, its escapes read back (`\\`, `\n`, `\r`, `\t`, `\u{X…}`, `\xNN`);
/// `nil` when an escape is malformed.
func unescaped(_ text: String) -> [UInt8]? {
    var bytes: [UInt8] = []
    var scalars = text.unicodeScalars.makeIterator()
    while let scalar = scalars.next() {
        guard scalar == "\\" else { bytes += Array(String(scalar).utf8); continue }
        switch scalars.next() {
        case "\\": bytes.append(0x5C)
        case "n": bytes.append(0x0A)
        case "r": bytes.append(0x0D)
        case "t": bytes.append(0x09)
        case "x":
            guard let high = scalars.next(), let low = scalars.next(), let byte = UInt8(String([Character(high), Character(low)]), radix: 16)
            else { return nil }
            bytes.append(byte)
        case "u":
            guard scalars.next() == "{" else { return nil }
            var digits = ""
            while let next = scalars.next(), next != "}" { digits.unicodeScalars.append(next) }
            guard let value = UInt32(digits, radix: 16), let decoded = Unicode.Scalar(value) else { return nil }
            bytes += Array(String(decoded).utf8)
        default: return nil
        }
    }
    return bytes
}

func check(_ shown: String, limit: Int, inputUnits: Int, marker: String, original: [UInt8], again: () -> String) {
    if let bad = shown.unicodeScalars.first(where: isForbidden) {
        fatalError("U+\(String(bad.value, radix: 16)) raw in \(shown.debugDescription)")
    }
    var body = shown.unicodeScalars[...]
    if inputUnits > limit {
        let suffix = "… (\(inputUnits - max(0, limit)) \(marker))".unicodeScalars
        guard shown.unicodeScalars.suffix(suffix.count).elementsEqual(suffix) else { fatalError("no cut marker in \(shown.debugDescription)") }
        body = body.dropLast(suffix.count)
    }
    if body.count > max(0, limit) * 10 { fatalError("\(body.count) scalars for a limit of \(limit)") }
    if again() != shown { fatalError("not deterministic: \(shown.debugDescription)") }
    if inputUnits <= limit, unescaped(shown) != original { fatalError("does not read back: \(shown.debugDescription) from \(original)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let drawn = Int(bytes.first ?? 0) % 32
    for limit in [LogText.limit, drawn] {
        check(LogText.untrusted(bytes: bytes, limit: limit), limit: limit, inputUnits: bytes.count, marker: "more bytes",
              original: bytes) { LogText.untrusted(bytes: bytes, limit: limit) }
        let text = String(decoding: bytes, as: UTF8.self)
        check(LogText.untrusted(text, limit: limit), limit: limit, inputUnits: text.unicodeScalars.count, marker: "more",
              original: Array(text.utf8)) { LogText.untrusted(text, limit: limit) }
    }
    return 0
}

/// The debug build's entry point: SwiftPM links debug executables with `main` renamed to
/// `FuzzLogText_main`, so libFuzzer's own `main` is not used there; this one starts its driver.
@_cdecl("FuzzLogText_main")
public func FuzzLogTextMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzerDriver(argc, argv, fuzz)
}
