import Media
import Testing
import TestSupport
import ZXing

/// The 2-D symbols whose corners zxing-cpp reports (all but MaxiCode), from zint at one module per entry.
let cornerCases: [Named<PayloadCase>] = [
    Named("QR (qrencode)", PayloadCase(symbology: .qrcode, zint: nil, label: "", payload: textPayload, moduleSize: 4)),
    Named("Micro QR", PayloadCase(symbology: .microqr, zint: "MICROQR", label: "", payload: Array("MICRO 42".utf8), binary: false)),
    Named("Aztec", PayloadCase(symbology: .aztec, zint: "AZTEC", label: "", payload: textPayload, binary: false)),
    Named("DataMatrix", PayloadCase(symbology: .datamatrix, zint: "DATAMATRIX", label: "", payload: textPayload, binary: false)),
    Named("PDF417", PayloadCase(symbology: .pdf417, zint: "PDF417", label: "", payload: textPayload, binary: false,
                                moduleSize: 2, width: 560, height: 200)),
]

@Suite(.offThePool) struct BarcodeReaderGeometryTests {
    @Test("corners are the code's own top-left, top-right, bottom-right, bottom-left within 2 modules", arguments: cornerCases)
    func uprightCorners(c: Named<PayloadCase>) throws {
        var frame = GreyFrame(width: c.value.width + 80, height: c.value.height + 60)
        // Off-centre, so a mix-up of x and y shows, yet covering the centre (see `centreOnly`).
        let code = frame.draw(try c.value.matrix(), centerX: Double(frame.width) / 2 + 13, centerY: Double(frame.height) / 2 + 7,
                              moduleSize: c.value.moduleSize)
        let found = try read(frame, with: reader([c.value.symbology]))
        #expect(found.map(\.symbology) == [c.value.symbology])
        #expect(found.first?.orientation == .up)
        expectCorners(found.first, match: code)
    }

    @Test("quarter turns are reported as up, right, down, left, with the code's own corners",
          arguments: [(0.0, SymbolOrientation.up), (90, .right), (180, .down), (270, .left)])
    func quarterTurns(degrees: Double, orientation: SymbolOrientation) throws {
        let (frame, code) = frameWithCode(try ModuleMatrix.qrCode("syncscan geometry"), moduleSize: 4, rotationDegrees: degrees)
        let found = try read(frame, with: reader([.qrcode]))
        #expect(found.map(\.data) == [Array("syncscan geometry".utf8)])
        #expect(found.first?.orientation == orientation)
        expectCorners(found.first, match: code)
    }

    @Test("a DataMatrix at 30° and 120° decodes; orientation is the nearest quarter turn",
          arguments: [(30.0, SymbolOrientation.up), (120, .right)])
    func arbitraryAngle(degrees: Double, orientation: SymbolOrientation) throws {
        let (frame, code) = frameWithCode(try ModuleMatrix.zintSymbol("DATAMATRIX", text: "tilted"), moduleSize: 4,
                                          rotationDegrees: degrees)
        let found = try read(frame, with: reader([.datamatrix]))
        #expect(found.map(\.data) == [Array("tilted".utf8)])
        #expect(found.first?.orientation == orientation)
        expectCorners(found.first, match: code)
    }

    @Test("Aztec and DataMatrix in a corner of the frame are found, over the whole frame and in a region around them",
          arguments: [Named("Aztec", Symbology.aztec), Named("DataMatrix", .datamatrix)])
    func offCentre(c: Named<Symbology>) throws {
        // zxing-cpp 1.4 found these only where they covered the centre of the image read; 3.1.1 finds them anywhere.
        var frame = GreyFrame(width: 640, height: 480)
        let matrix = try ModuleMatrix.zintSymbol(c.value == .aztec ? "AZTEC" : "DATAMATRIX", text: "corner of the frame")
        let code = frame.draw(matrix, x: 60, y: 50, moduleSize: 3)
        let zxing = reader([c.value])
        let whole = try read(frame, with: zxing)
        #expect(whole.map(\.data) == [Array("corner of the frame".utf8)])
        expectCorners(whole.first, match: code)
        let box = code.boundingBox
        let around = PixelRect(x: box.x - 30, y: box.y - 30, width: box.width + 60, height: box.height + 60)
        let found = try read(frame, with: zxing, region: around)
        #expect(found.map(\.data) == [Array("corner of the frame".utf8)])
        expectCorners(found.first, match: code)
    }

