import Foundation
import Media
import Testing
import TestSupport
import ZXing

@Suite(.offThePool) struct BarcodeReaderSoakTests {
    /// Frame sizes from QVGA to 1080p, the range cameras deliver.
    static let frameSizes = [(320, 240), (640, 480), (1280, 720), (1920, 1080)]

    @Test("many 1-D frames (EAN-13, Code 128; 2-4 px modules; QVGA to 1080p) with downscaling on: each reads, none aborts")
    func linearSoak() throws {
        // Downscaling with 1-D formats on: zxing-cpp 1.4.0 aborted on an assertion on some of these
        // frames (merging a downscaled pass's 1-D result with a full-size one); 3.1.1 must not.
        let hints = ZXingHints(symbologies: [.ean13, .code128, .qrcode], tryHarder: true, tryRotate: true, tryDownscale: true)
        let zxing = BarcodeReader(hints: hints)
        let eans = try ["590123412345", "400638133393", "871234567890"].map { digits in
            (try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: digits), digits)
        }
        let code128s = try ["syncscan-128", "A1b2C3d4", "0000-9999"].map { text in
            (try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: text, quietZone: 10), text)
        }
        var reads = 0
        for (width, height) in Self.frameSizes {
            for moduleSize in [2.0, 3, 4] {
                for (kind, (matrix, text)) in eans.map({ ("ean13", $0) }) + code128s.map({ ("code128", $0) }) {
                    let barWidth = Double(matrix.columns + 2 * matrix.quietZone) * moduleSize
                    guard barWidth < Double(width) else { continue }
                    var frame = GreyFrame(width: width, height: height, background: 235)
                    // Off-centre and a bar height about a quarter of the frame, as a hand-held label.
                    let rows = max(20, Int(Double(height) / 4 / moduleSize))
                    frame.draw(matrix.stretched(toRows: rows), x: Double(width) / 2 - barWidth / 2 + Double(width) / 10,
                               y: Double(height) / 3, moduleSize: moduleSize, dark: 30, light: 235)
                    let found = try read(frame, with: zxing)
                    let expected = kind == "ean13" ? nil : Array(text.utf8)
                    #expect(found.count == 1, "\(kind) \(width)x\(height) at \(moduleSize) px/module: \(found.count) codes")
                    if let expected {
                        #expect(found.first?.data == expected, "\(kind) \(width)x\(height) at \(moduleSize) px/module")
                        #expect(found.first?.symbology == .code128)
                    } else {
                        // zint adds the check digit; zxing returns all 13 digits.
                        #expect(found.first?.data.prefix(12).elementsEqual(text.utf8) == true, "\(width)x\(height) at \(moduleSize) px/module")
                        #expect(found.first?.data.count == 13)
                        #expect(found.first?.symbology == .ean13)
                    }
                    reads += 1
                }
            }
        }
        #expect(reads >= 50)  // 72 combinations, less those too wide for QVGA (speed is the benchmarks' business)
    }
}
