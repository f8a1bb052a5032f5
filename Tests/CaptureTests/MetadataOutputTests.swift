import Capture
import Decoders
import Media
import Testing
import TestSupport

/// A white `width`×`height` grey frame with `text` as a QR code of 4-pixel modules at (`x`, `y`).
private func greyFrame(with payload: [UInt8], width: Int = 320, height: Int = 240, x: Double = 90, y: Double = 50,
                       rotationDegrees: Double = 0) throws -> (GreyFrame, RenderedCode) {
    var frame = GreyFrame(width: width, height: height)
    let code = frame.draw(try ModuleMatrix.qrCode(payload), x: x, y: y, moduleSize: 4,
                          rotationDegrees: rotationDegrees, samplesPerAxis: 3)
    return (frame, code)
}

/// Scans one frame with a fresh scanner of `output`.
private func scan(_ frame: VideoFrame, with output: MetadataOutput = MetadataOutput(settings: .init(engine: .zbar))) -> [MachineReadableCodeObject] {
    output.makeScanner().scan(frame)
}

@Suite(.offThePool) struct MetadataOutputFormatTests {
    @Test("GREY, YUYV, UYVY, NV12 and YU12 with padded rows give the same codes and corners",
          arguments: [PixelFormat.grey, .yuyv, .uyvy, .nv12, .yuv420])
    func sameCodesInEveryFormat(format: PixelFormat) throws {
        let (grey, code) = try greyFrame(with: Array("format".utf8), rotationDegrees: 17)
        let reference = scan(grey.videoFrame(format: .grey))
        #expect(reference.count == 1)

        let stride = format.minimumBytesPerLine(width: grey.width) + 48
        let frame = grey.videoFrame(format: format, bytesPerLine: stride, padding: 0x00)
        #expect(frame.bytesPerLine == stride)
        #expect(frame.buffer.count == format.frameSize(width: 320, height: 240, bytesPerLine: stride))

        let codes = scan(frame)
        #expect(codes.map(\.data) == [Array("format".utf8)])
        #expect(codes.map(\.corners) == reference.map(\.corners))
        #expect(codes.first?.orientation == reference.first?.orientation)
        // zbar's corner order is the code's top-left, bottom-left, bottom-right, top-right.
        let expected = [code.topLeft, code.bottomLeft, code.bottomRight, code.topRight]
        for (corner, rendered) in zip(codes.first?.corners ?? [], expected) {
            #expect(rendered.distance(toX: corner.x, y: corner.y) <= 2 * code.moduleSize)
        }
    }

    @Test("the converter puts luma where each format's layout says and chroma elsewhere",
          arguments: [PixelFormat.yuyv, .uyvy, .nv12])
    func converterLayout(format: PixelFormat) {
        var grey = GreyFrame(width: 4, height: 2)
        for y in 0..<2 { for x in 0..<4 { grey[x, y] = UInt8(10 * (y * 4 + x) + 1) } }
        let stride = format.minimumBytesPerLine(width: 4) + 3
        let (bytes, bytesPerLine) = grey.bytes(as: format, bytesPerLine: stride, padding: 0x77)
        #expect(bytesPerLine == stride)
        let (offset, step) = format.lumaLayout
        for y in 0..<2 {
            for x in 0..<4 { #expect(bytes[y * stride + offset + x * step] == grey[x, y]) }
            #expect(bytes[(y * stride + format.minimumBytesPerLine(width: 4))..<((y + 1) * stride)].allSatisfy { $0 == 0x77 })
        }
    }
}

@Suite(.offThePool) struct MetadataOutputCodeObjectTests {
    @Test("code objects carry the frame's sequence number, timestamp and geometry")
    func frameIdentity() throws {
        let (grey, _) = try greyFrame(with: Array("stamped".utf8))
        let frame = grey.videoFrame(format: .nv12, bytesPerLine: 352, sequenceNumber: 4_242,
                                    presentationTime: MediaTime(nanoseconds: 1_500_000_123))
        let codes = scan(frame)
        #expect(codes.count == 1)
        #expect(codes.first?.frame == FrameInfo(sequenceNumber: 4_242, presentationTime: MediaTime(nanoseconds: 1_500_000_123),
                                                width: 320, height: 240, format: .nv12))
        #expect(codes.first?.symbology == .qrcode)
    }

    @Test("bounds is the upright box around the corners")
    func bounds() throws {
        let (grey, code) = try greyFrame(with: Array("bounds".utf8), x: 100, y: 60)
        let object = try #require(scan(grey.videoFrame()).first)
        let xs = object.corners.map(\.x), ys = object.corners.map(\.y)
        #expect(object.bounds == PixelRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!))
        let box = code.boundingBox
        #expect(abs(object.bounds.x - box.x) <= 8 && abs(object.bounds.width - box.width) <= 8)
    }

    @Test("text is zbar's conversion of the 8-bit payload, as zbarimg prints it; data is always exact",
          arguments: [
            ([UInt8]("Grüße ✓".utf8), "Grüße ✓" as String?),  // not Shift_JIS, bytes 0x80-0x9F: not ISO-8859-1; UTF-8
            ([0x41, 0x00, 0x42], "A\u{0}B"),  // ASCII: as it is
            ([0xFF, 0xFE, 0x00, 0xC3, 0x28], "ÿþ\u{0}Ã("),  // not Shift_JIS: ISO-8859-1
            ([0xE2, 0x82], "竄"),  // a Shift_JIS pair, zbar's first guess without ECI
          ])
    func text(payload: [UInt8], text: String?) throws {
        let (grey, _) = try greyFrame(with: payload)
        let codes = scan(grey.videoFrame(format: .yuyv))
        #expect(codes.map(\.data) == [payload])
        #expect(codes.first?.text == text)
    }

    @Test("several codes in one frame are all reported")
    func severalCodes() throws {
        var grey = GreyFrame(width: 480, height: 240)
        grey.draw(try ModuleMatrix.qrCode("left"), centerX: 120, centerY: 120, moduleSize: 4)
        grey.draw(try ModuleMatrix.qrCode("right"), centerX: 360, centerY: 120, moduleSize: 4, rotationDegrees: 90)
        let codes = scan(grey.videoFrame(format: .uyvy))
        #expect(Set(codes.compactMap(\.text)) == ["left", "right"])
        #expect(codes.first(where: { $0.text == "right" })?.orientation == .right)
    }
}

