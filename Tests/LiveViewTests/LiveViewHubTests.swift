import Capture
import Foundation
import Logging
import Media
import TestSupport
import Testing
@testable import LiveView

@Suite(.offThePool) struct LiveViewHubTests {
    private static let line = Array(("{\"type\":\"code\",\"text\":\"" + String(repeating: "x", count: 400) + "\"}\n").utf8)

    private func readAll(_ viewer: LiveViewEventViewer) -> (bytes: [UInt8], ended: Bool) {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { viewer.read(into: $0) }
            guard let n else { return (out, true) }
            if n == 0 { return (out, false) }
            out += buffer[0..<n]
        }
    }

    /// A viewer that never reads is dropped once it is `eventBacklogBytes` behind; publishing
    /// never waits for it (were it to, the stalled viewer would hold it for ever: the time limit
    /// is that test's guard, a hang's, not a speed's: one minute was exceeded under
    /// ThreadSanitizer on a machine loaded to 45), and a viewer that reads gets every line.
    @Test(.timeLimit(.minutes(5))) func aViewerThatNeverReadsIsDroppedWithoutHoldingUpTheLines() {
        let hub = LiveViewHub()
        let stalled = hub.openEvents()
        let reading = hub.openEvents()
        var received: [UInt8] = []
        let lines = LiveViewHub.eventBacklogBytes / Self.line.count * 3
        for i in 0..<lines {
            hub.publishCode(Self.line)
            // Each read of everything ends with a second's wait for more.
            if i % 400 == 0 { received += readAll(reading).bytes }
        }
        received += readAll(reading).bytes
        #expect(String(decoding: received, as: UTF8.self).components(separatedBy: "data: {\"type\":\"code\"").count - 1 == lines)
        #expect(readAll(stalled).ended, "the stalled viewer's stream ends")
        #expect(hub.viewersDropped == 1)
        stalled.close()
        reading.close()
        #expect(hub.viewers == 0)
    }

    @Test func aNewViewerGetsTheRecentCodesAsRecentEvents() {
        let hub = LiveViewHub(recentCodes: 3)
        for i in 0..<5 { hub.publishCode(Array("{\"n\":\(i)}\n".utf8)) }
        let viewer = hub.openEvents()
        let text = String(decoding: readAll(viewer).bytes, as: UTF8.self)
        #expect(text == ": syncscan events\n\nevent: recent\ndata: {\"n\":2}\n\nevent: recent\ndata: {\"n\":3}\n\nevent: recent\ndata: {\"n\":4}\n\n")
        hub.publishStatus(Array("{\"s\":1}".utf8))
        #expect(String(decoding: readAll(viewer).bytes, as: UTF8.self) == "event: status\ndata: {\"s\":1}\n\n")
    }

    @Test func picturesAreWantedOnlyWhileSomeoneWatches() {
        let hub = LiveViewHub()
        #expect(!hub.wantsPictures)
        let viewer = hub.openPictures()
        #expect(hub.wantsPictures)
        viewer.close()
        viewer.close()
        #expect(!hub.wantsPictures && hub.viewers == 0)
    }

    /// With nobody watching the handler picks no frame; with a viewer, at most one per preview interval.
    @Test func theHandlerSamplesOnlyForViewersAndAtMostPreviewFPS() throws {
        let handler = LiveViewResultsHandler(settings: LiveViewSettings(previewFPS: 0.5, previewWidth: 64), source: "test",
                                             logger: Logger(label: "test"))
        let info = { (seq: UInt64) in FrameInfo(sequenceNumber: seq, presentationTime: .zero, width: 160, height: 120, format: .grey) }
        #expect(!(0..<10).contains { handler.wantsPixels(of: info($0)) })
        let viewer = handler.hub.openPictures()
        #expect(handler.wantsPixels(of: info(10)))
        #expect(!handler.wantsPixels(of: info(11)), "one pick until that frame completes")
        viewer.close()
        try handler.finish()
    }
}
