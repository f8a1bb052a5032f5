import Capture
import Decoders
import Foundation
import Media
import Results
import Testing
import TestSupport

/// The code lines one scan of `grey` gives with `engine`, parsed as JSON objects.
private func lines(_ grey: GreyFrame, engine: DecoderEngine, _ symbologies: Set<Symbology>) throws -> [[String: Any]] {
    let settings = MetadataOutput.Settings(engine: engine, scanner: ScannerSettings(symbologies: symbologies))
    return try MetadataOutput(settings: settings).makeScanner().scan(grey.videoFrame()).map { code in
        let line = JSONLineEncoder().encode(code, source: "test", time: WallClockTime(secondsSince1970: 0, milliseconds: 0))
        return try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
    }
}

/// A frame with one zint symbol drawn at 2 pixels a module (default).
private func frame(_ zint: String, _ input: String, arguments: [String] = ["--gs1"], moduleSize: Double = 2) throws -> GreyFrame {
    var grey = GreyFrame(width: 1280, height: 400)
    grey.draw(try ModuleMatrix.zintSymbol(zint, text: input, quietZone: 12, arguments: arguments + ["--notext"]),
              centerX: 640, centerY: 200, moduleSize: moduleSize)
    return grey
}

/// `elements` as `(01)…` pairs, from a line's `gs1`.
private func hri(_ line: [String: Any]) -> String? {
    guard let gs1 = line["gs1"] as? [String: Any], let elements = gs1["elements"] as? [[String: String]] else { return nil }
    let joined = elements.map { "(\($0["ai"] ?? "?"))\($0["value"] ?? "?")" }.joined()
    return joined == gs1["hri"] as? String ? joined : "hri \(gs1["hri"] ?? "none") differs from elements \(joined)"
}

@Suite(.offThePool) struct GS1LineTests {
    // zbar reads no stacked DataBar (DBAR_EXPSTK) and no DataMatrix or DataBar Limited.
    static let valid: [(zint: String, input: String, symbology: Symbology, id: String, hri: String, engines: [DecoderEngine])] = [
        ("GS1_128", "[01]09506000134352[10]ABC123[17]201225", .code128, "]C1", "(01)09506000134352(10)ABC123(17)201225", [.zbar, .zxing, .hybrid]),
        ("GS1_128", "[00]106141411234567897[3103]000150[21]SN-7", .code128, "]C1", "(00)106141411234567897(3103)000150(21)SN-7", [.zbar, .zxing, .hybrid]),
        ("DATAMATRIX", "[01]09506000134352[17]201225[10]ABC123[21]S/1", .datamatrix, "]d2", "(01)09506000134352(17)201225(10)ABC123(21)S/1", [.zxing, .hybrid]),
        ("QRCODE", "[01]09506000134352[10]LOT7[7003]2512311030", .qrcode, "]Q3", "(01)09506000134352(10)LOT7(7003)2512311030", [.zbar, .zxing, .hybrid]),
        ("DBAR_EXP", "[01]09506000134352[3103]000150[10]AB12", .databarExp, "]e0", "(01)09506000134352(3103)000150(10)AB12", [.zbar, .zxing, .hybrid]),
        ("DBAR_EXPSTK", "[01]09506000134352[17]201225[10]ABC123", .databarExp, "]e0", "(01)09506000134352(17)201225(10)ABC123", [.zxing, .hybrid]),
        ("DBAR_LTD", "0950600013435", .databarLtd, "]e0", "(01)09506000134352", [.zxing, .hybrid]),
    ]

