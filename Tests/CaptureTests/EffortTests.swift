@testable import Capture
import Decoders
import Logging
import Media
import Testing
import TestSupport

/// A scanner for `engine`, `effort` and `symbologies` (`live`: frames from a live source).
private func scanner(_ engine: DecoderEngine, _ effort: ScanEffort, _ symbologies: Set<Symbology> = [.qrcode], live: Bool = false,
                     threads: Int = 1) -> MetadataOutput.Scanner {
    let settings = MetadataOutput.Settings(engine: engine, scanner: ScannerSettings(symbologies: symbologies), effort: effort)
    return MetadataOutput(settings: settings, scanningThreads: threads).makeScanner(live: live)
}

/// What a scan read, without where: symbology and exact bytes.
private struct Read: Hashable, CustomStringConvertible {
    let symbology: Symbology
    let data: [UInt8]
    init(_ code: MachineReadableCodeObject) { (symbology, data) = (code.symbology, code.data) }
    var description: String { "\(symbology):\(String(decoding: data, as: UTF8.self))" }
}

/// A frame interval (seconds) in whose budget every pass fits, however loaded the machine.
private let roomy = 1000.0

/// `grey` as frame `seq` of a source at `interval` seconds a frame.
private func frame(_ grey: GreyFrame, seq: UInt64, interval: Double) -> VideoFrame {
    grey.videoFrame(sequenceNumber: seq, presentationTime: MediaTime(seconds: Double(seq) * interval))
}

/// Codes made hard as cameras make them: blur, low contrast, noise, light on dark; QR, DataMatrix,
/// Code 128 and EAN-13, one per 320x200 frame.
private func degradedFrames() throws -> [(name: String, frame: GreyFrame)] {
    func drawn(_ matrix: ModuleMatrix, moduleSize: Double, rotation: Double = 0) -> GreyFrame {
        var frame = GreyFrame(width: 320, height: 200)
        frame.draw(matrix, centerX: 160, centerY: 100, moduleSize: moduleSize, rotationDegrees: rotation, samplesPerAxis: rotation == 0 ? 1 : 3)
        return frame
    }
    let qr = drawn(try ModuleMatrix.qrCode("effort QR"), moduleSize: 3)
    let dm = drawn(try ModuleMatrix.zintSymbol("DATAMATRIX", text: "effort DM"), moduleSize: 3, rotation: 17)
    let code128 = drawn(try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "EFFORT-128").stretched(toRows: 40), moduleSize: 2)
    let ean = drawn(try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "590123412345").stretched(toRows: 40), moduleSize: 2)
    var frames: [(String, GreyFrame)] = []
    for (name, clean) in [("qr", qr), ("datamatrix", dm), ("code128", code128), ("ean13", ean)] {
        frames += [
            ("\(name) blurred", clean.blurred(radius: 1)),
            ("\(name) low contrast", clean.withContrast(dark: 110, light: 150)),
            ("\(name) noisy", clean.withNoise(amplitude: 60, seed: 7)),
            ("\(name) inverted", clean.inverted()),
            ("\(name) blurred, dim, noisy", clean.blurred(radius: 1).withContrast(dark: 70, light: 170).withNoise(amplitude: 25, seed: 3)),
        ]
    }
    return frames
}

@Suite(.offThePool) struct EffortPassTests {
    @Test("each engine's passes, cheapest first; fast keeps the cheapest and what only a later one reads")
    func passesByEngine() {
        #expect(DecoderPass.passes(for: .zbar, symbologies: [.qrcode]) == [.zbar])
        #expect(DecoderPass.passes(for: .zxing, symbologies: [.qrcode]) == [.zxingFast, .zxingFull, .zxingHistogram])
        #expect(DecoderPass.passes(for: .hybrid, symbologies: [.qrcode]) == [.zxingFast, .zbar, .zxingFull, .zxingHistogram, .zxingUpscale, .zbarUpscale])
        #expect(DecoderPass.passes(for: .hybrid, symbologies: [.aztec]) == [.zxingFast, .zxingFull, .zxingHistogram, .zxingUpscale])
        let hybrid = DecoderPass.passes(for: .hybrid, symbologies: [.qrcode, .sqcode])
        #expect(ScanEffort.basePasses(of: hybrid, engine: .hybrid, symbologies: [.qrcode]) == [.zxingFast])
        #expect(ScanEffort.basePasses(of: hybrid, engine: .hybrid, symbologies: [.qrcode, .sqcode]) == [.zxingFast, .zbar])
    }

