import Media
import Testing
import TestSupport
import ZBar

/// Scans a whole grey frame (padding included in the bytes, cropped by width) with `scanner`.
func scan(_ frame: GreyFrame, with scanner: ImageScanner = ImageScanner(), region: PixelRect? = nil) -> [DecodedSymbol] {
    frame.withUnsafeBytes {
        scanner.scan(luma: $0, width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine, region: region)
    }
}

/// A white frame with `matrix` centred at `moduleSize` pixels per module, plus where it landed.
func frameWithCode(_ matrix: ModuleMatrix, width: Int = 320, height: Int = 240, moduleSize: Double = 4,
                   rotationDegrees: Double = 0, samplesPerAxis: Int = 1) -> (GreyFrame, RenderedCode) {
    var frame = GreyFrame(width: width, height: height)
    let code = frame.draw(matrix, centerX: Double(width) / 2, centerY: Double(height) / 2, moduleSize: moduleSize,
                          rotationDegrees: rotationDegrees, samplesPerAxis: samplesPerAxis)
    return (frame, code)
}

/// A named payload, so parameterized test output says which one failed.
struct Payload: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: [UInt8]
    var testDescription: String { name }
}

/// 2,000 bytes covering every byte value, NUL and invalid UTF-8 included, in a fixed order.
let twoKilobytePayload: [UInt8] = (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) }

let payloads: [Payload] = [
    Payload(name: "ASCII", bytes: Array("syncscan https://example.org/a?b=1".utf8)),
    Payload(name: "UTF-8", bytes: Array("Grüße ✓".utf8)),
    Payload(name: "binary with NUL bytes", bytes: [0x00, 0x01, 0x00, 0x00, 0x7F, 0x00, 0x41, 0x00]),
    Payload(name: "invalid UTF-8", bytes: [0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x80, 0xE2, 0x82]),
    Payload(name: "2 kB mixed bytes", bytes: twoKilobytePayload),
]

@Suite(.offThePool) struct ImageScannerPayloadTests {
    @Test("a QR code's payload comes back byte for byte", arguments: payloads)
    func payloadRoundTrips(payload: Payload) throws {
        let large = payload.bytes.count > 500
        let matrix = try ModuleMatrix.qrCode(payload.bytes, errorCorrection: large ? .low : .medium)
        let (frame, _) = frameWithCode(matrix, width: large ? 560 : 320, height: large ? 560 : 240,
                                       moduleSize: large ? 3 : 4)
        let symbols = scan(frame)
        #expect(symbols.count == 1)
        #expect(symbols.first?.symbology == .qrcode)
        let exact = symbols.first?.data == payload.bytes  // a Bool, so a 2 kB mismatch is not printed in full
        #expect(exact, "decoded \(symbols.first?.data.count ?? 0) bytes, expected these \(payload.bytes.count) exactly")
        #expect(symbols.first?.quality == 1)
    }

    @Test("the fixture's 2 kB payload really holds NUL and bytes that are not UTF-8")
    func largePayloadIsHostile() {
        #expect(twoKilobytePayload.count == 2000)
        #expect(twoKilobytePayload.contains(0x00))
        #expect(String(validating: twoKilobytePayload, as: UTF8.self) == nil)
    }

    @Test("zbarimg (the zbar CLI) reads the same bytes from the same frame saved as PGM", arguments: payloads)
    func agreesWithZBarImg(payload: Payload) throws {
        let large = payload.bytes.count > 500
        let matrix = try ModuleMatrix.qrCode(payload.bytes, errorCorrection: large ? .low : .medium)
        let (frame, _) = frameWithCode(matrix, width: large ? 560 : 320, height: large ? 560 : 240,
                                       moduleSize: large ? 3 : 4, rotationDegrees: large ? 0 : 20, samplesPerAxis: 3)
        let cli = try ZBarImg.decode(frame, arguments: ["-Sdisable", "-Sqrcode.enable"])
        let ours = scan(frame)
        let cliExact = cli == payload.bytes, oursExact = ours.map(\.data) == [payload.bytes]
        #expect(cliExact, "zbarimg gave \(cli?.count ?? 0) bytes, expected these \(payload.bytes.count)")
        #expect(oursExact, "the wrapper found \(ours.count) codes, expected one holding these \(payload.bytes.count) bytes")
    }

    @Test("zbarimg and the wrapper agree on an EAN-13 made by zint")
    func agreesWithZBarImgOnEAN13() throws {
        let ean = try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "590123412345").stretched(toRows: 30)
        let (frame, _) = frameWithCode(ean, moduleSize: 2)
        let cli = try ZBarImg.decode(frame, arguments: ["-Sdisable", "-Sean13.enable"])
        let ours = scan(frame, with: ImageScanner(settings: ScannerSettings(symbologies: [.ean13])))
        #expect(cli == Array("5901234123457".utf8))
        #expect(ours.map(\.data) == [Array("5901234123457".utf8)])
        #expect(ours.first?.symbology == .ean13)
    }

    @Test("a blank frame yields nothing, for zbarimg and for the wrapper alike")
    func blankFrameYieldsNothing() throws {
        let frame = GreyFrame(width: 160, height: 120, background: 200)
        #expect(scan(frame).isEmpty)
        #expect(try ZBarImg.decode(frame) == nil)
    }
}
