import Decoders
import Foundation
import Logging
import Media
import TestSupport
import Testing
@testable import Capture

/// A 480x240 frame with a readable QR code on the left and, on the right, a QR code whose middle
/// rows are wiped (finder patterns intact, data past repair); where each landed.
private func readableAndDamaged() throws -> (frame: GreyFrame, readable: RenderedCode, damaged: RenderedCode) {
    var frame = GreyFrame(width: 480, height: 240)
    let readable = frame.draw(try ModuleMatrix.qrCode("read me"), centerX: 110, centerY: 120, moduleSize: 4)
    let damaged = frame.draw(try ModuleMatrix.qrCode("damaged beyond repair, finders intact"), centerX: 340, centerY: 120, moduleSize: 4)
    return (frame.withDataRowsWiped(of: damaged), readable, damaged)
}

private func scanner(_ effort: ScanEffort, reportsUndecoded: Bool, live: Bool = false) -> MetadataOutput.Scanner {
    let settings = MetadataOutput.Settings(engine: .zxing, scanner: ScannerSettings(symbologies: [.qrcode]), effort: effort,
                                           reportsUndecoded: reportsUndecoded)
    return MetadataOutput(settings: settings).makeScanner(live: live)
}

/// Whether `corners` (zbar's order) lie within two modules of `code`'s drawn corners.
private func outlines(_ corners: [PixelPoint], _ code: RenderedCode) -> Bool {
    let drawn = [code.topLeft, code.bottomLeft, code.bottomRight, code.topRight]
    return corners.count == 4 && zip(corners, drawn).allSatisfy { $1.distance(toX: $0.x, y: $0.y) <= 2 * code.moduleSize }
}

@Suite(.offThePool) struct UndecodedCodeTests {
    @Test("with reportsUndecoded a code zxing-cpp detected and could not decode is reported with its outline, never as a code",
          arguments: [ScanEffort.fast, .max])
    func reportedWithItsOutline(effort: ScanEffort) throws {
        let (grey, readable, damaged) = try readableAndDamaged()
        let report = scanner(effort, reportsUndecoded: true).scanReport(grey.videoFrame())
        #expect(report.codes.map(\.data) == [Array("read me".utf8)])
        #expect(outlines(report.codes.first?.corners ?? [], readable))
        #expect(report.undecoded.count == 1, "\(report.undecoded)")
        let undecoded = try #require(report.undecoded.first)
        #expect(undecoded.symbology == .qrcode && undecoded.pass == .zxingFast)
        #expect(["format", "checksum"].contains(undecoded.error), "\(undecoded.error)")
        #expect(outlines(undecoded.corners, damaged), "\(undecoded.corners) against \(damaged.corners)")
        #expect(undecoded.bounds.x >= Int(damaged.topLeft.x) - 8 && undecoded.bounds.width > 0)
    }

    @Test("without a live view none is asked for on a file; auto on a live source asks anyway (its evidence)")
    func askedForOnlyWhenWanted() throws {
        let (grey, _, damaged) = try readableAndDamaged()
        #expect(scanner(.max, reportsUndecoded: false).scanReport(grey.videoFrame()).undecoded.isEmpty)
        let live = scanner(.auto, reportsUndecoded: false, live: true).scanReport(grey.videoFrame())
        #expect(live.undecoded.count == 1 && outlines(live.undecoded.first?.corners ?? [], damaged))
    }

    @Test("a code a pass read is never also reported undecoded")
    func aReadCodeIsNotUndecoded() throws {
        let (grey, readable, _) = try readableAndDamaged()
        let code = try #require(scanner(.fast, reportsUndecoded: true).scan(grey.videoFrame()).first)
        let sameSpot = UndecodedCodeObject(symbology: .qrcode, error: "checksum", pass: .zxingFast,
                                           corners: code.corners.map { PixelPoint(x: $0.x + 3, y: $0.y + 3) })
        #expect(sameSpot.isRead(as: code))
        let elsewhere = UndecodedCodeObject(symbology: .qrcode, error: "checksum", pass: .zxingFast,
                                            corners: code.corners.map { PixelPoint(x: $0.x + 250, y: $0.y) })
        #expect(!elsewhere.isRead(as: code))
        #expect(outlines(code.corners, readable))
    }

    @Test("the session carries them to the handlers in the frame's collection; the frame's codes do not count them")
    func theSessionCarriesThem() async throws {
        let (grey, _, damaged) = try readableAndDamaged()
        let source = ScriptedFrameSource(steps: (0..<3).map { .frame($0, pixels: grey.bytes) }, isLive: false, width: 480, height: 240)
        let settings = MetadataOutput.Settings(engine: .zxing, scanner: ScannerSettings(symbologies: [.qrcode]), effort: .fast,
                                               reportsUndecoded: true)
        let recorder = CollectionRecorder()
        let session = CaptureSession(input: source, videoDataOutput: VideoDataOutput(), metadataOutput: MetadataOutput(settings: settings),
                                     logger: Logger(label: "test"))
        let stats = try await session.run(synchronizer: DataOutputSynchronizer { recorder.append($0) })
        #expect(recorder.collections.count == 3 && stats.codes == 3, "one code a frame, the readable one")
        for collection in recorder.collections {
            #expect(collection.metadata?.metadataObjects.count == 1)
            #expect(collection.metadata?.undecoded.count == 1)
            #expect(outlines(collection.metadata?.undecoded.first?.corners ?? [], damaged))
        }
    }
}
