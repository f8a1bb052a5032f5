import Media
import Testing
import TestSupport
import ZXing

@Suite(.offThePool) struct BarcodeReaderHintsTests {
    /// One frame holding a QR code on the left and an EAN-13 on the right.
    let frame: GreyFrame

    init() throws { frame = try GreyFrame.withQRCodeAndEAN13("hints") }

    func bothCodes() -> GreyFrame { frame }

    @Test("only requested symbologies are reported; none requested finds nothing (not zxing's \"any\")")
    func enableDisable() throws {
        let frame = bothCodes()
        #expect(try read(frame, with: reader([.qrcode])).map(\.symbology) == [.qrcode])
        let eanOnly = try read(frame, with: reader([.ean13]))
        #expect(eanOnly.map(\.symbology) == [.ean13])
        #expect(eanOnly.map(\.data) == [Array("5901234123457".utf8)])
        #expect(Set(try read(frame, with: reader([.qrcode, .ean13])).map(\.symbology)) == [.qrcode, .ean13])
        #expect(try read(frame, with: reader([])).isEmpty)
        // Symbologies zxing-cpp cannot read are ignored, which here leaves none.
        #expect(try read(frame, with: reader([.sqcode, .isbn13])).isEmpty)
    }

    @Test("the default hints read QR only")
    func defaultsAreQROnly() throws {
        #expect(ZXingHints().symbologies == [.qrcode])
        #expect(try read(bothCodes(), with: BarcodeReader()).map(\.symbology) == [.qrcode])
    }

    @Test("reconfiguring one reader takes effect on its next read, back and forth")
    func reconfigure() throws {
        let frame = bothCodes()
        let zxing = BarcodeReader()
        #expect(try read(frame, with: zxing).map(\.symbology) == [.qrcode])
        zxing.reconfigure(ZXingHints(symbologies: [.ean13]))
        #expect(zxing.configuration.symbologies == [.ean13])
        #expect(try read(frame, with: zxing).map(\.symbology) == [.ean13])
        zxing.reconfigure(ZXingHints(symbologies: [.qrcode]))
        #expect(try read(frame, with: zxing).map(\.symbology) == [.qrcode])
    }

    @Test("readable is exactly the 20 symbologies syncscan names that zxing-cpp 3.1.1 decodes")
    func readableSet() {
        #expect(BarcodeReader.readable == [
            .qrcode, .microqr, .rmqr, .aztec, .datamatrix, .pdf417, .maxicode, .databarLtd, .dxfilmedge,
            .ean13, .ean8, .upca, .upce, .i25, .databar, .databarExp, .codabar, .code39, .code93, .code128,
        ])
    }

    @Test("a library failure reads as the call, zxing's message and what to do")
    func errorDescription() {
        let error = ZXingError(call: "ZXing_ReadBarcodes", message: "std::bad_alloc", remedy: "skip this frame")
        #expect(error.description == "ZXing_ReadBarcodes failed: std::bad_alloc — skip this frame")
    }
}
