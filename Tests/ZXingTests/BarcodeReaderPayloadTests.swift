import Media
import Testing
import TestSupport
import ZXing

let textPayload = Array("Hello syncscan 123".utf8)
/// Not ISO 8859-1 (the check mark), so zint without `--binary` tags it with ECI 26 (UTF-8).
let utf8Payload = Array("Grüße ✓".utf8)
/// NUL bytes and byte sequences that are not UTF-8.
let binaryPayload: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x7F, 0x00, 0x41, 0x00, 0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x80, 0xE2, 0x82]

/// One symbol to render and read back: which encoder, which payload, how large.
struct PayloadCase: CustomTestStringConvertible, Sendable {
    var symbology: Symbology
    /// zint's `-b` name; `nil` for a QR code from qrencode.
    var zint: String?
    var label: String
    var payload: [UInt8]
    /// zint `--binary`; without it the payload is UTF-8 text zint may tag with an ECI.
    var binary = true
    var moduleSize: Double = 3
    var scale = 0.5
    var quietZone = 4
    var width = 320, height = 240

    var testDescription: String { "\(symbology) \(label)" }

    func matrix() throws -> ModuleMatrix {
        guard let zint else { return try ModuleMatrix.qrCode(payload) }
        return try ModuleMatrix.zintSymbol(zint, payload: payload, binary: binary, scale: scale, quietZone: quietZone)
    }
}

let payloadCases: [PayloadCase] = {
    var cases: [PayloadCase] = []
    for (symbology, zint) in [(Symbology.aztec, "AZTEC"), (.datamatrix, "DATAMATRIX"), (.qrcode, "QRCODE")] {
        cases.append(PayloadCase(symbology: symbology, zint: zint, label: "text", payload: textPayload, binary: false))
        cases.append(PayloadCase(symbology: symbology, zint: zint, label: "UTF-8 with ECI 26", payload: utf8Payload, binary: false))
        cases.append(PayloadCase(symbology: symbology, zint: zint, label: "binary", payload: binaryPayload))
    }
    for (label, payload, binary) in [("text", textPayload, false), ("UTF-8 with ECI 26", utf8Payload, false), ("binary", binaryPayload, true)] {
        cases.append(PayloadCase(symbology: .pdf417, zint: "PDF417", label: label, payload: payload, binary: binary,
                                 moduleSize: 2, width: 560, height: 200))
        // MaxiCode's hexagons: zint's scale-1 raster (about 10 px per module) drawn pixel for pixel.
        cases.append(PayloadCase(symbology: .maxicode, zint: "MAXICODE", label: label, payload: payload, binary: binary,
                                 moduleSize: 1, scale: 1, quietZone: 10, width: 400, height: 400))
        // qrencode -8: 8-bit mode, no ECI whatever the bytes.
        cases.append(PayloadCase(symbology: .qrcode, zint: nil, label: "\(label) (qrencode -8)", payload: payload, moduleSize: 4))
    }
    // Micro QR holds at most 15 bytes in byte mode and takes no ECI.
    cases.append(PayloadCase(symbology: .microqr, zint: "MICROQR", label: "text", payload: Array("MICRO 42".utf8), binary: false))
    cases.append(PayloadCase(symbology: .microqr, zint: "MICROQR", label: "UTF-8", payload: utf8Payload))
    cases.append(PayloadCase(symbology: .microqr, zint: "MICROQR", label: "binary", payload: Array(binaryPayload.prefix(10))))
    return cases
}()

@Suite(.offThePool) struct BarcodeReaderPayloadTests {
    @Test("each 2-D symbology's payload comes back byte for byte, ECI marker not included", arguments: payloadCases)
    func payloadRoundTrips(c: PayloadCase) throws {
        let (frame, _) = frameWithCode(try c.matrix(), width: c.width, height: c.height, moduleSize: c.moduleSize)
        let found = try read(frame, with: reader([c.symbology]))
        #expect(found.map(\.symbology) == [c.symbology])
        #expect(found.first?.data == c.payload)
    }

