import Media
import Testing
import TestSupport
import ZBar

@Suite(.offThePool) struct ImageScannerTextTests {
    /// "漢字テスト" in Shift_JIS, and "Grüße" in ISO-8859-1.
    static let kanji: [UInt8] = [0x8A, 0xBF, 0x8E, 0x9A, 0x83, 0x65, 0x83, 0x58, 0x83, 0x67]
    static let latin1: [UInt8] = [0x47, 0x72, 0xFC, 0xDF, 0x65]

    @Test("two QR codes needing zbar's text pass in one frame each get their own text, bytes exact")
    func twoCodesTwoTexts() throws {
        var frame = GreyFrame(width: 480, height: 240)
        frame.draw(try ModuleMatrix.qrCode(Self.kanji, kanji: true), centerX: 120, centerY: 120, moduleSize: 4)
        frame.draw(try ModuleMatrix.qrCode(Self.latin1), centerX: 360, centerY: 120, moduleSize: 4)
        let found = scan(frame).sorted { ($0.points.first?.x ?? 0) < ($1.points.first?.x ?? 0) }
        #expect(found.map(\.data) == [Self.kanji, Self.latin1])
        #expect(found.map(\.text) == ["漢字テスト", "Grüße"])
    }

    @Test("an ASCII QR payload's text is its bytes; a 1-D code's text is its bytes")
    func asciiAndLinear() throws {
        let (qr, _) = frameWithCode(try ModuleMatrix.qrCode("plain ascii"))
        #expect(scan(qr).map(\.text) == ["plain ascii"])
        var frame = GreyFrame(width: 640, height: 240)
        frame.draw(try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "syncscan-128", quietZone: 10).stretched(toRows: 40),
                   x: 20, y: 80, moduleSize: 2)
        let linear = scan(frame, with: ImageScanner(settings: ScannerSettings(symbologies: [.code128])))
        #expect(linear.map(\.text) == ["syncscan-128"])
    }
}
