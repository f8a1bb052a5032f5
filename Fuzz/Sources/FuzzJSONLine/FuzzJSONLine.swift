// libFuzzer: arbitrary payload bytes → JSONLineEncoder. The line must be one line to every reader
// (a single trailing "\n"; no other raw C0 control, DEL, C1 control — NEL among them — U+2028 or
// U+2029, which Python's str.splitlines() and JavaScript break lines at), parse as JSON, and its
// data_b64 must decode to exactly the payload; "text" (present only for UTF-8 payloads) and
// "source" must equal the payload as text.
import Capture
import Decoders
import Foundation
import FuzzDriver
import Media
import Results

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let payload = Array(UnsafeBufferPointer(start: data, count: size))
    let frame = FrameInfo(sequenceNumber: 1, presentationTime: .zero, width: 640, height: 480, format: .grey)
    let code = MachineReadableCodeObject(symbology: .qrcode, data: payload, text: String(validating: payload, as: UTF8.self), quality: 1, orientation: .up,
                                         corners: [PixelPoint(x: 0, y: 0)], frame: frame, pass: .zbar)
    // The payload also goes in as the source name (a string field) when it is UTF-8.
    let source = String(validating: payload, as: UTF8.self) ?? "fuzz"
    let line = JSONLineEncoder().encode(code, source: source, time: WallClockTime(secondsSince1970: 0, milliseconds: 0))
    guard line.last == 0x0A, line.dropLast().firstIndex(of: 0x0A) == nil, line.firstIndex(of: 0x0D) == nil else {
        fatalError("not exactly one line: \(line)")
    }
    let text = String(decoding: line, as: UTF8.self)
    if let raw = text.unicodeScalars.dropLast().first(where: { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029 }) {
        fatalError("raw U+\(String(raw.value, radix: 16, uppercase: true)) in \(text)")
    }
    guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
        fatalError("line does not parse: \(text)")
    }
    guard let b64 = object["data_b64"] as? String, let decoded = Data(base64Encoded: b64), Array(decoded) == payload else {
        fatalError("data_b64 does not round-trip: \(text)")
    }
    let expectedText = String(validating: payload, as: UTF8.self)
    if (object["text"] as? String) != expectedText { fatalError("text differs: \(text)") }
    if (object["source"] as? String) != source { fatalError("source differs: \(text)") }
    return 0
}

/// The debug build's entry point: SwiftPM links debug executables with `main` renamed to
/// `FuzzJSONLine_main`, so libFuzzer's own `main` is not used there; this one starts its driver.
@_cdecl("FuzzJSONLine_main")
public func FuzzJSONLineMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzerDriver(argc, argv, fuzz)
}