@Suite(.offThePool) struct MetadataOutputSettingsTests {
    @Test("a new symbology set takes effect on the same scanner's next scan")
    func settingsChange() throws {
        var grey = GreyFrame(width: 560, height: 200)
        grey.draw(try ModuleMatrix.qrCode("qr"), centerX: 110, centerY: 100, moduleSize: 4)
        grey.draw(try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "590123412345").stretched(toRows: 30),
                  centerX: 390, centerY: 100, moduleSize: 2)
        let frame = grey.videoFrame(format: .nv12)
        let output = MetadataOutput(settings: .init(engine: .zbar))
        let scanner = output.makeScanner()
        #expect(scanner.scan(frame).map(\.symbology) == [.qrcode])

        output.settings = MetadataOutput.Settings(engine: .zbar, scanner: ScannerSettings(symbologies: [.ean13]))
        #expect(scanner.scan(frame).map(\.symbology) == [.ean13])
        #expect(scanner.scan(frame).first?.text == "5901234123457")

        output.settings.scanner.symbologies = [.qrcode, .ean13]
        #expect(Set(scanner.scan(frame).map(\.symbology)) == [.qrcode, .ean13])
    }

    @Test("testInverted set while running lets the next scan read light-on-dark codes")
    func invertedSetting() throws {
        let (grey, _) = try greyFrame(with: Array("dark".utf8))
        let frame = grey.inverted().videoFrame(format: .yuyv)
        let output = MetadataOutput(settings: .init(engine: .zbar))
        let scanner = output.makeScanner()
        #expect(scanner.scan(frame).isEmpty)
        output.settings.scanner.testInverted = true
        #expect(scanner.scan(frame).compactMap(\.text) == ["dark"])
    }

    @Test("rect of interest (normalized) excludes or includes the code; corners stay in frame pixels")
    func rectOfInterest() throws {
        // Code in the right half, lower part: x 200…(200+4·21), y 120…204.
        let (grey, _) = try greyFrame(with: Array("roi".utf8), x: 200, y: 120)
        let frame = grey.videoFrame(format: .uyvy, bytesPerLine: 2 * 320 + 64)
        let full = scan(frame)
        #expect(full.count == 1)

        let leftHalf = MetadataOutput(settings: .init(engine: .zbar, rectOfInterest: NormalizedRect(x: 0, y: 0, width: 0.5, height: 1)))
        #expect(scan(frame, with: leftHalf).isEmpty)
        let topHalf = MetadataOutput(settings: .init(engine: .zbar, rectOfInterest: NormalizedRect(x: 0, y: 0, width: 1, height: 0.45)))
        #expect(scan(frame, with: topHalf).isEmpty)

        let output = MetadataOutput(settings: .init(engine: .zbar, rectOfInterest: NormalizedRect(x: 0.5, y: 0.35, width: 0.5, height: 0.65)))
        let inside = scan(frame, with: output)
        #expect(inside.map(\.data) == [Array("roi".utf8)])
        #expect(inside.map(\.corners) == full.map(\.corners))

        output.settings.rectOfInterest = NormalizedRect(x: 0, y: 0, width: 0.4, height: 0.4)
        #expect(scan(frame, with: output).isEmpty)
    }

    @Test("a normalized rect maps to the pixels it covers, rounding outward")
    func normalizedToPixels() {
        #expect(NormalizedRect.full.pixels(width: 640, height: 480) == PixelRect(x: 0, y: 0, width: 640, height: 480))
        #expect(NormalizedRect(x: 0.25, y: 0.5, width: 0.5, height: 0.25).pixels(width: 640, height: 480)
                == PixelRect(x: 160, y: 240, width: 320, height: 120))
        #expect(NormalizedRect(x: 0.1, y: 0.1, width: 0.1, height: 0.1).pixels(width: 15, height: 15)
                == PixelRect(x: 1, y: 1, width: 2, height: 2))
    }

    @Test("scan times are recorded once frames are scanned")
    func scanTimesRecorded() throws {
        let output = MetadataOutput(settings: .init(engine: .zbar))
        #expect(output.scanTimePercentiles() == nil)
        let (grey, _) = try greyFrame(with: Array("timed".utf8))
        _ = scan(grey.videoFrame(), with: output)
        let times = try #require(output.scanTimePercentiles())
        #expect(times.p50 > 0 && times.p50 <= times.p99)
    }
}

