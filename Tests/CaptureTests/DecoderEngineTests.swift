import Capture
import Decoders
import Media
import Testing
import TestSupport

/// Scans `frame` once with a fresh scanner for `engine` and `symbologies`.
private func scan(_ frame: VideoFrame, engine: DecoderEngine, _ symbologies: Set<Symbology>,
                  rectOfInterest: NormalizedRect = .full) -> [MachineReadableCodeObject] {
    let settings = MetadataOutput.Settings(engine: engine, scanner: ScannerSettings(symbologies: symbologies),
                                           rectOfInterest: rectOfInterest)
    return MetadataOutput(settings: settings).makeScanner().scan(frame)
}

/// What a scan read, without where: symbology and exact bytes.
private struct Read: Hashable, CustomStringConvertible {
    let symbology: Symbology
    let data: [UInt8]
    init(_ code: MachineReadableCodeObject) { (symbology, data) = (code.symbology, code.data) }
    var description: String { "\(symbology):\(String(decoding: data, as: UTF8.self))" }
}

/// A 320x240 frame with a DataMatrix over the centre, a QR code at the top left and an EAN-13
/// along the bottom.
private func mixedFrame() throws -> (frame: GreyFrame, qr: RenderedCode, datamatrix: RenderedCode) {
    var frame = GreyFrame(width: 320, height: 240)
    let datamatrix = frame.draw(try ModuleMatrix.zintSymbol("DATAMATRIX", text: "engines DM"), centerX: 160, centerY: 110, moduleSize: 4)
    let qr = frame.draw(try ModuleMatrix.qrCode("engines QR"), x: 4, y: 4, moduleSize: 3)
    frame.draw(try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "590123412345").stretched(toRows: 30),
               centerX: 160, centerY: 200, moduleSize: 2)
    return (frame, qr, datamatrix)
}

