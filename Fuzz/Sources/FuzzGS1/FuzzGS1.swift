// libFuzzer: arbitrary bytes → the GS1 parser, as an element string and (when UTF-8) as a Digital
// Link URI, behind an `https://id.gs1.org/01/09506000134352` prefix too. No trap; a valid result's
// elements, written back as an element string (GS after every value not of predefined length), parse
// to the same elements, and its HRI is their AIs in parentheses before their values. Any text as an
// MQTT topic level (`mqtt.topic_by_ai`) has no `/`, `+`, `#` and percent-decodes back to itself.
import FuzzDriver
import GS1
import Results

func checkTopicLevel(_ value: String) {
    let level = MQTTGS1Topic.level(value)
    if level.utf8.contains(where: { $0 == 0x2F || $0 == 0x2B || $0 == 0x23 || $0 <= 0x20 || $0 >= 0x7F }) || level.isEmpty != value.isEmpty {
        fatalError("topic level \(level.debugDescription) of \(value.debugDescription)")
    }
    var decoded: [UInt8] = []
    var bytes = Array(level.utf8)[...]
    while let byte = bytes.popFirst() {
        if byte == 0x25, bytes.count >= 2, let v = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) {
            decoded.append(v)
            bytes = bytes.dropFirst(2)
        } else {
            decoded.append(byte)
        }
    }
    if decoded != Array(value.utf8) { fatalError("topic level \(level.debugDescription) does not decode to \(value.debugDescription)") }
}

func check(_ result: Result<GS1ElementString, GS1Error>?, _ input: String) {
    guard case .success(let parsed)? = result else { return }
    var bytes: [UInt8] = []
    for element in parsed.elements {
        bytes += Array(element.ai.utf8) + Array(element.value.utf8) + [0x1D]
    }
    guard case .success(let again) = GS1.parse(elementString: bytes), again.elements == parsed.elements else {
        fatalError("valid \(input.debugDescription) gave elements \(parsed.elements) that do not parse back")
    }
    if parsed.hri != parsed.elements.map({ "(\($0.ai))\($0.value)" }).joined() { fatalError("HRI \(parsed.hri) of \(input.debugDescription)") }
    if parsed.elements.isEmpty { fatalError("valid with no element: \(input.debugDescription)") }
    for element in parsed.elements { checkTopicLevel(element.value) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    check(GS1.parse(elementString: bytes), String(decoding: bytes, as: UTF8.self))
    checkTopicLevel(String(decoding: bytes, as: UTF8.self))
    if let text = String(validating: bytes, as: UTF8.self) {
        check(GS1.parse(digitalLink: text), text)
        check(GS1.parse(digitalLink: "https://id.gs1.org/01/09506000134352" + text), text)
        _ = GS1.reading(symbologyIdentifier: "]Q1", data: bytes, text: text)
    }
    return 0
}

/// The debug build's entry point: SwiftPM links debug executables with `main` renamed to
/// `FuzzGS1_main`, so libFuzzer's own `main` is not used there; this one starts its driver.
@_cdecl("FuzzGS1_main")
public func FuzzGS1Main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzerDriver(argc, argv, fuzz)
}