/// A compressed frame reaches the scanners decoded (the session decodes it first); handed to a
/// scanner as it came, it has no pixels to read: no code, no pass run, no crash (the decoder
/// fuzzer fed one).
@Suite(.offThePool) struct MetadataOutputCompressedFrameTests {
    @Test func anUndecodedMJPEGFrameGivesNoCodesAndRunsNoPass() throws {
        let (jpeg, scene) = try CameraJPEG.make(width: 160, height: 120, text: "compressed", moduleSize: 3)
        #expect(scan(scene.videoFrame(format: .grey)).map(\.text) == ["compressed"], "the scene itself is readable")
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: jpeg.count, alignment: 16)
        storage.copyBytes(from: jpeg)
        let frame = VideoFrame(sequenceNumber: 1, presentationTime: .zero, width: 160, height: 120, bytesPerLine: 0, format: .mjpeg,
                               buffer: PixelBuffer(bytes: UnsafeRawBufferPointer(storage), release: { storage.deallocate() }))
        for engine in DecoderEngine.allCases {
            let report = MetadataOutput(settings: MetadataOutput.Settings(engine: engine)).makeScanner().scanReport(frame)
            #expect(report.codes.isEmpty && report.passesRun.isEmpty, "\(engine)")
        }
    }
}

@Suite(.offThePool) struct MetadataOutputIdenticalLabelsTests {
    /// Two labels with one payload side by side, and one Code 128 below them: a reading per label,
    /// whatever reads them, and one per code however many passes or libraries read it.
    @Test("identical labels in one frame are a reading each; several readings of one code are one",
          arguments: [DecoderEngine.zbar, .zxing, .hybrid])
    func identicalLabelsAreAReadingEach(engine: DecoderEngine) throws {
        var frame = GreyFrame(width: 640, height: 360)
        let qr = try ModuleMatrix.qrCode("CARTON 0042")
        frame.draw(qr, centerX: 160, centerY: 110, moduleSize: 4)
        frame.draw(qr, centerX: 480, centerY: 110, moduleSize: 4)
        let output = MetadataOutput(settings: .init(engine: engine, scanner: .init(symbologies: [.qrcode]), effort: .max))
        let codes = output.makeScanner().scan(frame.videoFrame())
        #expect(codes.map(\.text) == ["CARTON 0042", "CARTON 0042"], "\(codes.map { ($0.text, $0.bounds, $0.pass) })")
        let centres = codes.map { $0.bounds.x + $0.bounds.width / 2 }.sorted()
        #expect(centres.count == 2 && abs(centres[0] - 160) < 20 && abs(centres[1] - 480) < 20, "\(centres)")
    }
}