@Suite(.offThePool) struct DecoderEngineRoutingTests {
    @Test("hybrid keeps zxing-cpp's reading of 2-D codes and zbar's of 1-D codes, one object each")
    func hybridRunsBoth() throws {
        let (grey, _, _) = try mixedFrame()
        let codes = scan(grey.videoFrame(), engine: .hybrid, [.qrcode, .datamatrix, .ean13])
        let byName = Dictionary(uniqueKeysWithValues: codes.map { ($0.symbology, $0) })
        #expect(Set(codes.map(Read.init)).map(\.description).sorted()
                == ["datamatrix:engines DM", "ean13:5901234123457", "qrcode:engines QR"])
        #expect(byName[.qrcode]?.engine == .zxing && byName[.qrcode]?.quality == nil)
        #expect(byName[.datamatrix]?.engine == .zxing && byName[.datamatrix]?.quality == nil)
        #expect(byName[.ean13]?.engine == .zbar && byName[.ean13]?.quality != nil)
    }

    @Test("zxing reads every symbology with zxing-cpp; zbar with zbar")
    func singleEngines() throws {
        let (grey, _, _) = try mixedFrame()
        let zxing = scan(grey.videoFrame(), engine: .zxing, [.qrcode, .datamatrix, .ean13])
        #expect(zxing.count == 3 && zxing.allSatisfy { $0.engine == .zxing })
        let zbar = scan(grey.videoFrame(), engine: .zbar, [.qrcode, .ean13])
        #expect(Set(zbar.map(Read.init)).map(\.description).sorted() == ["ean13:5901234123457", "qrcode:engines QR"])
        #expect(zbar.allSatisfy { $0.engine == .zbar && $0.quality != nil })
    }

    @Test("zxing-cpp's corners come in zbar's order: top-left, bottom-left, bottom-right, top-right")
    func cornerOrder() throws {
        let (grey, qr, datamatrix) = try mixedFrame()
        let codes = scan(grey.videoFrame(), engine: .zxing, [.qrcode, .datamatrix])
        for (symbology, drawn) in [(Symbology.qrcode, qr), (.datamatrix, datamatrix)] {
            let code = try #require(codes.first { $0.symbology == symbology })
            let expected = [drawn.topLeft, drawn.bottomLeft, drawn.bottomRight, drawn.topRight]
            #expect(code.corners.count == 4)
            for (corner, point) in zip(code.corners, expected) {
                #expect(point.distance(toX: corner.x, y: corner.y) <= 2 * drawn.moduleSize, "\(symbology) \(corner) vs \(point)")
            }
        }
    }

    @Test("YUYV, UYVY, NV12 and YU12 with padded rows read in place give GREY's codes and corners",
          arguments: [PixelFormat.yuyv, .uyvy, .nv12, .yuv420])
    func sameCodesInEveryFormat(format: PixelFormat) throws {
        let (grey, _, _) = try mixedFrame()
        let reference = scan(grey.videoFrame(), engine: .hybrid, [.qrcode, .datamatrix, .ean13])
        #expect(reference.count == 3)
        let stride = format.minimumBytesPerLine(width: grey.width) + 40
        let codes = scan(grey.videoFrame(format: format, bytesPerLine: stride, padding: 0x00), engine: .hybrid,
                         [.qrcode, .datamatrix, .ean13])
        let key = { (c: MachineReadableCodeObject) in "\(c.symbology) \(c.engine) \(c.data) \(c.corners) \(c.orientation)" }
        #expect(codes.map(key).sorted() == reference.map(key).sorted())
    }

    @Test("the rect of interest is a crop for zxing-cpp too, and corners stay in frame pixels")
    func rectOfInterest() throws {
        let (grey, _, _) = try mixedFrame()
        let whole = scan(grey.videoFrame(), engine: .zxing, [.qrcode, .datamatrix])
        let left = NormalizedRect(x: 0, y: 0, width: 0.33, height: 0.6)
        let cropped = scan(grey.videoFrame(), engine: .zxing, [.qrcode, .datamatrix], rectOfInterest: left)
        #expect(cropped.map(\.symbology) == [.qrcode])
        #expect(cropped.first?.corners == whole.first { $0.symbology == .qrcode }?.corners)
        let right = NormalizedRect(x: 0.25, y: 0.1, width: 0.6, height: 0.6)
        #expect(scan(grey.videoFrame(), engine: .zxing, [.qrcode, .datamatrix], rectOfInterest: right).map(\.symbology) == [.datamatrix])
    }

    @Test("a code both libraries read is reported once per frame; the same payload at two places is two codes")
    func oneObjectPerCodeAndPlace() throws {
        var grey = GreyFrame(width: 320, height: 240)
        grey.draw(try ModuleMatrix.qrCode("twice"), x: 10, y: 60, moduleSize: 3)
        grey.draw(try ModuleMatrix.qrCode("twice"), x: 180, y: 60, moduleSize: 3)
        for engine in DecoderEngine.allCases {
            let codes = scan(grey.videoFrame(), engine: engine, [.qrcode])
            #expect(codes.map(Read.init).map(\.description) == ["qrcode:twice", "qrcode:twice"], "\(engine)")
            #expect(Set(codes.map { $0.bounds.x < 160 }) == [true, false], "one at each place: \(engine)")
        }
    }
}

