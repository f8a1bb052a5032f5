import Capture
import Decoders
import Media
import Testing
import TestSupport

/// A code made at test time whose text depends on its character set, with the bytes and text expected.
struct CharacterSetCase: CustomTestStringConvertible, Sendable {
    var name: String
    var symbology: Symbology
    /// The payload's exact bytes, as `data_b64` carries them.
    var data: [UInt8]
    /// The text every engine must give, checked against `zbarimg` and zxing-cpp's own text.
    var text: String
    var make: @Sendable () throws -> ModuleMatrix

    var testDescription: String { name }
}

/// "漢字テスト" in Shift_JIS.
let kanjiBytes: [UInt8] = [0x8A, 0xBF, 0x8E, 0x9A, 0x83, 0x65, 0x83, 0x58, 0x83, 0x67]
/// "Grüße" in ISO-8859-1.
let latin1Bytes: [UInt8] = [0x47, 0x72, 0xFC, 0xDF, 0x65]

let characterSetCases: [CharacterSetCase] = [
    CharacterSetCase(name: "QR in Kanji mode (qrencode -k)", symbology: .qrcode, data: kanjiBytes, text: "漢字テスト",
                     make: { try ModuleMatrix.qrCode(kanjiBytes, kanji: true) }),
    CharacterSetCase(name: "QR in byte mode, ISO-8859-1 (qrencode -8)", symbology: .qrcode, data: latin1Bytes, text: "Grüße",
                     make: { try ModuleMatrix.qrCode(latin1Bytes) }),
    CharacterSetCase(name: "QR, UTF-8 with ECI 26 (zint --eci=26)", symbology: .qrcode, data: Array("Grüße ✓".utf8),
                     text: "Grüße ✓", make: { try ModuleMatrix.zintSymbol("QRCODE", text: "Grüße ✓", arguments: ["--eci=26"]) }),
    // zint converts UTF-8 input to ISO-8859-1, DataMatrix's default character set, and adds no ECI.
    CharacterSetCase(name: "DataMatrix, ISO-8859-1 (zint)", symbology: .datamatrix, data: latin1Bytes, text: "Grüße",
                     make: { try ModuleMatrix.zintSymbol("DATAMATRIX", text: "Grüße") }),
]

@Suite(.offThePool) struct CodeTextTests {
    @Test("text is the symbology's decoding (Kanji mode, ISO-8859-1 default, ECI) and data the exact bytes, for every engine reading it",
          arguments: characterSetCases)
    func characterSets(c: CharacterSetCase) throws {
        var grey = GreyFrame(width: 320, height: 240)
        grey.draw(try c.make(), centerX: 160, centerY: 120, moduleSize: 4)
        let engines = DecoderEngine.engines(reading: c.symbology)
        #expect(engines.contains(.zxing) && engines.contains(.hybrid))
        #expect(engines.contains(.zbar) == (c.symbology == .qrcode))
        for engine in engines {
            let settings = MetadataOutput.Settings(engine: engine, scanner: ScannerSettings(symbologies: [c.symbology]))
            let codes = MetadataOutput(settings: settings).makeScanner().scan(grey.videoFrame())
            #expect(codes.map(\.symbology) == [c.symbology], "\(engine)")
            #expect(codes.first?.data == c.data, "\(engine)")
            #expect(codes.first?.text == c.text, "\(engine)")
        }
    }

    @Test("zbarimg's own text for the zbar cases is the expected text (zbar's conversion, outside binary mode)",
          arguments: characterSetCases.filter { $0.symbology == .qrcode })
    func zbarimgAgrees(c: CharacterSetCase) throws {
        var grey = GreyFrame(width: 320, height: 240)
        grey.draw(try c.make(), centerX: 160, centerY: 120, moduleSize: 4)
        let image = try TemporaryFile(contents: grey.pgmBytes(), suffix: ".pgm")
        let result = try ExternalTool.run("zbarimg", ["--raw", "-q", image.path])
        #expect(result.status == 0, "\(result.describe())")
        #expect(String(decoding: result.stdout, as: UTF8.self) == c.text + "\n")
    }
}
