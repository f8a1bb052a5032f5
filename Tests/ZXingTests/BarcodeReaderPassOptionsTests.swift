import Media
import Testing
import TestSupport
import ZXing

/// A QR code whose middle rows are wiped white: its finder patterns stand, its data is past repair.
func damagedQRFrame() throws -> GreyFrame {
    var (frame, code) = frameWithCode(try ModuleMatrix.qrCode("damaged beyond repair, finders intact"), moduleSize: 4)
    let (top, bottom) = (code.topLeft.y + 9 * code.moduleSize, code.bottomLeft.y - 9 * code.moduleSize)
    for y in Int(top)..<Int(bottom) {
        for x in Int(code.topLeft.x)..<Int(code.topRight.x) { frame[x, y] = 255 }
    }
    return frame
}

@Suite(.offThePool) struct BarcodeReaderPassOptionsTests {
    @Test("with returnErrors a code detected but not decoded is counted, never returned; without, it is not counted")
    func undecodedCodesAreCounted() throws {
        let frame = try damagedQRFrame()
        func counting(_ returnErrors: Bool) throws -> (barcodes: [ZXingBarcode], undecoded: Int) {
            let reader = BarcodeReader(hints: ZXingHints(symbologies: [.qrcode], tryHarder: false, tryRotate: false, tryDownscale: false,
                                                         tryInvert: false, returnErrors: returnErrors))
            return try frame.bytes.withUnsafeBytes {
                try reader.readCounting(luma: $0, width: frame.width, height: frame.height, rowStride: frame.bytesPerLine)
            }
        }
        let withErrors = try counting(true)
        #expect(withErrors.barcodes.isEmpty && withErrors.undecoded == 1)
        let without = try counting(false)
        #expect(without.barcodes.isEmpty && without.undecoded == 0)
    }

    @Test("try-invert reads light-on-dark codes; off, the reader does not")
    func tryInvert() throws {
        let (frame, _) = frameWithCode(try ModuleMatrix.qrCode("inverted"), moduleSize: 4)
        let inverted = frame.inverted()
        let on = BarcodeReader(hints: ZXingHints(symbologies: [.qrcode], tryHarder: false, tryRotate: false, tryDownscale: false))
        let off = BarcodeReader(hints: ZXingHints(symbologies: [.qrcode], tryHarder: false, tryRotate: false, tryDownscale: false, tryInvert: false))
        #expect(try read(inverted, with: on).map(\.text) == ["inverted"])
        #expect(try read(inverted, with: off).isEmpty)
        #expect(try read(frame, with: off).map(\.text) == ["inverted"])
    }

    @Test("the GlobalHistogram binarizer reads a clean code as the default one does")
    func globalHistogram() throws {
        let (frame, _) = frameWithCode(try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "HISTOGRAM").stretched(toRows: 30),
                                       moduleSize: 2)
        let histogram = BarcodeReader(hints: ZXingHints(symbologies: [.code128], binarizer: .globalHistogram))
        #expect(try read(frame, with: histogram).map(\.text) == ["HISTOGRAM"])
        #expect(histogram.configuration.binarizer == .globalHistogram)
    }
}