    @Test("all readable symbologies on: each code is still reported as its own symbology", arguments: payloadCases.filter { $0.label == "binary" })
    func everythingOn(c: PayloadCase) throws {
        let (frame, _) = frameWithCode(try c.matrix(), width: c.width, height: c.height, moduleSize: c.moduleSize)
        let found = try read(frame, with: reader(BarcodeReader.readable))
        #expect(found.map(\.symbology) == [c.symbology])
        #expect(found.first?.data == c.payload)
    }

    @Test("the binary payload really holds NUL and bytes that are not UTF-8")
    func binaryPayloadIsHostile() {
        #expect(binaryPayload.contains(0x00))
        #expect(String(validating: binaryPayload, as: UTF8.self) == nil)
        #expect(String(validating: Array(binaryPayload.prefix(10)), as: UTF8.self) == nil)
    }

    @Test("EAN-13 and Code 128 from zint read as their digits and text")
    func linearCodes() throws {
        let ean = try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "590123412345").stretched(toRows: 40)
        let (eanFrame, _) = frameWithCode(ean, moduleSize: 2)
        let eanFound = try read(eanFrame, with: reader([.ean13, .code128]))
        #expect(eanFound.map(\.symbology) == [.ean13])
        #expect(eanFound.first?.data == Array("5901234123457".utf8))

        let code128 = try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "Hello-128", quietZone: 10).stretched(toRows: 40)
        let (codeFrame, _) = frameWithCode(code128, width: 400, height: 120, moduleSize: 2)
        let codeFound = try read(codeFrame, with: reader([.ean13, .code128]))
        #expect(codeFound.map(\.symbology) == [.code128])
        #expect(codeFound.first?.data == Array("Hello-128".utf8))
    }

    @Test("a 2 kB QR payload of every byte value comes back exactly")
    func largeQRPayload() throws {
        let payload: [UInt8] = (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) }
        let (frame, _) = frameWithCode(try ModuleMatrix.qrCode(payload, errorCorrection: .low), width: 560, height: 560)
        let found = try read(frame, with: reader([.qrcode]))
        let exact = found.map(\.data) == [payload]  // a Bool, so a 2 kB mismatch is not printed in full
        #expect(exact, "read \(found.count) codes, expected one holding these \(payload.count) bytes")
    }

    @Test("a blank frame yields nothing")
    func blankFrame() throws {
        #expect(try read(GreyFrame(width: 320, height: 240, background: 200), with: reader(BarcodeReader.readable)).isEmpty)
    }

    @Test("text is zxing-cpp's decoding: Kanji mode, QR byte mode's ISO-8859-1 default; nil for binary content and for a NUL")
    func text() throws {
        let kanji: [UInt8] = [0x8A, 0xBF, 0x8E, 0x9A, 0x83, 0x65, 0x83, 0x58, 0x83, 0x67]
        let cases: [(ModuleMatrix, [UInt8], String?)] = [
            (try ModuleMatrix.qrCode(kanji, kanji: true), kanji, "漢字テスト"),
            (try ModuleMatrix.qrCode([0x47, 0x72, 0xFC, 0xDF, 0x65]), [0x47, 0x72, 0xFC, 0xDF, 0x65], "Grüße"),
            (try ModuleMatrix.qrCode([0xFF, 0xFE, 0x00, 0xC3, 0x28]), [0xFF, 0xFE, 0x00, 0xC3, 0x28], nil),
            (try ModuleMatrix.qrCode([0x41, 0x00, 0x42]), [0x41, 0x00, 0x42], nil),
        ]
        for (matrix, data, text) in cases {
            let (frame, _) = frameWithCode(matrix, moduleSize: 4)
            let found = try read(frame, with: reader([.qrcode]))
            #expect(found.map(\.data) == [data])
            #expect(found.first?.text == text, "\(data)")
        }
    }
}
