import Foundation
import GStreamer
import Media
import SystemCalls
import TestSupport
import Testing
import ZBar

/// Against GStreamer's own RTSP server on a free loopback port (`RTSPTestServer`): H.264 of six
/// frames, each with one QR code, looped at 10 fps.
@Suite(.offThePool) struct RTSPSourceTests {
    static let codes = (0..<6).map { "frame-\($0)" }

    /// Reads `source` until every code of `codes` was read (at most `limit` events), zbar on each
    /// frame; `afterDiscontinuity`: only codes read after the first discontinuity count.
    static func readUntilEveryCode(_ source: GStreamerSource, scanner: ImageScanner, afterDiscontinuity: Bool = false, limit: Int = 600)
        throws -> (events: [SourceEvent], codes: Set<String>) {
        var events: [SourceEvent] = [], seen = Set<String>(), counting = !afterDiscontinuity
        while seen.count < codes.count, events.count < limit, let event = try source.next() {
            events.append(event)
            if case .dropped(_, _, .discontinuity, _) = event { counting = true }
            guard case .frame(let frame) = event else { continue }
            let read = frame.buffer.withUnsafeBytes { bytes in
                scanner.scan(luma: bytes, width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine)
            }.compactMap(\.text)
            // Each frame holds exactly one code, one of the six.
            #expect(read.count == 1 && codes.contains(read[0]), "frame \(frame.sequenceNumber): \(read)")
            if counting { seen.formUnion(read) }
        }
        return (events, seen)
    }

    @Test func everyCodeIsReadAndTheStreamIsReopenedAfterTheServerRestarts() throws {
        let server = try RTSPTestServer(frames: try Self.codes.map { try GreyFrame.withQRCode($0).frame })
        let log = LogRecorder()
        let uri = try #require(try GStreamerURI.parse(server.url(credentials: "viewer:hunter2")))
        let source = try GStreamerSource(uri: uri, missingTimeout: .seconds(30), logger: log.logger)
        #expect(source.isLive)
        let scanner = ImageScanner()
        try source.start()
        let before = try Self.readUntilEveryCode(source, scanner: scanner)
        #expect(before.codes == Set(Self.codes))

        // Frames sent before the kill may still be queued (TCP, the jitter buffer, the appsink):
        // the codes after the restart are those read after the discontinuity.
        server.kill()
        try server.start()  // same port
        let after = try Self.readUntilEveryCode(source, scanner: scanner, afterDiscontinuity: true)
        source.stop()
        #expect(after.codes == Set(Self.codes), "codes read after the restart")

        let events = before.events + after.events
        let gaps = events.filter { if case .dropped(_, _, .discontinuity, _) = $0 { true } else { false } }
        #expect(gaps.count == 1, "the restart is one discontinuity in the ledger")
        #expect(source.reopens == 1 && source.missingSince == nil)
        let sequence = events.map { event -> UInt64 in
            switch event {
            case .frame(let frame): frame.sequenceNumber
            case .dropped(let n, _, _, _): n
            }
        }
        #expect(sequence == Array(0..<UInt64(events.count)), "sequence numbers continue across the reopen")
        let times = events.compactMap { event -> Int64? in if case .frame(let f) = event { f.presentationTime.nanoseconds } else { nil } }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "pts strictly increasing across the reopen")
        #expect(log.lines(containing: "gstreamer input lost").count == 1 && log.lines(containing: "gstreamer input reopened").count == 1,
                "\(log.all.map(\.line))")
        #expect(!log.all.contains { $0.line.contains("hunter2") }, "\(log.all.map(\.line))")
        #expect(log.all.contains { $0.line.contains("rtsp://viewer:***@127.0.0.1:\(server.port)/test") })
    }

    @Test func overUDPEveryCodeIsReadToo() throws {
        let server = try RTSPTestServer(frames: try Self.codes.map { try GreyFrame.withQRCode($0).frame })
        let uri = try #require(try GStreamerURI.parse(server.url()))
        let source = try GStreamerSource(uri: uri, missingTimeout: .seconds(30), transport: .udp, latencyMilliseconds: 100, logger: LogRecorder().logger)
        try source.start()
        let read = try Self.readUntilEveryCode(source, scanner: ImageScanner())
        source.stop()
        #expect(read.codes == Set(Self.codes))
    }

    /// Against a server demanding `viewer:hunter2`: each failure at start names the source
    /// (redacted), GStreamer's reason and what to check, and no password given is shown.
    @Test func aWrongPathARefusedPortAndWrongCredentialsAreClearErrorsWithoutThePassword() throws {
        let server = try RTSPTestServer(frames: [try GreyFrame.withQRCode("frame-0").frame], credentials: "viewer:hunter2")
        let cases: [(url: String, reason: String, advice: String)] = [
            (server.url(credentials: "viewer:hunter2", path: "nothing"), "Not found", "check the path in the URI"),
            ("rtsp://viewer:hunter2@127.0.0.1:\(try MosquittoBroker.freePort())/test", "Could not open resource",
             "cannot connect: check the address and port"),
            (server.url(credentials: "viewer:letmein"), "Unauthorized", "the server refused the credentials: check the user name and password"),
        ]
        for (url, reason, advice) in cases {
            let uri = try #require(try GStreamerURI.parse(url))
            let log = LogRecorder()
            let source = try GStreamerSource(uri: uri, missingTimeout: .seconds(30), logger: log.logger)
            let error = #expect(throws: IOError.self) { try source.start() }
            let text = error.map { "\($0)" } ?? ""
            #expect(text.contains(uri.description) && text.contains(reason) && text.contains(advice), "\(text)")
            for password in ["hunter2", "letmein"] {
                #expect(!text.contains(password) && !log.all.contains { $0.line.contains(password) }, "\(text)")
            }
        }
    }
}
