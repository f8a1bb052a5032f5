import Capture
import Decoders
import Foundation
import Logging
import Media
import TestSupport
import Testing
@testable import LiveView

/// Every event an events viewer has pending (each read of everything ends with a second's wait for more).
func pendingEvents(_ viewer: LiveViewEventViewer) -> String {
    var out: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 1 << 20)
    while let n = buffer.withUnsafeMutableBytes({ viewer.read(into: $0) }), n > 0 { out += buffer[0..<n] }
    return String(decoding: out, as: UTF8.self)
}

/// The JSON objects of the `event: sightings` in `text`, in order.
func sightings(in text: String) throws -> [[String: Any]] {
    try text.components(separatedBy: "event: sightings\ndata: ").dropFirst().map { event in
        let json = String(event.prefix { $0 != "\n" })
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }
}

/// A 480x240 frame with the QR code "read me" on the left and a QR code with its data rows wiped
/// (detected, not decodable) on the right, scanned for real by zxing-cpp as frame `seq` (30 fps).
func scannedCollection(_ grey: GreyFrame, seq: UInt64, scanner: MetadataOutput.Scanner) -> SynchronizedDataCollection {
    let frame = grey.videoFrame(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 33_333_333))
    let report = scanner.scanReport(frame)
    return SynchronizedDataCollection(
        video: SynchronizedVideoData(sequenceNumber: seq, presentationTime: frame.presentationTime, frame: frame.info, droppedReason: nil),
        metadata: SynchronizedMetadataObjectData(presentationTime: frame.presentationTime, metadataObjects: report.codes,
                                                 undecoded: report.undecoded))
}

private func readableAndDamagedFrame() throws -> GreyFrame {
    var frame = GreyFrame(width: 480, height: 240)
    frame.draw(try ModuleMatrix.qrCode("read me"), centerX: 110, centerY: 120, moduleSize: 4)
    let damaged = frame.draw(try ModuleMatrix.qrCode("damaged beyond repair, finders intact"), centerX: 340, centerY: 120, moduleSize: 4)
    return frame.withDataRowsWiped(of: damaged)
}

@Suite(.offThePool) struct LiveViewSightingsTests {
    /// The live view gets every scanned frame's codes, while duplicate suppression lets one line through.
    @Test func everyScannedFrameReachesTheViewersNotOnlyTheEmittedLines() throws {
        let grey = try readableAndDamagedFrame()
        let settings = MetadataOutput.Settings(engine: .zxing, effort: .fast,
                                               reportsUndecoded: true)
        let scanner = MetadataOutput(settings: settings).makeScanner()
        var liveSettings = LiveViewSettings()
        liveSettings.outlinesPerSecond = 1e9  // every frame due: the count below is the frames', not a clock's
        let liveView = LiveViewResultsHandler(settings: liveSettings, source: "y4m:test", logger: Logger(label: "test"))
        liveView.start()
        let viewer = liveView.hub.openEvents()
        let delivery = Delivery(handler: liveView, reporting: .window(MediaTime(seconds: 1)))
        for seq in UInt64(0)..<5 { try delivery.deliver(scannedCollection(grey, seq: seq, scanner: scanner)) }
        let text = pendingEvents(viewer)
        viewer.close()
        try liveView.finish()

        #expect(delivery.emitted == 1)
        #expect(text.components(separatedBy: "\ndata: {\"type\":\"code\"").count - 1 == 1, "one code line: \(text)")
        let events = try sightings(in: text)
        #expect(events.map { $0["seq"] as? Int } == [0, 1, 2, 3, 4], "every frame's codes")
        for event in events {
            #expect(event["width"] as? Int == 480 && event["height"] as? Int == 240)
            let read = event["read"] as? [[String: Any]] ?? []
            #expect(read.map { $0["label"] as? String } == ["read me"] && read.first?["symbology"] as? String == "qrcode")
            #expect((read.first?["corners"] as? [[Int]])?.count == 4)
            let undecoded = event["undecoded"] as? [[String: Any]] ?? []
            #expect(undecoded.count == 1 && undecoded.first?["symbology"] as? String == "qrcode")
            let corners = undecoded.first?["corners"] as? [[Int]] ?? []
            #expect(corners.count == 4 && corners.allSatisfy { $0[0] > 240 }, "the damaged code's outline, on the right: \(corners)")
            #expect(undecoded.first?["label"] == nil && undecoded.first?["text"] == nil, "no payload for an undecoded code")
        }
        #expect(liveView.counters.first { $0.name == "live_view_outline_updates" }?.value == 5)
    }