    @Test("fast runs one pass; max runs every pass, on a file and on a live source")
    func fastAndMax() throws {
        let (grey, _) = try GreyFrame.withQRCode("passes")
        let fast = scanner(.zxing, .fast).scanReport(grey.videoFrame())
        #expect(fast.passesRun == [.zxingFast])
        #expect(fast.codes.map(\.pass) == [.zxingFast])
        for live in [false, true] {
            let max = scanner(.hybrid, .max, live: live).scanReport(grey.videoFrame())
            #expect(max.passesRun == [.zxingFast, .zbar, .zxingFull, .zxingHistogram])
            #expect(max.passesCut.isEmpty)
        }
    }

    @Test("passes restricts the engine's passes; fast then runs the cheapest of those")
    func onlyPasses() throws {
        let (grey, _) = try GreyFrame.withQRCode("only")
        var settings = MetadataOutput.Settings(engine: .hybrid, effort: .max, onlyPasses: [.zxingFull, .zbar])
        #expect(MetadataOutput(settings: settings).makeScanner().scanReport(grey.videoFrame()).passesRun == [.zbar, .zxingFull])
        settings.effort = .fast
        let fast = MetadataOutput(settings: settings).makeScanner().scanReport(grey.videoFrame())
        #expect(fast.passesRun == [.zbar] && fast.codes.map(\.pass) == [.zbar])
    }

    @Test("a code two passes read is reported once, with the cheaper pass's name")
    func oneReadingPerCode() throws {
        let (grey, _) = try GreyFrame.withQRCode("twice")
        let report = scanner(.zxing, .max).scanReport(grey.videoFrame())
        #expect(report.readings[.zxingFast]?.map(Read.init) == [Read(report.codes[0])])
        #expect(report.readings[.zxingFull]?.map(Read.init) == [Read(report.codes[0])])
        #expect(report.codes.count == 1)
        #expect(report.codes.first?.pass == .zxingFast && report.codes.first?.engine == .zxing)
        // With hybrid, zxing-cpp's reading of a 2-D code is kept even where zbar read it too.
        let hybrid = scanner(.hybrid, .max).scanReport(grey.videoFrame())
        #expect(hybrid.readings[.zbar]?.count == 1)
        #expect(hybrid.codes.map(\.pass) == [.zxingFast])
    }

    @Test("auto on a file reads at least the union of what each pass reads alone on degraded codes")
    func autoOnAFileReadsTheUnion() throws {
        let symbologies: Set<Symbology> = [.qrcode, .datamatrix, .code128, .ean13]
        /// A code read in the frame named `frame`.
        struct Sighting: Hashable { let frame: String, read: Read }
        var auto: Set<Sighting> = [], byPass: [DecoderPass: Set<Sighting>] = [:]
        for (name, grey) in try degradedFrames() {
            let frame = grey.videoFrame()
            let report = scanner(.hybrid, .auto, symbologies).scanReport(frame)
            // Then the upscaling passes, only on a frame where something was left unread.
            #expect(Array(report.passesRun.prefix(4)) == [.zxingFast, .zbar, .zxingFull, .zxingHistogram], "\(name)")
            #expect(report.passesRun.dropFirst(4).allSatisfy { $0.scale > 1 }, "\(name)")
            auto.formUnion(report.codes.map { Sighting(frame: name, read: Read($0)) })
            // Each pass alone: a pass's own readings do not depend on the passes before it (but for an upscaling pass's regions).
            for (pass, alone) in scanner(.hybrid, .max, symbologies).scanReport(frame).readings {
                byPass[pass, default: []].formUnion(alone.map { Sighting(frame: name, read: Read($0)) })
            }
        }
        let union = byPass.values.reduce(into: Set<Sighting>()) { $0.formUnion($1) }
        #expect(auto.isSuperset(of: union), "\(union.subtracting(auto))")
        // The passes read different codes: together more than any one of them alone.
        for (pass, reads) in byPass { #expect(union.count > reads.count, "\(pass)") }
    }
}

@Suite(.offThePool) struct EffortLiveTests {
    /// A QR code zxing-cpp's fast pass reads, and the same code light on dark, which only a pass
    /// that tries inverted frames (`zxing-full`) reads.
    private static func frames() throws -> (blank: GreyFrame, code: GreyFrame, inverted: GreyFrame) {
        let (code, _) = try GreyFrame.withQRCode("live")
        #expect(scanner(.zxing, .fast).scan(code.inverted().videoFrame()).isEmpty)
        return (GreyFrame(width: 320, height: 240), code, code.inverted())
    }