    @Test("GS1 codes: every element in order, its HRI and its AIM identifier, on every engine that reads the symbology",
          arguments: valid.indices)
    func validElementStrings(index: Int) throws {
        let c = Self.valid[index]
        let grey = try frame(c.zint, c.input, arguments: c.zint == "DBAR_LTD" ? [] : ["--gs1"])
        for engine in c.engines {
            let read = try lines(grey, engine: engine, [c.symbology])
            #expect(read.count == 1, "\(c.zint) \(engine): \(read)")
            guard let line = read.first else { continue }
            #expect(line["symbology_id"] as? String == c.id, "\(c.zint) \(engine)")
            #expect(hri(line) == c.hri, "\(c.zint) \(engine): \(line)")
            #expect(line["gs1_error"] == nil, "\(c.zint) \(engine): \(line)")
        }
    }

    static let faulty: [(zint: String, input: String, symbology: Symbology, error: String)] = [
        ("GS1_128", "[01]09506000134353[10]A1", .code128, "(01): check digit is 3, expected 2"),
        ("DATAMATRIX", "[01]09506000134352[17]201345", .datamatrix, "(17): 201345 is not a date (month 13)"),
        ("QRCODE", "[01]09506000134352[17]210229", .qrcode, "(17): 210229 is not a date (day 29 of month 2)"),
        ("GS1_128", "[01]09506000134352[89]ABC", .code128, "(89): unknown AI after (01)"),
    ]

    @Test("faulty GS1 codes are flagged with the AI and the fault, never given a gs1 field", arguments: faulty.indices)
    func faultsFlagged(index: Int) throws {
        let c = Self.faulty[index]
        let grey = try frame(c.zint, c.input, arguments: ["--gs1", "--gs1nocheck"])
        for engine in DecoderEngine.allCases where engine.readable.contains(c.symbology) {
            let read = try lines(grey, engine: engine, [c.symbology])
            #expect(read.count == 1, "\(c.zint) \(engine): \(read)")
            guard let line = read.first else { continue }
            #expect(line["gs1_error"] as? String == c.error, "\(c.zint) \(engine): \(line)")
            #expect(line["gs1"] == nil)
        }
    }

    @Test("a GS1 Digital Link in a plain QR code is parsed; a malformed percent-encoding is flagged; other URLs are not GS1")
    func digitalLink() throws {
        let cases: [(String, String?, String?)] = [
            ("https://id.gs1.org/01/09506000134352/10/AB%2D1?17=201225", "(01)09506000134352(10)AB-1(17)201225", nil),
            ("https://example.com/01/09506000134352/10/AB%2", nil, "(10): malformed percent-encoding in its value"),
            ("https://example.com/shop/42", nil, nil),
        ]
        for (uri, expected, error) in cases {
            var grey = GreyFrame(width: 320, height: 320)
            grey.draw(try ModuleMatrix.qrCode(uri), centerX: 160, centerY: 160, moduleSize: 4)
            for engine in DecoderEngine.allCases {
                let line = try #require(try lines(grey, engine: engine, [.qrcode]).first, "\(uri) \(engine)")
                #expect(line["symbology_id"] as? String == "]Q1", "\(engine)")
                #expect(hri(line) == expected, "\(uri) \(engine)")
                #expect(line["gs1_error"] as? String == error, "\(uri) \(engine)")
            }
        }
    }

    @Test("rMQR is named, in all, and read with its exact bytes")
    func rmqr() throws {
        #expect(DecoderEngine.zxing.readable.contains(.rmqr) && DecoderEngine.hybrid.readable.contains(.rmqr))
        #expect(Symbology(configName: "rmqr") == .rmqr && Symbology(configName: "databar-ltd") == .databarLtd
                && Symbology(configName: "dxfilmedge") == .dxfilmedge)
        let grey = try frame("RMQR", "RMQR-123 syncscan", arguments: [], moduleSize: 4)
        for engine in [DecoderEngine.zxing, .hybrid] {
            let line = try #require(try lines(grey, engine: engine, Set(engine.readable)).first)
            #expect(line["symbology"] as? String == "rmqr")
            #expect(line["data_b64"] as? String == Data("RMQR-123 syncscan".utf8).base64EncodedString())
            #expect(line["symbology_id"] as? String == "]Q1")
        }
    }
}
