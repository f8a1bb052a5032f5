import Media
import Testing
import TestSupport
import ZBar

/// Checks zbar's QR outline against the rendered corners, within `modules` modules.
///
/// zbar lists a QR code's corners as the code's own top-left, bottom-left, bottom-right and
/// top-right, whatever its rotation in the frame; this checks that order too.
func expectOutline(_ symbol: DecodedSymbol?, matches code: RenderedCode, withinModules modules: Double = 2,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    guard let symbol else {
        Issue.record("no symbol to compare with the rendered corners", sourceLocation: sourceLocation)
        return
    }
    let expected = [code.topLeft, code.bottomLeft, code.bottomRight, code.topRight]
    #expect(symbol.points.count == 4, sourceLocation: sourceLocation)
    for (point, corner) in zip(symbol.points, expected) {
        let distance = corner.distance(toX: point.x, y: point.y)
        #expect(distance <= modules * code.moduleSize,
                "zbar point \(point) is \(distance) px from rendered corner \(corner)", sourceLocation: sourceLocation)
    }
}

@Suite(.offThePool) struct ImageScannerGeometryTests {
    let hello: ModuleMatrix

    init() throws { hello = try ModuleMatrix.qrCode("syncscan geometry") }

    @Test("quarter turns are reported as up, right, down, left, with the code's own corners",
          arguments: [(0.0, SymbolOrientation.up), (90, .right), (180, .down), (270, .left)])
    func quarterTurns(degrees: Double, orientation: SymbolOrientation) {
        let (frame, code) = frameWithCode(hello, rotationDegrees: degrees)
        let symbols = scan(frame)
        #expect(symbols.map(\.data) == [Array("syncscan geometry".utf8)])
        #expect(symbols.first?.orientation == orientation)
        expectOutline(symbols.first, matches: code)
    }

    @Test("any angle decodes; orientation is the nearest quarter turn",
          arguments: [(20.0, SymbolOrientation.up), (110, .right), (200, .down), (290, .left), (-25, .up), (160, .down)])
    func arbitraryAngles(degrees: Double, orientation: SymbolOrientation) {
        let (frame, code) = frameWithCode(hello, rotationDegrees: degrees, samplesPerAxis: 3)
        let symbols = scan(frame)
        #expect(symbols.map(\.data) == [Array("syncscan geometry".utf8)])
        #expect(symbols.first?.orientation == orientation)
        expectOutline(symbols.first, matches: code)
    }

    @Test("an upright code's outline is its rendered corners within 2 modules")
    func uprightCorners() {
        var frame = GreyFrame(width: 400, height: 300)
        let code = frame.draw(hello, x: 37, y: 81, moduleSize: 5)
        let symbols = scan(frame)
        #expect(symbols.count == 1)
        expectOutline(symbols.first, matches: code)
    }

    @Test("a code of 2-pixel modules decodes")
    func smallModules() {
        let (frame, code) = frameWithCode(hello, width: 160, height: 120, moduleSize: 2)
        let symbols = scan(frame)
        #expect(symbols.map(\.data) == [Array("syncscan geometry".utf8)])
        expectOutline(symbols.first, matches: code)
    }

    @Test("light on dark decodes only with testInverted on")
    func inverted() {
        let (frame, code) = frameWithCode(hello)
        let dark = frame.inverted()
        #expect(scan(dark, with: ImageScanner(settings: ScannerSettings(testInverted: false))).isEmpty)
        let symbols = scan(dark, with: ImageScanner(settings: ScannerSettings(testInverted: true)))
        #expect(symbols.map(\.data) == [Array("syncscan geometry".utf8)])
        expectOutline(symbols.first, matches: code)
        // The upright original still decodes with testInverted on: it is a fallback, not a switch.
        #expect(scan(frame, with: ImageScanner(settings: ScannerSettings(testInverted: true))).count == 1)
    }
}

@Suite(.offThePool) struct ImageScannerStrideTests {
    let main: ModuleMatrix, hidden: ModuleMatrix

    init() throws {
        main = try ModuleMatrix.qrCode("visible")
        hidden = try ModuleMatrix.qrCode("in the padding")
    }

