import Capture
import Decoders
import Foundation
import Media
import Results
import Testing
import TestSupport

/// The code lines one scan of `grey` gives with `engine`, parsed as JSON objects.
private func lines(_ grey: GreyFrame, engine: DecoderEngine, _ symbologies: Set<Symbology>,
                   addOn: EANAddOn = .read) throws -> [[String: Any]] {
    let settings = MetadataOutput.Settings(engine: engine, scanner: ScannerSettings(symbologies: symbologies, eanAddOn: addOn))
    return try MetadataOutput(settings: settings).makeScanner().scan(grey.videoFrame()).map { code in
        let line = JSONLineEncoder().encode(code, source: "test", time: WallClockTime(secondsSince1970: 0, milliseconds: 0))
        return try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
    }
}

/// A frame with one EAN/UPC symbol zint drew (`main+addon` in its data), at `moduleSize` pixels a module.
private func frame(_ zint: String, _ data: String, moduleSize: Double) throws -> GreyFrame {
    var grey = GreyFrame(width: 1280, height: 400)
    grey.draw(try ModuleMatrix.zintSymbol(zint, text: data, quietZone: 12, arguments: ["--notext"]),
              centerX: 640, centerY: 200, moduleSize: moduleSize)
    return grey
}

/// What a line says, in one string a failed expectation shows whole.
private func summary(_ line: [String: Any]) -> String {
    "\(line["symbology"] ?? "-") \(line["text"] ?? "-") addon=\(line["addon"] ?? "-") id=\(line["symbology_id"] ?? "-")"
}

@Suite(.offThePool) struct AddOnLineTests {
    /// zint's data (`main+addon`), what the line's text is, its add-on and symbology.
    static let codes: [(zint: String, data: String, text: String, addOn: String, symbology: Symbology)] = [
        ("EANX", "978073520044+12", "9780735200449 12", "12", .ean13),
        ("EANX", "978073520044+51299", "9780735200449 51299", "51299", .ean13),
        ("UPCA", "01234567890+51299", "012345678905 51299", "51299", .upca),
    ]
    /// Every main symbology and both add-ons asked for: what gave zbar's add-on a line of its own.
    static let asked: Set<Symbology> = [.ean13, .upca, .upce, .ean2, .ean5]

    @Test("EAN-13+2, EAN-13+5 and UPC-A+5 at two scales: one line each, with its add-on, no ean2/ean5 line, on every engine",
          arguments: codes.indices, [2.0, 3.0])
    func oneReadingWithItsAddOn(index: Int, moduleSize: Double) throws {
        let c = Self.codes[index]
        let grey = try frame(c.zint, c.data, moduleSize: moduleSize)
        for engine in DecoderEngine.allCases {
            let read = try lines(grey, engine: engine, Self.asked)
            #expect(read.map(summary) == ["\(c.symbology) \(c.text) addon=\(c.addOn) id=]E3"], "\(c.data) at \(moduleSize) \(engine)")
            guard let line = read.first else { continue }
            #expect(line["data_b64"] as? String == Data(c.text.utf8).base64EncodedString(), "\(c.data) \(engine)")
        }
    }

    @Test("ean.addon: require reads a main code only with its add-on; ignore reads it alone, zbar's add-on a code of its own")
    func requireAndIgnore() throws {
        let plain = try frame("EANX", "978073520044", moduleSize: 2)
        let withAddOn = try frame("EANX", "978073520044+51299", moduleSize: 2)
        for engine in DecoderEngine.allCases {
            #expect(try lines(plain, engine: engine, Self.asked, addOn: .require).isEmpty, "\(engine)")
            #expect(try lines(withAddOn, engine: engine, Self.asked, addOn: .require).map(summary)
                    == ["ean13 9780735200449 51299 addon=51299 id=]E3"], "\(engine)")
            #expect(try lines(plain, engine: engine, Self.asked, addOn: .read).map(summary) == ["ean13 9780735200449 addon=- id=]E0"], "\(engine)")
            let ignored = try lines(withAddOn, engine: engine, Self.asked, addOn: .ignore).map(summary)
            let addOnAlone = engine == .zxing ? [] : ["ean5 51299 addon=- id=]E2"]
            #expect(ignored.sorted() == (["ean13 9780735200449 addon=- id=]E0"] + addOnAlone).sorted(), "\(engine)")
        }
    }
}