    @Test("auto on a live source runs only the cheapest pass on blank frames, and the harder ones once a code read in recent frames goes unread")
    func harderPassesOnEvidence() throws {
        let (blank, code, inverted) = try Self.frames()
        let live = scanner(.zxing, .auto, live: true)
        // Frames off the sweep (`EffortLedger.sweepFrames`: 3, 6, … sweep).
        for seq: UInt64 in [1, 2, 4] {
            let report = live.scanReport(frame(blank, seq: seq, interval: roomy))
            #expect(report.passesRun == [.zxingFast] && report.passesCut.isEmpty && report.codes.isEmpty)
        }
        let read = live.scanReport(frame(code, seq: 5, interval: roomy))
        #expect(read.passesRun == [.zxingFast] && read.codes.map(\.pass) == [.zxingFast])
        let chased = live.scanReport(frame(inverted, seq: 7, interval: roomy))
        #expect(chased.passesRun == [.zxingFast, .zxingFull])  // the code is read again: no need for the histogram pass
        #expect(chased.codes.map(\.pass) == [.zxingFull] && chased.codes.map(\.text) == ["live"])
        #expect(chased.passesCut.isEmpty)
        // A file source runs every pass on the same frames, blank ones too.
        #expect(scanner(.zxing, .auto).scanReport(frame(blank, seq: 0, interval: roomy)).passesRun.count == 3)
        // Long after the code was last read, a blank frame is back to the cheapest pass.
        #expect(live.scanReport(frame(blank, seq: 7 + 2 * EffortLedger.recentFrames, interval: roomy)).passesRun == [.zxingFast])
    }

