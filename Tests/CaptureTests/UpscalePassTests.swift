@testable import Capture
import Decoders
import Media
import Testing
import TestSupport

/// A 640x360 frame with one Code 128 (`UPSCALE-128`) drawn at `moduleSize` pixels a module, 4×4
/// samples a pixel (a photo scaled down: module edges inside pixels go grey); its box.
private func smallCode128(moduleSize: Double) throws -> (frame: VideoFrame, box: (x: Int, y: Int, width: Int, height: Int)) {
    let (grey, box) = try smallCode128Grey(moduleSize: moduleSize)
    return (grey.videoFrame(), box)
}

/// `smallCode128`'s frame as a `GreyFrame` (to be stamped as a live source's frame), and its box.
private func smallCode128Grey(moduleSize: Double) throws -> (grey: GreyFrame, box: (x: Int, y: Int, width: Int, height: Int)) {
    var grey = GreyFrame(width: 640, height: 360)
    let drawn = grey.draw(try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "UPSCALE-128").stretched(toRows: 60),
                          centerX: 320, centerY: 180, moduleSize: moduleSize, samplesPerAxis: 4)
    return (grey, drawn.boundingBox)
}

private func scanner(_ effort: ScanEffort = .max, live: Bool = false, onlyPasses: Set<DecoderPass>? = nil) -> MetadataOutput.Scanner {
    let settings = MetadataOutput.Settings(engine: .hybrid, scanner: ScannerSettings(symbologies: [.ean13, .code128, .qrcode]),
                                           effort: effort, onlyPasses: onlyPasses)
    return MetadataOutput(settings: settings).makeScanner(live: live)
}

@Suite(.offThePool) struct UpscalePassTests {
    @Test("hybrid ends with the upscaling passes, heavy, scale 3; zbar and zxing have none")
    func passes() {
        #expect(DecoderPass.passes(for: .hybrid, symbologies: [.ean13]) == [.zxingFast, .zbar, .zxingFull, .zxingHistogram, .zxingUpscale, .zbarUpscale])
        #expect([DecoderPass.zxingUpscale, .zbarUpscale].allSatisfy { $0.cost == .heavy && $0.scale == 3 })
        #expect(DecoderEngine.zbar.passes.allSatisfy { $0.scale == 1 } && DecoderEngine.zxing.passes.allSatisfy { $0.scale == 1 })
        #expect(DecoderPass(rawValue: "zbar-upscale") == .zbarUpscale)
    }

    @Test("a Code 128 at 1.25 px a module: no other pass reads it, zxing-upscale does, in frame pixels")
    func readsSubpixelBars() throws {
        let (frame, box) = try smallCode128(moduleSize: 1.25)
        let report = scanner().scanReport(frame)
        for pass in [DecoderPass.zxingFast, .zbar, .zxingFull, .zxingHistogram] {
            #expect(report.readings[pass]?.isEmpty == true, "\(pass) read it")
        }
        let code = try #require(report.codes.first, "passes run: \(report.passesRun)")
        #expect(code.text == "UPSCALE-128" && code.symbology == .code128 && report.codes.count == 1)
        #expect(code.pass == .zxingUpscale && code.engine == .zxing)
        #expect(code.corners.count == 4)
        // Within the drawn bars (2 px of slack), over most of their width.
        #expect(code.corners.allSatisfy { $0.x >= box.x - 2 && $0.x <= box.x + box.width + 2 && $0.y >= box.y - 2 && $0.y <= box.y + box.height + 2 },
                "\(code.corners) vs \(box)")
        #expect(code.bounds.width >= box.width * 8 / 10, "\(code.bounds) vs \(box)")
    }

    @Test("when every code was read, the upscaling passes do not run")
    func costsNothingWhenAllRead() throws {
        var grey = GreyFrame(width: 640, height: 360)
        grey.draw(try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "590123412345").stretched(toRows: 40), centerX: 200, centerY: 180, moduleSize: 2)
        let (qr, _) = try GreyFrame.withQRCode("upscale", width: 200, height: 200)
        for y in 0..<200 { for x in 0..<200 { grey[420 + x, 80 + y] = qr[x, y] } }
        let report = scanner().scanReport(grey.videoFrame())
        #expect(Set(report.codes.map(\.text)) == ["5901234123457", "upscale"])
        #expect(report.passesRun == [.zxingFast, .zbar, .zxingFull, .zxingHistogram])
        #expect(report.readings[.zxingUpscale] == nil && report.readings[.zbarUpscale] == nil)
        // Nor on a frame with no code.
        #expect(scanner().scanReport(GreyFrame(width: 640, height: 360).videoFrame()).passesRun == [.zxingFast, .zbar, .zxingFull, .zxingHistogram])
    }

    @Test("the regions: the stretch of thin bars, none on a blank frame, none where a code was read")
    func regions() throws {
        let (frame, box) = try smallCode128(moduleSize: 1.25)
        let found = RegionUpscaler.regions(in: frame, region: nil, detected: [], read: [])
        let rect = try #require(found.first)
        #expect(found.count == 1)
        #expect(rect.x <= box.x && rect.x + rect.width >= box.x + box.width && rect.y <= box.y + box.height / 2 && rect.y + rect.height >= box.y + box.height / 2,
                "\(rect) vs \(box)")
        #expect(RegionUpscaler.regions(in: GreyFrame(width: 640, height: 360).videoFrame(), region: nil, detected: [], read: []).isEmpty)
        let read = MachineReadableCodeObject(symbology: .code128, data: Array("UPSCALE-128".utf8), text: "UPSCALE-128", quality: nil, orientation: .up,
                                             corners: [PixelPoint(x: box.x, y: box.y), PixelPoint(x: box.x, y: box.y + box.height),
                                                       PixelPoint(x: box.x + box.width, y: box.y + box.height), PixelPoint(x: box.x + box.width, y: box.y)],
                                             frame: frame.info, pass: .zbar)
        #expect(RegionUpscaler.regions(in: frame, region: nil, detected: [], read: [read]).isEmpty)
    }

    @Test("effort fast never runs an upscaling pass; auto on a file does where there is something to enlarge")
    func scheduledByAuto() throws {
        let (frame, _) = try smallCode128(moduleSize: 1.25)
        #expect(!scanner(.fast).scanReport(frame).passesRun.contains { $0.scale > 1 })
        // On a file auto runs every pass, the upscaling ones where there is something to enlarge.
        #expect(scanner(.auto).scanReport(frame).codes.map(\.text) == ["UPSCALE-128"])
    }
}