/// Codes made hard on purpose, as cameras make them: small, blurred, rotated, washed out, noisy.
@Suite(.offThePool) struct HybridRecallTests {
    /// Every code in the set: 2-D (QR, DataMatrix, Aztec, PDF417) and 1-D (EAN-13, Code 128).
    static func codes() throws -> [(name: String, matrix: ModuleMatrix, moduleSize: Double)] {
        [
            ("qr", try ModuleMatrix.qrCode("hard QR 1"), 3),
            ("qr-small", try ModuleMatrix.qrCode("hard QR small"), 2),
            ("datamatrix", try ModuleMatrix.zintSymbol("DATAMATRIX", text: "hard DM"), 4),
            ("aztec", try ModuleMatrix.zintSymbol("AZTEC", text: "hard aztec"), 4),
            ("pdf417", try ModuleMatrix.zintSymbol("PDF417", text: "hard pdf"), 2),
            ("ean13", try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "400638133393").stretched(toRows: 40), 2),
            ("code128", try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "HARD-128").stretched(toRows: 40), 2),
        ]
    }

    /// The ways each code is made hard.
    static let conditions: [(name: String, rotation: Double, make: @Sendable (GreyFrame) -> GreyFrame)] = [
        ("clean", 0, { $0 }),
        ("blurred", 0, { $0.blurred(radius: 1) }),
        ("rotated 8°", 8, { $0 }),
        ("low contrast", 0, { $0.withContrast(dark: 100, light: 150) }),
        ("noisy", 0, { $0.withNoise(amplitude: 60, seed: 7) }),
        ("rotated, blurred, noisy", 5, { $0.blurred(radius: 1).withNoise(amplitude: 40, seed: 11) }),
    ]

    @Test("hybrid reads at least the union of what zbar and zxing read, frame by frame")
    func hybridReadsTheUnion() throws {
        let all: Set<Symbology> = [.qrcode, .datamatrix, .aztec, .pdf417, .ean13, .code128]
        var totals: [DecoderEngine: Int] = [:], union = 0
        for code in try Self.codes() {
            for condition in Self.conditions {
                var grey = GreyFrame(width: 320, height: 240)
                grey.draw(code.matrix, centerX: 160, centerY: 120, moduleSize: code.moduleSize,
                          rotationDegrees: condition.rotation, samplesPerAxis: condition.rotation == 0 ? 1 : 3)
                let frame = condition.make(grey).videoFrame()
                let zbar = Set(scan(frame, engine: .zbar, all.intersection(ZBarDecoder().readable)).map(Read.init))
                let zxing = Set(scan(frame, engine: .zxing, all).map(Read.init))
                let hybrid = Set(scan(frame, engine: .hybrid, all).map(Read.init))
                #expect(hybrid.isSuperset(of: zbar.union(zxing)), "\(code.name), \(condition.name): zbar \(zbar), zxing \(zxing), hybrid \(hybrid)")
                #expect(hybrid.count <= 1, "\(code.name), \(condition.name): one code drawn, read \(hybrid)")
                totals[.zbar, default: 0] += zbar.count
                totals[.zxing, default: 0] += zxing.count
                totals[.hybrid, default: 0] += hybrid.count
                union += zbar.union(zxing).count
            }
        }
        // The set is hard enough that neither library reads everything, and hybrid more than either.
        let frames = try Self.codes().count * Self.conditions.count
        #expect(totals[.zbar, default: 0] < frames && totals[.zxing, default: 0] < frames)
        #expect(totals[.hybrid, default: 0] > max(totals[.zbar, default: 0], totals[.zxing, default: 0]),
                "zbar \(totals[.zbar, default: 0]), zxing \(totals[.zxing, default: 0]), hybrid \(totals[.hybrid, default: 0]) of \(frames)")
        #expect(totals[.hybrid, default: 0] >= union)
    }
}

@Suite(.offThePool) struct DecoderEngineUPCTests {
    @Test("UPC-A and UPC-E read the same from zbar and zxing-cpp, so hybrid reports each once", arguments: [
        ("UPCA", "01234567890", "upca:012345678905"), ("UPCE", "0123456", "upce:01234565"),
    ])
    func upcOnce(zint: String, input: String, expected: String) throws {
        var grey = GreyFrame(width: 640, height: 160)
        grey.draw(try ModuleMatrix.linearBarcode(zintSymbology: zint, data: input).stretched(toRows: 40),
                  centerX: 320, centerY: 80, moduleSize: 2)
        let symbologies: Set<Symbology> = [.ean13, .upca, .upce, .ean8]
        for engine in DecoderEngine.allCases {
            let codes = scan(grey.videoFrame(), engine: engine, symbologies)
            #expect(codes.map { Read($0).description } == [expected], "\(engine)")
        }
    }
}