    @Test("rows wider than the frame decode the same code at the same points", arguments: [UInt8(0x80), 0x00, 0xFF])
    func paddedRows(padding: UInt8) {
        let (tight, code) = frameWithCode(main)
        let padded = tight.restrided(bytesPerLine: tight.width + 72, padding: padding)
        #expect(padded.bytesPerLine == 392)
        let reference = scan(tight), symbols = scan(padded)
        #expect(symbols.map(\.data) == [Array("visible".utf8)])
        #expect(symbols.first?.points.map { [$0.x, $0.y] } == reference.first?.points.map { [$0.x, $0.y] })
        expectOutline(symbols.first, matches: code)
    }

    @Test("a code against the right edge survives dark padding next to it")
    func codeAtRightEdge() {
        var frame = GreyFrame(width: 240, height: 200, bytesPerLine: 300, padding: 0x00)
        // Quiet zone ends exactly at the last visible column.
        let x = Double(240 - (main.columns + main.quietZone) * 3)
        let code = frame.draw(main, x: x, y: 40, moduleSize: 3)
        let symbols = scan(frame)
        #expect(symbols.map(\.data) == [Array("visible".utf8)])
        expectOutline(symbols.first, matches: code)
    }

    @Test("a code hidden in the row padding is not found; the same bytes at full width show it is real")
    func codeInPadding() {
        var wide = GreyFrame(width: 600, height: 240)
        wide.draw(main, centerX: 150, centerY: 120, moduleSize: 4)
        wide.draw(hidden, centerX: 460, centerY: 120, moduleSize: 4)
        #expect(Set(scan(wide).map(\.data)) == [Array("visible".utf8), Array("in the padding".utf8)])

        let narrowed = wide.narrowed(toWidth: 300)
        #expect(narrowed.bytesPerLine == 600)
        #expect(scan(narrowed).map(\.data) == [Array("visible".utf8)])
        #expect(scan(narrowed, with: ImageScanner(settings: ScannerSettings(testInverted: true))).map(\.data)
                == [Array("visible".utf8)])
    }

    @Test("with testInverted, an inverted code in the padding is not found either")
    func invertedCodeInPadding() {
        var wide = GreyFrame(width: 600, height: 240)
        wide.draw(hidden, centerX: 460, centerY: 120, moduleSize: 4)
        let dark = wide.inverted()  // the whole wide frame is light on dark
        let inverting = ImageScanner(settings: ScannerSettings(testInverted: true))
        #expect(scan(dark, with: inverting).map(\.data) == [Array("in the padding".utf8)])
        #expect(scan(dark.narrowed(toWidth: 300), with: inverting).isEmpty)
    }
}

@Suite(.offThePool) struct ImageScannerRegionTests {
    @Test("a region excluding the code finds nothing; including it finds the code at full-frame points")
    func regionOfInterest() throws {
        var frame = GreyFrame(width: 480, height: 320, bytesPerLine: 512)
        let code = frame.draw(try ModuleMatrix.qrCode("region"), x: 300, y: 150, moduleSize: 4)
        let box = code.boundingBox
        let full = scan(frame)
        #expect(full.count == 1)

        #expect(scan(frame, region: PixelRect(x: 0, y: 0, width: 280, height: 320)).isEmpty)
        #expect(scan(frame, region: PixelRect(x: 0, y: 0, width: 480, height: 140)).isEmpty)

        let around = PixelRect(x: box.x - 20, y: box.y - 20, width: box.width + 40, height: box.height + 40)
        let inside = scan(frame, region: around)
        #expect(inside.map(\.data) == [Array("region".utf8)])
        #expect(inside.first?.points.map { [$0.x, $0.y] } == full.first?.points.map { [$0.x, $0.y] })
        expectOutline(inside.first, matches: code)
    }

    @Test("a region reaching past the frame is clamped; an empty one finds nothing")
    func regionClamping() throws {
        var frame = GreyFrame(width: 320, height: 240)
        frame.draw(try ModuleMatrix.qrCode("clamp"), x: 200, y: 120, moduleSize: 3)
        #expect(scan(frame, region: PixelRect(x: 150, y: 90, width: 10_000, height: 10_000)).map(\.data) == [Array("clamp".utf8)])
        #expect(scan(frame, region: PixelRect(x: 400, y: 0, width: 50, height: 50)).isEmpty)
        #expect(scan(frame, region: PixelRect(x: -100, y: -100, width: 50, height: 50)).isEmpty)
    }
}

@Suite(.offThePool) struct ImageScannerSettingsTests {
    /// One frame holding a QR code on the left and an EAN-13 on the right.
    let frame: GreyFrame