/// `grey` as frame `seq` of a live source at `interval` seconds a frame.
private func liveFrame(_ grey: GreyFrame, seq: UInt64, interval: Double) -> VideoFrame {
    grey.videoFrame(sequenceNumber: seq, presentationTime: MediaTime(seconds: Double(seq) * interval))
}

@Suite(.offThePool) struct UpscalePassLiveTests {
    /// The Code 128 of `smallCode128` at 1.25 px a module (only an upscaling pass reads it) and at
    /// 2 px a module (the cheapest passes read it), on the same 640x360 frame.
    private static func frames() throws -> (thin: GreyFrame, plain: GreyFrame) {
        (try smallCode128Grey(moduleSize: 1.25).grey, try smallCode128Grey(moduleSize: 2).grey)
    }

    @Test("auto on a live source: no upscaling pass on blank frames; once a code read in recent frames goes unread, zxing-upscale runs and reads it")
    func upscalingOnEvidence() throws {
        let (thin, plain) = try Self.frames()
        let blank = GreyFrame(width: 640, height: 360)
        let live = scanner(.auto, live: true)
        for seq in UInt64(0)..<3 {
            let report = live.scanReport(liveFrame(blank, seq: seq, interval: 1000))
            #expect(!report.passesRun.contains { $0.scale > 1 || $0.cost == .heavy } && report.codes.isEmpty, "\(report.passesRun)")
        }
        let read = live.scanReport(liveFrame(plain, seq: 3, interval: 1000))
        #expect(read.codes.map(\.text) == ["UPSCALE-128"] && !read.passesRun.contains { $0.scale > 1 }, "\(read.passesRun)")
        // The same code, now too thin for every pass but an upscaling one: the evidence (a code
        // read three frames ago and not in this one) sends the scanner on, up to zxing-upscale.
        let chased = live.scanReport(liveFrame(thin, seq: 4, interval: 1000))
        #expect(chased.passesRun.contains(.zxingUpscale) && chased.passesCut.isEmpty, "\(chased.passesRun)")
        #expect(chased.codes.map(\.text) == ["UPSCALE-128"] && chased.codes.map(\.pass) == [.zxingUpscale])
        // Long after the code was last read, a blank frame is back to the cheapest passes.
        let later = live.scanReport(liveFrame(blank, seq: 6 + 2 * EffortLedger.recentFrames, interval: 1000))
        #expect(!later.passesRun.contains { $0.scale > 1 || $0.cost == .heavy }, "\(later.passesRun)")
    }

    @Test("auto on a live source cuts an upscaling pass that does not fit in the frame's time budget")
    func upscalingOverBudgetIsCut() throws {
        let (thin, plain) = try Self.frames()
        let live = scanner(.auto, live: true)
        _ = live.scanReport(liveFrame(GreyFrame(width: 640, height: 360), seq: 0, interval: 1e-6))
        #expect(live.scanReport(liveFrame(plain, seq: 1, interval: 1e-6)).codes.map(\.text) == ["UPSCALE-128"])
        let report = live.scanReport(liveFrame(thin, seq: 2, interval: 1e-6))
        #expect(report.passesCut.contains(.zxingUpscale) && !report.passesRun.contains { $0.scale > 1 }, "run \(report.passesRun), cut \(report.passesCut)")
        #expect(report.codes.isEmpty)
    }
}