    @Test("zxing-cpp loses an Aztec code turned 30° that it reads upright (1.4 and 3.1.1 alike)")
    func aztecRotationLimit() throws {
        let matrix = try ModuleMatrix.zintSymbol("AZTEC", text: "tilted")
        let (upright, _) = frameWithCode(matrix, moduleSize: 4)
        #expect(try read(upright, with: reader([.aztec])).map(\.data) == [Array("tilted".utf8)])
        let (tilted, _) = frameWithCode(matrix, moduleSize: 4, rotationDegrees: 30)
        #expect(try read(tilted, with: reader([.aztec])).isEmpty)
    }

    @Test("a MaxiCode off-centre on a blank frame reads with its position (zxing-cpp 1.4 gave none)")
    func maxiCodePosition() throws {
        var frame = GreyFrame(width: 640, height: 480)
        frame.draw(try ModuleMatrix.zintSymbol("MAXICODE", text: "maxi", scale: 1, quietZone: 10), x: 290, y: 150, moduleSize: 1)
        let found = try read(frame, with: reader([.maxicode]))
        #expect(found.map(\.data) == [Array("maxi".utf8)])
        // zint's scale-1 MaxiCode, drawn at (290, 150), is about 300 x 290 pixels with its quiet zone.
        let corners = found.first?.corners ?? []
        #expect(corners.count == 4)
        #expect(corners.allSatisfy { (280...600).contains($0.x) && (140...450).contains($0.y) }, "\(corners)")
    }

    @Test("a 1-D code standing upright reads only with tryRotate")
    func uprightLinearCode() throws {
        let ean = try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "590123412345").stretched(toRows: 40)
        let (frame, _) = frameWithCode(ean, width: 240, height: 320, moduleSize: 2, rotationDegrees: 90)
        let rotating = BarcodeReader(hints: ZXingHints(symbologies: [.ean13], tryRotate: true))
        #expect(try read(frame, with: rotating).map(\.data) == [Array("5901234123457".utf8)])
        let fixed = BarcodeReader(hints: ZXingHints(symbologies: [.ean13], tryRotate: false))
        #expect(try read(frame, with: fixed).isEmpty)
    }
}

@Suite(.offThePool) struct BarcodeReaderLayoutTests {
    /// A frame with a Micro QR code and a QR code, the layouts' common reference.
    func twoCodes() throws -> GreyFrame {
        var frame = GreyFrame(width: 480, height: 240)
        frame.draw(try ModuleMatrix.zintSymbol("MICROQR", text: "left"), centerX: 120, centerY: 120, moduleSize: 4)
        frame.draw(try ModuleMatrix.qrCode("right"), centerX: 360, centerY: 120, moduleSize: 4)
        return frame
    }

    /// What a reader finds, comparable across layouts (corners included).
    func summary(_ found: [ZXingBarcode]) -> [String] {
        found.map { "\($0.symbology) \($0.data) \($0.orientation) \($0.corners.map { [$0.x, $0.y] })" }.sorted()
    }

    @Test("YUYV and UYVY (pixel stride 2) and an NV12 Y plane read in place give the same codes as GREY")
    func pixelFormats() throws {
        let frame = try twoCodes()
        let zxing = reader([.microqr, .qrcode])
        let grey = try read(frame, with: zxing)
        #expect(Set(grey.map(\.data)) == [Array("left".utf8), Array("right".utf8)])

        let (yuyv, yuyvStride) = frame.bytes(as: .yuyv)
        let packed = try yuyv.withUnsafeBytes {
            try zxing.read(luma: $0, width: frame.width, height: frame.height, rowStride: yuyvStride, pixelStride: 2)
        }
        #expect(summary(packed) == summary(grey))

        let (uyvy, uyvyStride) = frame.bytes(as: .uyvy)
        let fromOddBytes = try uyvy.withUnsafeBytes {
            try zxing.read(luma: UnsafeRawBufferPointer(rebasing: $0[1...]), width: frame.width, height: frame.height,
                           rowStride: uyvyStride, pixelStride: 2)
        }
        #expect(summary(fromOddBytes) == summary(grey))

        let (nv12, nv12Stride) = frame.bytes(as: .nv12, bytesPerLine: frame.width + 32)
        let plane = try nv12.withUnsafeBytes {
            try zxing.read(luma: $0, width: frame.width, height: frame.height, rowStride: nv12Stride)
        }
        #expect(summary(plane) == summary(grey))
    }