    @Test func nothingIsEncodedWithoutAnEventsViewer() throws {
        let grey = try readableAndDamagedFrame()
        let scanner = MetadataOutput(settings: MetadataOutput.Settings(engine: .zxing, effort: .fast, reportsUndecoded: true)).makeScanner()
        var liveSettings = LiveViewSettings()
        liveSettings.outlinesPerSecond = 1e9
        let liveView = LiveViewResultsHandler(settings: liveSettings, source: "y4m:test", logger: Logger(label: "test"))
        let delivery = Delivery(handler: liveView, reporting: .window(MediaTime(seconds: 1)))
        for seq in UInt64(0)..<3 { try delivery.deliver(scannedCollection(grey, seq: seq, scanner: scanner)) }
        #expect(liveView.counters.first { $0.name == "live_view_outline_updates" }?.value == 0)
        let viewer = liveView.hub.openEvents()
        try delivery.deliver(scannedCollection(grey, seq: 3, scanner: scanner))
        #expect(try sightings(in: pendingEvents(viewer)).map { $0["seq"] as? Int } == [3])
        viewer.close()
    }

    @Test func sightingsAreNotKeptForLaterViewers() {
        let hub = LiveViewHub()
        hub.publishSightings(Array("{\"seq\":1}".utf8))
        hub.publishCode(Array("{\"n\":1}\n".utf8))
        let viewer = hub.openEvents()
        let text = pendingEvents(viewer)
        #expect(text.contains("event: recent\ndata: {\"n\":1}") && !text.contains("sightings"), "\(text)")
        hub.publishSightings(Array("{\"seq\":2}".utf8))
        #expect(pendingEvents(viewer) == "event: sightings\ndata: {\"seq\":2}\n\n")
        viewer.close()
    }

    @Test func aLabelIsTheTextOrTheBytesCutToItsLimit() throws {
        let info = FrameInfo(sequenceNumber: 7, presentationTime: .zero, width: 640, height: 480, format: .grey)
        let corners = [PixelPoint(x: 1, y: 2), PixelPoint(x: 1, y: 9), PixelPoint(x: 8, y: 9), PixelPoint(x: 8, y: 2)]
        let long = MachineReadableCodeObject(symbology: .qrcode, data: Array(String(repeating: "é", count: 100).utf8),
                                             text: String(repeating: "é", count: 100), quality: nil, orientation: .up,
                                             corners: corners, frame: info, engine: .zxing, pass: .zbar)
        let binary = MachineReadableCodeObject(symbology: .datamatrix, data: [0, 1, 2], text: nil, quality: nil, orientation: .up,
                                               corners: corners, frame: info, engine: .zxing, pass: .zbar)
        #expect(LiveViewSightings.label(long) == String(repeating: "é", count: LiveViewSightings.labelLimit - 1) + "…")
        #expect(LiveViewSightings.label(binary) == "base64:AAEC")
        let undecoded = UndecodedCodeObject(symbology: .qrcode, error: "checksum", pass: .zxingFast, corners: corners)
        let json = LiveViewSightings.json(frame: info, metadata: SynchronizedMetadataObjectData(
            presentationTime: .zero, metadataObjects: [binary], undecoded: [undecoded]))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        #expect(object["seq"] as? Int == 7)
        #expect((object["read"] as? [[String: Any]])?.first?["label"] as? String == "base64:AAEC")
        let reported = try #require((object["undecoded"] as? [[String: Any]])?.first)
        #expect(reported["error"] as? String == "checksum" && reported["corners"] as? [[Int]] == [[1, 2], [1, 9], [8, 9], [8, 2]])
    }
}

@Suite struct SightingsPacerTests {
    private let start = ContinuousClock.now

    /// Whether each of `frames` (milliseconds after `start`, holding something or not) was sent.
    private func sent(_ frames: [(ms: Int, holds: Bool)], perSecond: Double) -> [Bool] {
        var pacer = SightingsPacer(perSecond: perSecond)
        return frames.map { pacer.shouldSend(holdsSomething: $0.holds, at: start + .milliseconds($0.ms)) }
    }

    @Test func aCodeHeldInViewAt30FPSIsSentTenTimesASecond() {
        let frames = (0..<30).map { (ms: $0 * 1000 / 30, holds: true) }
        let sentFrames = zip(frames, sent(frames, perSecond: 10)).filter(\.1).map(\.0.ms)
        #expect(sentFrames == [0, 100, 200, 300, 400, 500, 600, 700, 800, 900], "\(sentFrames)")
    }

    @Test func anEmptyViewIsSentOnceWhenDueThenNothing() {
        let frames = [(0, true), (50, false), (120, false), (250, false), (400, true), (450, false)]
        #expect(sent(frames, perSecond: 10) == [true, false, true, false, true, false])
        #expect(sent([(0, false), (500, false)], perSecond: 10) == [false, false], "nothing in view: nothing sent")
    }
}