    @Test("on a live source every third frame sweeps: the harder passes run without evidence, and one that does not fit is skipped, not counted cut")
    func sweepsWithoutEvidence() throws {
        let (blank, _, inverted) = try Self.frames()
        #expect(EffortLedger.sweepFrames == 3)
        let live = scanner(.zxing, .auto, live: true)
        for seq: UInt64 in [1, 2] { #expect(live.scanReport(frame(blank, seq: seq, interval: roomy)).passesRun == [.zxingFast]) }
        #expect(live.scanReport(frame(blank, seq: 3, interval: roomy)).passesRun == [.zxingFast, .zxingFull, .zxingHistogram])
        // A code only a harder pass reads, with no evidence before it: off the sweep unread, on it read.
        #expect(live.scanReport(frame(inverted, seq: 4, interval: roomy)).codes.isEmpty)
        let swept = live.scanReport(frame(inverted, seq: 6, interval: roomy))
        #expect(swept.codes.map(\.pass) == [.zxingFull] && swept.codes.map(\.text) == ["live"])
        // Read on the sweep, it is chased on the next frame as a code read recently.
        #expect(live.scanReport(frame(inverted, seq: 7, interval: roomy)).codes.map(\.text) == ["live"])
        // Frames a microsecond apart: the sweep's passes do not fit, and none is counted cut.
        let tight = scanner(.zxing, .auto, live: true)
        for seq: UInt64 in [1, 2] { _ = tight.scanReport(frame(blank, seq: seq, interval: 1e-6)) }
        let report = tight.scanReport(frame(blank, seq: 3, interval: 1e-6))
        #expect(report.passesRun == [.zxingFast] && report.passesCut.isEmpty)
    }

    @Test("on a live source a code zxing-cpp detected but could not decode is evidence: the harder passes run")
    func undecodedIsEvidence() throws {
        // A QR code whose middle rows are wiped: finder patterns standing, data past repair.
        var (damaged, code) = try GreyFrame.withQRCode("damaged beyond repair, finders intact")
        for y in Int(code.topLeft.y + 9 * code.moduleSize)..<Int(code.bottomLeft.y - 9 * code.moduleSize) {
            for x in Int(code.topLeft.x)..<Int(code.topRight.x) { damaged[x, y] = 255 }
        }
        let live = scanner(.zxing, .auto, live: true)
        for seq in UInt64(0)..<2 { #expect(live.scanReport(frame(GreyFrame(width: 320, height: 240), seq: seq, interval: roomy)).passesRun == [.zxingFast]) }
        let report = live.scanReport(frame(damaged, seq: 2, interval: roomy))
        #expect(report.passesRun == [.zxingFast, .zxingFull, .zxingHistogram] && report.passesCut.isEmpty)
        #expect(report.codes.isEmpty)
        // With fast, the same frame gets the cheapest pass only.
        #expect(scanner(.zxing, .fast, live: true).scanReport(frame(damaged, seq: 2, interval: roomy)).passesRun == [.zxingFast])
    }

    @Test("a harder pass that does not fit in the frame's time budget is cut, and the session counts it")
    func overBudgetIsCut() throws {
        let (blank, code, inverted) = try Self.frames()
        // Frames a microsecond apart: no pass fits after the cheapest.
        let live = scanner(.zxing, .auto, live: true)
        _ = live.scanReport(frame(blank, seq: 0, interval: 1e-6))
        #expect(live.scanReport(frame(code, seq: 1, interval: 1e-6)).codes.count == 1)
        let report = live.scanReport(frame(inverted, seq: 2, interval: 1e-6))
        #expect(report.passesRun == [.zxingFast])
        #expect(report.passesCut == [.zxingFull, .zxingHistogram])
        #expect(report.codes.isEmpty)
        // max is never cut.
        #expect(scanner(.zxing, .max, live: true).scanReport(frame(inverted, seq: 2, interval: 1e-6)).codes.map(\.pass) == [.zxingFull])

        var statistics = CaptureStatistics()
        let info = inverted.videoFrame().info
        statistics.record(SynchronizedDataCollection(
            video: SynchronizedVideoData(sequenceNumber: 2, presentationTime: .zero, frame: info, droppedReason: nil),
            metadata: SynchronizedMetadataObjectData(presentationTime: .zero, metadataObjects: [], passesCut: report.passesCut)))
        #expect(statistics.passesCut == [.zxingFull: 1, .zxingHistogram: 1])
    }

    @Test("the budget is the frame interval times the scanning threads")
    func budgetScalesWithThreads() throws {
        var ledger = EffortLedger()
        let info = { (seq: UInt64) in FrameInfo(sequenceNumber: seq, presentationTime: MediaTime(seconds: Double(seq) / 30), width: 1, height: 1, format: .grey) }
        #expect(ledger.frameInterval(noting: info(0)) == nil)
        #expect(abs((ledger.frameInterval(noting: info(1)) ?? 0) - 1.0 / 30) < 1e-6)
        // A frame scanned late by another thread (a smaller sequence number) leaves the interval as it was.
        #expect(abs((ledger.frameInterval(noting: info(3)) ?? 0) - 1.0 / 30) < 1e-6)
        #expect(abs((ledger.frameInterval(noting: info(2)) ?? 0) - 1.0 / 30) < 1e-6)
    }
}

@Suite struct EffortLedgerTests {
    /// A ledger that has seen frames 1/30 s apart and `base` passes taking `baseSeconds`.
    private func ledger(baseSeconds: Double, base: DecoderPass = .zxingFast) -> EffortLedger {
        var ledger = EffortLedger()
        for seq in UInt64(0)..<4 {
            _ = ledger.frameInterval(noting: FrameInfo(sequenceNumber: seq, presentationTime: MediaTime(seconds: Double(seq) / 30),
                                                       width: 1, height: 1, format: .grey))
            ledger.add(base, seconds: baseSeconds, firstPassSeconds: nil)
        }
        return ledger
    }

    @Test("with several scanners, harder passes run on all but one, and only while those left keep up on the cheapest pass")
    func oneScannerStaysOnTheCheapestPass() {
        /// Each claim in turn on `ledger`, with `scanners` scanners: whether it was granted.
        func claims(_ ledger: inout EffortLedger, _ count: Int, scanners: Int, base: Set<DecoderPass> = [.zxingFast]) -> [Bool] {
            (0..<count).map { _ in ledger.claimHarderPasses(base: base, scanners: scanners) }
        }
        // Two scanners, a 3 ms cheapest pass, frames 33 ms apart: one may go on to harder passes,
        // the other stays for the next frames; a released place can be taken again.
        var quick = ledger(baseSeconds: 0.003)
        let two = claims(&quick, 2, scanners: 2)
        #expect(two == [true, false])
        quick.releaseHarderPasses()
        let again = claims(&quick, 1, scanners: 2)
        #expect(again == [true])
        // Three scanners: two may, while one left alone keeps up.
        var three = ledger(baseSeconds: 0.003)
        let ofThree = claims(&three, 3, scanners: 3)
        #expect(ofThree == [true, true, false])
        // A cheapest pass near the frame interval (30 ms of 33): one scanner left could not keep
        // up; two left can (30 ms <= 0.8 x 2 x 33 ms).
        var slow = ledger(baseSeconds: 0.030)
        let slowTwo = claims(&slow, 1, scanners: 2)
        #expect(slowTwo == [false])
        let slowThree = claims(&slow, 2, scanners: 3)
        #expect(slowThree == [true, false])
        // Before every base pass's cost is known: no.
        var unknown = ledger(baseSeconds: 0.003)
        let withZbar = claims(&unknown, 1, scanners: 2, base: [.zxingFast, .zbar])
        #expect(withZbar == [false])
        // One scanner: the frame's own time budget decides, not this.
        let one = claims(&slow, 1, scanners: 1)
        #expect(one == [true])
    }

    @Test("a pass's expected cost follows this frame's first-pass time and is never below its own recent p99")
    func expectedCostScalesWithTheFirstPass() {
        var ledger = EffortLedger()
        #expect(abs(ledger.expectedCost(of: .zxingFull, firstPassSeconds: 0.002) - 0.002 * EffortLedger.unknownRatio) < 1e-9)
        for _ in 0..<5 { ledger.add(.zxingFull, seconds: 0.010, firstPassSeconds: 0.002) }
        #expect(abs(ledger.expectedCost(of: .zxingFull, firstPassSeconds: 0.002) - 0.010) < 1e-9)
        #expect(abs(ledger.expectedCost(of: .zxingFull, firstPassSeconds: 0.020) - 0.100) < 1e-9)
        // The largest recent multiple counts: one slow frame raises the estimate.
        ledger.add(.zxingFull, seconds: 0.040, firstPassSeconds: 0.002)
        #expect(abs(ledger.expectedCost(of: .zxingFull, firstPassSeconds: 0.002) - 0.040) < 1e-9)
        // Never less than the pass's own recent 99th percentile, however fast the first pass was.
        #expect(abs(ledger.expectedCost(of: .zxingFull, firstPassSeconds: 0.0001) - 0.040) < 1e-9)
    }

    @Test("with several scanners the expected cost is the typical one, so one slow frame does not cut the pass for good")
    func severalScannersExpectTheTypicalCost() {
        var ledger = EffortLedger()
        #expect(abs(ledger.expectedCost(of: .zxingFull, firstPassSeconds: 0.002, scanners: 2) - 0.002 * EffortLedger.typicalRatio) < 1e-9)
        for _ in 0..<5 { ledger.add(.zxingFull, seconds: 0.010, firstPassSeconds: 0.002) }
        ledger.add(.zxingFull, seconds: 0.060, firstPassSeconds: 0.002)   // one noisy frame: 30 times
        #expect(abs(ledger.expectedCost(of: .zxingFull, firstPassSeconds: 0.002, scanners: 2) - 0.010) < 1e-9)
        #expect(abs(ledger.expectedCost(of: .zxingFull, firstPassSeconds: 0.004, scanners: 2) - 0.020) < 1e-9)
        // One scanner: the slow frame counts.
        #expect(abs(ledger.expectedCost(of: .zxingFull, firstPassSeconds: 0.002) - 0.060) < 1e-9)
    }
}

@Suite(.offThePool) struct EffortSessionTests {
    /// Frames a microsecond apart (blank, a QR code, the code light on dark) through a session:
    /// a live source's session has the harder passes cut on the third and counts them; a file's
    /// runs every pass and reads the inverted code with zxing-full.
    @Test("the session tells the scanners whether the source is live, and counts codes by pass and cut passes")
    func sessionKnowsLiveFromFile() async throws {
        let (code, _) = try GreyFrame.withQRCode("session")
        let pixels = [GreyFrame(width: 320, height: 240), code, code.inverted()].map { $0.packedPixels }
        for live in [true, false] {
            let steps = pixels.enumerated().map { ScriptedFrameSource.Step.frame(UInt64($0), pixels: $1, pts: MediaTime(nanoseconds: Int64($0) * 1_000)) }
            let source = ScriptedFrameSource(steps: steps, isLive: live, width: 320, height: 240)
            let output = MetadataOutput(settings: MetadataOutput.Settings(engine: .zxing, effort: .auto), scanningThreads: 1)
            let session = CaptureSession(input: source, videoDataOutput: VideoDataOutput(alwaysDiscardsLateVideoFrames: false),
                                         metadataOutput: output, logger: Logger(label: "test"))
            let stats = try await session.run(synchronizer: DataOutputSynchronizer { _ in })
            #expect(stats.scanned == 3, "live \(live)")
            if live {
                #expect(stats.codesByPass == [.zxingFast: 1])
                #expect(stats.passesCut == [.zxingFull: 1, .zxingHistogram: 1])
            } else {
                #expect(stats.codesByPass == [.zxingFast: 1, .zxingFull: 1])
                #expect(stats.passesCut.isEmpty)
            }
        }
    }
}
