@testable import Capture
import Media
import Testing
import TestSupport

/// An EAN-13 with the 5-digit add-on 54495, 3 px a module, whose first bar is `x` pixels into a 560x120 frame.
private func eanWithAddOn(leftAt x: Double) throws -> GreyFrame {
    let symbol = try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "978020137962+54495", quietZone: 0).stretched(toRows: 20)
    var frame = GreyFrame(width: 560, height: 120)
    frame.draw(symbol, x: x, y: 30, moduleSize: 3)
    return frame
}

/// The add-ons `engine` reads on `frame`, by text (`nil`: read without one).
private func readings(_ frame: GreyFrame, _ engine: DecoderEngine) -> [String?] {
    let settings = MetadataOutput.Settings(engine: engine, scanner: ScannerSettings(symbologies: [.ean13]), effort: .max)
    return MetadataOutput(settings: settings).makeScanner().scan(frame.videoFrame()).filter { $0.symbology == .ean13 }.map { code in
        code.addOn.map { String(decoding: $0, as: UTF8.self) }
    }
}

/// A reading of an EAN-13 whose outline (with its add-on) runs from x 100 to `end` in a 640x480 frame.
private func reading(addOn: String, end: Int) -> MachineReadableCodeObject {
    let frame = FrameInfo(sequenceNumber: 0, presentationTime: .zero, width: 640, height: 480, format: .grey)
    return MachineReadableCodeObject(symbology: .ean13, data: Array("9780201379624 \(addOn)".utf8), text: "9780201379624 \(addOn)",
                                     quality: nil, orientation: .up,
                                     corners: [PixelPoint(x: 100, y: 200), PixelPoint(x: 100, y: 260), PixelPoint(x: end, y: 260), PixelPoint(x: end, y: 200)],
                                     frame: frame, pass: .zxingFull, symbologyIdentifier: "]E3", addOn: Array(addOn.utf8))
}

@Suite(.offThePool) struct AddOnAtFrameEdgeTests {
    @Test("an add-on wholly in the frame is read with its code; one the frame's edge cuts into its quiet zone is dropped, the code kept")
    func addOnAtTheEdgeIsDropped() throws {
        for engine in [DecoderEngine.zxing, .zbar] {
            // About 151 modules (453 px) from x 50: the add-on and its quiet zone end near 518, inside.
            #expect(readings(try eanWithAddOn(leftAt: 50), engine) == ["54495"], "\(engine)")
            // From x 100: the add-on ends near 553, its 5-module quiet zone past the frame's last pixel.
            let cut = readings(try eanWithAddOn(leftAt: 100), engine)
            #expect(!cut.isEmpty && cut.allSatisfy { $0 == nil }, "\(engine): \(cut)")
        }
    }

    @Test func aTwoDigitAddOnIsKeptOnlyWhereAFiveDigitOneWouldHaveFitted() {
        // EAN-13 + 2: 124 modules; outline 248 px: 2 px a module.
        let roomy = reading(addOn: "12", end: 348).droppingAddOnAtFrameEdge()
        #expect(roomy.addOn == Array("12".utf8) && roomy.text == "9780201379624 12")
        // 32 modules (64 px) past its end must be inside the 640 px frame: from 600, not.
        let near = reading(addOn: "12", end: 600).droppingAddOnAtFrameEdge()
        #expect(near.addOn == nil && near.text == "9780201379624" && near.data == Array("9780201379624".utf8))
        #expect(near.symbologyIdentifier == "]E0" && near.mainData == roomy.mainData)
        // A 5-digit add-on needs its 5 modules of quiet zone only.
        #expect(reading(addOn: "54495", end: 620).droppingAddOnAtFrameEdge().addOn == Array("54495".utf8))
        #expect(reading(addOn: "54495", end: 636).droppingAddOnAtFrameEdge().addOn == nil)
    }
}
