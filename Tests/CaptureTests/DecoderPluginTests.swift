import Capture
import Decoders
import Media
import Testing
import TestSupport

/// A 320x240 white frame with a QR code at the top left and one pixel of 7 (the dot library's code) at (250, 180).
private func frameWithDot() throws -> GreyFrame {
    var grey = GreyFrame(width: 320, height: 240)
    grey.draw(try ModuleMatrix.qrCode("beside the dot"), x: 8, y: 8, moduleSize: 3)
    grey[250, 180] = 7
    return grey
}

/// A library added through `DecoderLibrary` alone (`DotDecoderLibrary`, in TestSupport): its pass
/// runs from an engine's list, and its codes come out of `MetadataOutput` stamped with frame and pass.
@Suite(.offThePool) struct DecoderPluginTests {
    private let dot = DecoderEngine(name: "dot", libraries: [DotDecoderLibrary()], passes: [DotDecoderLibrary.pass])

    @Test("an engine of the fake library alone reads its code, stamped with the frame, library and pass")
    func fakeLibraryAlone() throws {
        let time = MediaTime(nanoseconds: 700_000_000)
        let frame = try frameWithDot().videoFrame(sequenceNumber: 7, presentationTime: time)
        let output = MetadataOutput(settings: MetadataOutput.Settings(engine: dot, scanner: ScannerSettings(symbologies: [.code93])))
        let report = output.makeScanner().scanReport(frame)
        #expect(report.passesRun == [DotDecoderLibrary.pass])
        let code = try #require(report.codes.first)
        #expect(report.codes.count == 1 && code.text == "dot 250,180" && code.symbology == .code93)
        #expect(code.engine == "dot" && code.pass == DotDecoderLibrary.pass)
        #expect(code.frame.sequenceNumber == 7 && code.frame.presentationTime == time && code.frame.width == 320)
        #expect(code.bounds == PixelRect(x: 250, y: 180, width: 1, height: 1))
        #expect(output.passTimePercentiles().keys.map(\.rawValue) == ["dot"])
    }

    @Test("a packed frame reaches a library without pixel stride as a plane, and the rect of interest is its region")
    func lumaPlaneAndRegion() throws {
        let grey = try frameWithDot()
        let settings = MetadataOutput.Settings(engine: dot, scanner: ScannerSettings(symbologies: [.code93]))
        #expect(MetadataOutput(settings: settings).makeScanner().scan(grey.videoFrame(format: .yuyv, bytesPerLine: 700)).map(\.text) == ["dot 250,180"])
        var left = settings
        left.rectOfInterest = NormalizedRect(x: 0, y: 0, width: 0.5, height: 1)
        #expect(MetadataOutput(settings: left).makeScanner().scan(grey.videoFrame()).isEmpty)
    }

    @Test("an engine is a list: zxing-cpp's fast pass and the fake one, each reading its own symbology, in the list's order")
    func mixedWithZXing() throws {
        let mixed = DecoderEngine(name: "zxing+dot", libraries: [ZXingDecoder(), DotDecoderLibrary()], passes: [.zxingFast, DotDecoderLibrary.pass])
        #expect(mixed.readable.isSuperset(of: [.qrcode, .code93]) && DecoderPass.passes(for: mixed, symbologies: [.qrcode]) == [.zxingFast])
        let settings = MetadataOutput.Settings(engine: mixed, scanner: ScannerSettings(symbologies: [.qrcode, .code93]), effort: .max)
        let report = MetadataOutput(settings: settings).makeScanner().scanReport(try frameWithDot().videoFrame(sequenceNumber: 3))
        #expect(report.passesRun == [.zxingFast, DotDecoderLibrary.pass])
        #expect(report.codes.map { "\($0.engine) \($0.pass) \($0.text ?? "")" }.sorted() == ["dot dot dot 250,180", "zxing zxing-fast beside the dot"])
        #expect(report.codes.allSatisfy { $0.frame.sequenceNumber == 3 })
    }
}
