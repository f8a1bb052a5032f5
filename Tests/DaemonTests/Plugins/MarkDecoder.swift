import Capture
import ConfigurationKeys
import Daemon
import Media

/// A decoder library added by its descriptor alone: its one pass (`mark`) reads the first sample
/// of `mark.value` (its one setting, 1 to 255) in the region as a Code 93 `mark X,Y`; its
/// settings reach its reader through `DecoderRequest.options`, and a reload applies them in place.
struct MarkSettings: Sendable, Hashable {
    var value = 7

    init() {}
    init(reading keys: ConfigurationKeyReader) {
        if let v = keys.int("value", in: 1...255) { value = v }
    }
}

struct MarkDecoderLibrary: DecoderLibrary {
    static let pass = DecoderPass("mark", library: "mark", cost: .light)
    var id: DecoderLibraryID { "mark" }
    var readable: Set<Symbology> { [.code93] }
    var passes: [DecoderPass] { [Self.pass] }
    var version: DecoderLibraryVersion { DecoderLibraryVersion(name: "mark", version: "1.0", origin: "a test") }
    var readsPixelStride: Bool { false }
    var reportsUndecoded: Bool { false }
    func makeReader() -> any DecoderReader { Reader() }

    final class Reader: DecoderReader {
        func read(_ pass: DecoderPass, in luma: LumaPlane, region: PixelRect?, request: DecoderRequest) -> Result<DecoderReading, DecoderFailure> {
            let value = UInt8(request.options?.value(as: MarkSettings.self)?.value ?? MarkSettings().value)
            for y in 0..<luma.height {
                for x in 0..<luma.width where luma.bytes[y * luma.rowStride + x] == value {
                    let text = "mark \(x),\(y)"
                    let corners = [PixelPoint(x: x, y: y), PixelPoint(x: x, y: y + 1), PixelPoint(x: x + 1, y: y + 1), PixelPoint(x: x + 1, y: y)]
                    return .success(DecoderReading(codes: [DecodedCode(symbology: .code93, data: Array(text.utf8), text: text, quality: nil,
                                                                       orientation: .up, corners: corners)]))
                }
            }
            return .success(DecoderReading(codes: []))
        }
    }
}

extension SettingsKey where Value == MarkSettings {
    static var mark: Self { Self("mark", default: MarkSettings()) }
}

extension DecoderLibraryDescriptor {
    static let mark = DecoderLibraryDescriptor(
        library: MarkDecoderLibrary(), engines: [DecoderEngine(name: "mark", libraries: [MarkDecoderLibrary()], passes: [MarkDecoderLibrary.pass])],
        settings: .mark, read: MarkSettings.init(reading:), describe: { [("value", "\($0.value)")] })
}
