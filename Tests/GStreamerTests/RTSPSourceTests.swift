import Foundation
import GStreamer
import Media
import SystemCalls
import TestSupport
import Testing
import ZBar

extension InProcessPipelines {
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
            let report = source.report
            #expect(report.health.reopens == 1 && report.health.missingSince == nil && report.kind == "gst")
            #expect(report.label == "RTSP stream rtsp://viewer:***@127.0.0.1:\(server.port)/test", "no password in the label")
            let width = try GreyFrame.withQRCode(Self.codes[0]).frame.width
            #expect(report.mode?.origin == "stream" && report.mode?.width == width, "\(report)")
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

        /// The server stamps frame N of its stream N × 100 ms (10 fps; the RTP timestamps) and holds
        /// every 5th frame 350 ms, so the frames behind it arrive late, in a burst: the frames' pts
        /// are the stream's own clock, not their arrival. The code in each frame (`frame-K`, looped)
        /// counts the stream's frames: frame N after the first read has pts = first + N × 100 ms,
        /// within one frame period, and the pts strictly increase.
        @Test func ptsFollowTheStreamsClockWithinAFrameWhenFramesArriveLateAndInBursts() throws {
            let period: Int64 = 100_000_000
            let server = try RTSPTestServer(frames: try Self.codes.map { try GreyFrame.withQRCode($0).frame }, hold: (every: 5, milliseconds: 350))
            let uri = try #require(try GStreamerURI.parse(server.url()))
            let source = try GStreamerSource(uri: uri, missingTimeout: .seconds(30), logger: LogRecorder().logger)
            let scanner = ImageScanner()
            try source.start()
            // (pts, the code's K, when next() gave it) for 40 frames: 4 s of the stream, 8 holds.
            var frames: [(pts: Int64, code: Int, arrival: ContinuousClock.Instant)] = []
            while frames.count < 40, let event = try source.next() {
                guard case .frame(let frame) = event else { Issue.record("not a frame: \(event)"); continue }
                let arrival = ContinuousClock.now
                let read = frame.buffer.withUnsafeBytes { bytes in
                    scanner.scan(luma: bytes, width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine)
                }.compactMap(\.text)
                guard read.count == 1, let code = Self.codes.firstIndex(of: read[0]) else {
                    Issue.record("frame \(frame.sequenceNumber): \(read)")
                    continue
                }
                frames.append((frame.presentationTime.nanoseconds, code, arrival))
            }
            source.stop()
            try #require(frames.count == 40)
            // The stream's frame number of each, from its code: consecutive frames of the stream (TCP,
            // the appsink waits for the reader: none is lost).
            var number = [0]
            for (previous, frame) in zip(frames, frames.dropFirst()) {
                let step = (frame.code - previous.code + Self.codes.count) % Self.codes.count
                #expect(step == 1, "frame-\(previous.code) then frame-\(frame.code)")
                number.append(number.last! + step)
            }
            let pts = frames.map(\.pts)
            #expect(zip(pts, pts.dropFirst()).allSatisfy { $0 < $1 }, "pts strictly increasing: \(pts)")
            for (n, time) in zip(number, pts) {
                let off = (time - pts[0]) - Int64(n) * period
                #expect(abs(off) <= period, "frame \(n): pts \(time - pts[0]) ns after the first, \(off) ns off the stream's clock")
            }
            // The holds showed: the arrivals themselves strayed from the stream's clock by more than
            // two frame periods (else this test could not tell the stream's clock from arrival times).
            let arrivals = zip(number, frames).map { n, frame in
                let (seconds, attoseconds) = frames[0].arrival.duration(to: frame.arrival).components
                return seconds * 1_000_000_000 + attoseconds / 1_000_000_000 - Int64(n) * period
            }
            #expect(arrivals.max()! - arrivals.min()! > 2 * period, "arrival offsets \(arrivals)")
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
            let refused = try RefusingPort()
            let cases: [(url: String, reason: String, advice: String)] = [
                (server.url(credentials: "viewer:hunter2", path: "nothing"), "Not found", "check the path in the URI"),
                ("rtsp://viewer:hunter2@127.0.0.1:\(refused.port)/test", "Could not open resource",
                 "cannot connect: check the address and port"),
                (server.url(credentials: "viewer:letmein"), "Unauthorized", "the server refused the credentials: check the user name and password"),
            ]
            for (url, reason, advice) in cases {
                let uri = try #require(try GStreamerURI.parse(url))
                let log = LogRecorder()
                // The event is the server's answer: no start timeout a starved machine could reach first.
                let source = try GStreamerSource(uri: uri, missingTimeout: .seconds(30), startTimeout: hangTimeout, logger: log.logger)
                let error = #expect(throws: IOError.self) { try source.start() }
                let text = error.map { "\($0)" } ?? ""
                #expect(text.contains(uri.description) && text.contains(reason) && text.contains(advice), "\(text)")
                for password in ["hunter2", "letmein"] {
                    #expect(!text.contains(password) && !log.all.contains { $0.line.contains(password) }, "\(text)")
                }
            }
        }
    }
}