    @Test("the chroma bytes of YUYV are not luma: read with pixel stride 1 the frame is noise")
    func yuyvNeedsPixelStride() throws {
        let frame = try twoCodes()
        let (yuyv, stride) = frame.bytes(as: .yuyv)
        let wrong = try yuyv.withUnsafeBytes {
            try reader([.microqr, .qrcode]).read(luma: $0, width: frame.width, height: frame.height, rowStride: stride)
        }
        #expect(wrong.count < 2)
    }

    @Test("rows wider than the frame read the same codes at the same corners", arguments: [UInt8(0x80), 0x00, 0xFF])
    func paddedRows(padding: UInt8) throws {
        let tight = try twoCodes()
        let padded = tight.restrided(bytesPerLine: tight.width + 72, padding: padding)
        #expect(padded.bytesPerLine == 552)
        let zxing = reader([.microqr, .qrcode])
        #expect(summary(try read(padded, with: zxing)) == summary(try read(tight, with: zxing)))
        #expect(try read(padded, with: zxing).count == 2)
    }

    @Test("a code hidden in the row padding is not found; the same bytes at full width show it is real")
    func codeInPadding() throws {
        let wide = try twoCodes()
        let zxing = reader([.microqr, .qrcode])
        #expect(try read(wide, with: zxing).count == 2)
        let narrowed = wide.narrowed(toWidth: 240)
        #expect(narrowed.bytesPerLine == 480)
        #expect(try read(narrowed, with: zxing).map(\.data) == [Array("left".utf8)])
    }
}

@Suite(.offThePool) struct BarcodeReaderRegionTests {
    @Test("a region excluding the code finds nothing; including it finds the code at full-frame corners")
    func regionOfInterest() throws {
        var frame = GreyFrame(width: 480, height: 320, bytesPerLine: 512)
        let code = frame.draw(try ModuleMatrix.zintSymbol("DATAMATRIX", text: "region"), x: 300, y: 150, moduleSize: 4)
        let box = code.boundingBox
        let zxing = reader([.datamatrix])
        let full = try read(frame, with: zxing)
        #expect(full.map(\.data) == [Array("region".utf8)])

        #expect(try read(frame, with: zxing, region: PixelRect(x: 0, y: 0, width: 280, height: 320)).isEmpty)
        #expect(try read(frame, with: zxing, region: PixelRect(x: 0, y: 0, width: 480, height: 140)).isEmpty)

        let around = PixelRect(x: box.x - 20, y: box.y - 20, width: box.width + 40, height: box.height + 40)
        let inside = try read(frame, with: zxing, region: around)
        #expect(inside.map(\.data) == [Array("region".utf8)])
        expectCorners(inside.first, match: code)
        for (a, b) in zip(inside.first?.corners ?? [], full.first?.corners ?? []) {
            #expect(abs(a.x - b.x) <= 2 && abs(a.y - b.y) <= 2, "region corner \(a) vs full-frame corner \(b)")
        }
    }

    @Test("a region reaching past the frame is clamped; one outside it finds nothing")
    func regionClamping() throws {
        var frame = GreyFrame(width: 320, height: 240)
        let code = frame.draw(try ModuleMatrix.qrCode("clamp"), x: 200, y: 120, moduleSize: 3)
        let zxing = reader([.qrcode])
        let clamped = try read(frame, with: zxing, region: PixelRect(x: 150, y: 90, width: 10_000, height: 10_000))
        #expect(clamped.map(\.data) == [Array("clamp".utf8)])
        expectCorners(clamped.first, match: code)
        #expect(try read(frame, with: zxing, region: PixelRect(x: 400, y: 0, width: 50, height: 50)).isEmpty)
        #expect(try read(frame, with: zxing, region: PixelRect(x: -100, y: -100, width: 50, height: 50)).isEmpty)
    }

    @Test("a region starting left of and above the frame keeps full-frame corners")
    func negativeOrigin() throws {
        var frame = GreyFrame(width: 320, height: 240)
        let code = frame.draw(try ModuleMatrix.qrCode("corner"), x: 12, y: 16, moduleSize: 3)
        let found = try read(frame, with: reader([.qrcode]), region: PixelRect(x: -40, y: -30, width: 200, height: 180))
        #expect(found.map(\.data) == [Array("corner".utf8)])
        expectCorners(found.first, match: code)
    }
}