    init() throws { frame = try GreyFrame.withQRCodeAndEAN13("config") }

    func bothCodes() -> GreyFrame { frame }

    @Test("only enabled symbologies are reported")
    func enableDisable() {
        let frame = bothCodes()
        let qrOnly = scan(frame, with: ImageScanner(settings: ScannerSettings(symbologies: [.qrcode])))
        #expect(qrOnly.map(\.symbology) == [.qrcode])
        let eanOnly = scan(frame, with: ImageScanner(settings: ScannerSettings(symbologies: [.ean13])))
        #expect(eanOnly.map(\.symbology) == [.ean13])
        #expect(eanOnly.map(\.data) == [Array("5901234123457".utf8)])
        let both = scan(frame, with: ImageScanner(settings: ScannerSettings(symbologies: [.qrcode, .ean13])))
        #expect(Set(both.map(\.symbology)) == [.qrcode, .ean13])
        #expect(scan(frame, with: ImageScanner(settings: ScannerSettings(symbologies: []))).isEmpty)
    }

    @Test("the default configuration scans QR only")
    func defaultsAreQROnly() {
        #expect(ScannerSettings().symbologies == [.qrcode])
        #expect(scan(bothCodes()).map(\.symbology) == [.qrcode])
    }

    @Test("reconfiguring one scanner takes effect on its next scan, back and forth")
    func reconfigure() {
        let frame = bothCodes()
        let scanner = ImageScanner()
        #expect(scan(frame, with: scanner).map(\.symbology) == [.qrcode])
        scanner.reconfigure(ScannerSettings(symbologies: [.ean13]))
        #expect(scanner.settings.symbologies == [.ean13])
        #expect(scan(frame, with: scanner).map(\.symbology) == [.ean13])
        scanner.reconfigure(ScannerSettings(symbologies: [.qrcode]))
        #expect(scan(frame, with: scanner).map(\.symbology) == [.qrcode])

        let dark = frame.inverted()
        #expect(scan(dark, with: scanner).isEmpty)
        scanner.reconfigure(ScannerSettings(symbologies: [.qrcode], testInverted: true))
        #expect(scan(dark, with: scanner).map(\.symbology) == [.qrcode])
        scanner.reconfigure(ScannerSettings(symbologies: [.qrcode], testInverted: false))
        #expect(scan(dark, with: scanner).isEmpty)
    }

    @Test("per-symbology length limits are applied (Code 128 from zint)")
    func lengthLimits() throws {
        let code128 = try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "Hello-128", quietZone: 10)
            .stretched(toRows: 30)
        let (frame, _) = frameWithCode(code128, width: 400, height: 120, moduleSize: 2)
        let plain = scan(frame, with: ImageScanner(settings: ScannerSettings(symbologies: [.code128])))
        #expect(plain.map(\.data) == [Array("Hello-128".utf8)])
        let tooShort = ScannerSettings(symbologies: [.code128], settings: [.code128: .init(minLength: 20)])
        #expect(scan(frame, with: ImageScanner(settings: tooShort)).isEmpty)
        let fits = ScannerSettings(symbologies: [.code128], settings: [.code128: .init(minLength: 5, maxLength: 9)])
        #expect(scan(frame, with: ImageScanner(settings: fits)).map(\.data) == [Array("Hello-128".utf8)])
    }

    @Test("symbology names parse as zbar spells them")
    func symbologyNames() {
        #expect(Symbology(configName: "QRCODE") == .qrcode)
        #expect(Symbology(configName: "databar-exp") == .databarExp)
        #expect(Symbology(configName: "qr") == nil)
    }
}

@Suite(.offThePool) struct ImageScannerReconfigureTests {
    @Test("dropping a length limit on reconfigure restores zbar's default, so the code is found again")
    func droppedLimitIsReset() throws {
        let code128 = try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "Hello-128", quietZone: 10)
            .stretched(toRows: 30)
        let (frame, _) = frameWithCode(code128, width: 400, height: 120, moduleSize: 2)
        let scanner = ImageScanner(settings: ScannerSettings(symbologies: [.code128], settings: [.code128: .init(minLength: 20)]))
        #expect(scan(frame, with: scanner).isEmpty)
        scanner.reconfigure(ScannerSettings(symbologies: [.code128]))
        #expect(scan(frame, with: scanner).map(\.data) == [Array("Hello-128".utf8)])
    }
}
