import Media
import Testing
import TestSupport
import ZXing

/// A QR code whose middle rows are wiped white: its finder patterns stand, its data is past repair.
func damagedQRFrame() throws -> GreyFrame {
    let (frame, code) = frameWithCode(try ModuleMatrix.qrCode("damaged beyond repair, finders intact"), moduleSize: 4)
    return frame.withDataRowsWiped(of: code)
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

    @Test("readReporting gives where a code detected but not decoded is and why; it is never a barcode")
    func undecodedCodesHaveTheirPosition() throws {
        let (frame, code) = frameWithCode(try ModuleMatrix.qrCode("damaged beyond repair, finders intact"), moduleSize: 4)
        let damaged = frame.withDataRowsWiped(of: code)
        let reader = BarcodeReader(hints: ZXingHints(symbologies: [.qrcode], tryHarder: false, tryRotate: false, tryDownscale: false,
                                                     tryInvert: false, returnErrors: true))
        let found = try damaged.bytes.withUnsafeBytes {
            try reader.readReporting(luma: $0, width: damaged.width, height: damaged.height, rowStride: damaged.bytesPerLine)
        }
        #expect(found.barcodes.isEmpty)
        let undecoded = try #require(found.undecoded.first)
        #expect(found.undecoded.count == 1 && undecoded.symbology == .qrcode)
        #expect(["format", "checksum"].contains(undecoded.error), "\(undecoded.error)")
        // zxing-cpp's order: the code's top-left, top-right, bottom-right, bottom-left.
        #expect(undecoded.corners.count == 4)
        for (corner, drawn) in zip(undecoded.corners, code.corners) {
            #expect(drawn.distance(toX: corner.x, y: corner.y) <= 2 * code.moduleSize, "\(corner) against \(drawn)")
        }
        // The undamaged code is read, and nothing is reported undecoded.
        let clean = try frame.bytes.withUnsafeBytes {
            try reader.readReporting(luma: $0, width: frame.width, height: frame.height, rowStride: frame.bytesPerLine)
        }
        #expect(clean.barcodes.map(\.text) == ["damaged beyond repair, finders intact"] && clean.undecoded.isEmpty)
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
