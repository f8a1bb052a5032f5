import Foundation
@testable import GStreamer
import Media
import SystemCalls
import TestSupport
import Testing
import ZBar

/// A video file made at test time by ffmpeg from frames each holding one QR code (`frame-N`),
/// 10 fps: what GStreamer must give back, each code in its own frame.
final class CodedVideoFile: @unchecked Sendable {
    static let frameCount = 6
    let directory: URL
    let path: String

    /// Encodes the frames with `codec` (ffmpeg's `-c:v`) into a file ending in `fileExtension`.
    init(codec: [String], fileExtension: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-gst-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var raw: [UInt8] = []
        for n in 0..<Self.frameCount { raw += try GreyFrame.withQRCode("frame-\(n)").frame.packedPixels }
        let rawPath = directory.appendingPathComponent("frames.gray").path
        try Data(raw).write(to: URL(fileURLWithPath: rawPath))
        path = directory.appendingPathComponent("clip.\(fileExtension)").path
        let result = try ExternalTool.run("ffmpeg", ["-nostdin", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "gray", "-s", "320x240",
                                                     "-r", "10", "-i", rawPath] + codec + [path])
        guard result.status == 0 else { throw FixtureError.toolFailed(result.describe()) }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// Every event of `source` until its end, with the codes zbar reads in each frame.
func readAll(_ source: GStreamerSource) throws -> [(event: SourceEvent, codes: [String])] {
    try source.start()
    let scanner = ImageScanner()
    var events: [(SourceEvent, [String])] = []
    while let event = try source.next() {
        guard case .frame(let frame) = event else { events.append((event, [])); continue }
        let codes = frame.buffer.withUnsafeBytes { bytes in
            scanner.scan(luma: bytes, width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine)
        }.compactMap(\.text)
        events.append((event, codes))
    }
    return events
}

extension InProcessPipelines {
    @Suite(.offThePool) struct GStreamerSourceTests {
        @Test(arguments: [(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "12"], "mp4"),
                          (["-c:v", "mjpeg", "-q:v", "2", "-pix_fmt", "yuvj420p"], "avi"),
                          (["-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "12"], "mkv")])
        func aFileGivesEveryCodeInItsFrameAtItsStreamTime(codec: [String], fileExtension: String) throws {
            let file = try CodedVideoFile(codec: codec, fileExtension: fileExtension)
            let uri = try #require(try GStreamerURI.parse(file.path))
            let log = LogRecorder()
            let source = try GStreamerSource(uri: uri, missingTimeout: .seconds(1), logger: log.logger)
            #expect(!source.isLive, "a file: every frame scanned")
            let events = try readAll(source)
            #expect(events.count == CodedVideoFile.frameCount, "\(events.map(\.codes))")
            for (n, (event, codes)) in events.enumerated() {
                guard case .frame(let frame) = event else { Issue.record("event \(n) is \(event)"); continue }
                #expect(frame.sequenceNumber == UInt64(n))
                #expect(codes == ["frame-\(n)"], "frame \(n)")
                #expect(frame.width == 320 && frame.height == 240 && frame.bytesPerLine >= 320)
                // 10 fps: frame N at N × 100 ms of the stream's own clock.
                #expect(abs(frame.presentationTime.nanoseconds - Int64(n) * 100_000_000) < 1_000_000, "frame \(n): \(frame.presentationTime)")
            }
        }

        /// A GStreamer source says its mode as the live view shows every source's: the size, format
        /// and rate of its frames' caps (a file: origin `file`), with its label and kind.
        @Test func aFileReportsTheModeOfItsFramesCaps() throws {
            let file = try CodedVideoFile(codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "12"], fileExtension: "mp4")
            let uri = try #require(try GStreamerURI.parse(file.path))
            let source = try GStreamerSource(uri: uri, missingTimeout: .seconds(1), logger: LogRecorder().logger)
            #expect(source.report.mode == nil, "no frame yet")
            #expect(source.report.kind == "gst" && source.report.label == "video file \(file.path)")
            try source.start()
            defer { source.stop() }
            let mode = try #require(source.report.mode)
            #expect(mode.width == 320 && mode.height == 240 && mode.origin == "file", "\(mode)")
            #expect(abs((mode.framesPerSecond ?? 0) - 10) < 0.001, "\(mode)")
            #expect(["GRAY8", "I420", "YV12", "NV12", "NV21", "Y42B", "Y444"].contains(mode.format), "GStreamer's name of a luma-first format: \(mode.format)")
            #expect(source.report.controls == nil && source.report.health == SourceHealth())
        }

        @Test func anMJPEGStreamOverHTTPGivesEveryCodeInOrder() throws {
            // ffmpeg serves the frames once as multipart JPEG (the MJPEG of IP cameras) to the first client.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-mjpeg-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var raw: [UInt8] = []
            for n in 0..<CodedVideoFile.frameCount { raw += try GreyFrame.withQRCode("frame-\(n)").frame.packedPixels }
            let rawPath = directory.appendingPathComponent("frames.gray").path
            try Data(raw).write(to: URL(fileURLWithPath: rawPath))
            let port = try MosquittoBroker.freePort()
            let server = try ChildProcess(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "gray", "-s", "320x240", "-r", "10",
                                           "-i", rawPath, "-c:v", "mjpeg", "-q:v", "2", "-pix_fmt", "yuvj420p", "-f", "mpjpeg", "-listen", "1",
                                           "http://127.0.0.1:\(port)/stream.mjpg"])
            defer { if server.isRunning { server.signal(SIGKILL) } }
            let uri = try #require(try GStreamerURI.parse("http://viewer:hunter2@127.0.0.1:\(port)/stream.mjpg"))
            #expect(GStreamerURI.isLive(uri))
            let log = LogRecorder()
            // Until ffmpeg listens, a start is refused: each attempt a new source.
            var source: GStreamerSource?
            #expect(waitUntil(every: .milliseconds(50)) {
                let attempt = try? GStreamerSource(uri: uri, missingTimeout: .seconds(30), logger: log.logger)
                guard (try? attempt?.start()) != nil else { return false }
                source = attempt
                return true
            })
            let started = try #require(source)
            let scanner = ImageScanner()
            var codes: [String] = []
            while codes.count < CodedVideoFile.frameCount, let event = try started.next() {
                guard case .frame(let frame) = event else { Issue.record("\(event)"); break }
                codes += frame.buffer.withUnsafeBytes { scanner.scan(luma: $0, width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine) }
                    .compactMap(\.text)
            }
            started.stop()
            #expect(codes == (0..<CodedVideoFile.frameCount).map { "frame-\($0)" })
            #expect(!log.all.contains { $0.line.contains("hunter2") })
        }

        @Test func aLivePipelineThatEndsIsReopenedWithADiscontinuityAndIncreasingTimes() throws {
            // gst: is live; videotestsrc ends after 3 buffers each time, so the source reopens it.
            let uri = try #require(try GStreamerURI.parse("gst:videotestsrc num-buffers=3 pattern=black ! video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1"))
            let log = LogRecorder()
            let source = try GStreamerSource(uri: uri, missingTimeout: .seconds(30), logger: log.logger)
            #expect(source.isLive)
            try source.start()
            var events: [SourceEvent] = []
            while events.count < 7, let event = try source.next() { events.append(event) }
            source.stop()
            let afterStop = try source.next()
            #expect(afterStop == nil, "after stop()")
            let kinds = events.map { event -> String in
                switch event {
                case .frame: "frame"
                case .dropped(_, _, let reason, _): reason.rawValue
                }
            }
            #expect(kinds == ["frame", "frame", "frame", "discontinuity", "frame", "frame", "frame"], "\(kinds)")
            let sequence = events.map { event -> UInt64 in
                switch event {
                case .frame(let frame): frame.sequenceNumber
                case .dropped(let n, _, _, _): n
                }
            }
            #expect(sequence == Array(0..<7))
            let times = events.compactMap { event -> Int64? in if case .frame(let f) = event { f.presentationTime.nanoseconds } else { nil } }
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
            #expect(source.reopens == 1 && source.missingSince == nil)
            #expect(log.lines(containing: "gstreamer input lost").count == 1)
            #expect(log.lines(containing: "gstreamer input reopened").count == 1)
        }

        @Test func aMissingFileIsAClearErrorAtStart() throws {
            let uri = try #require(try GStreamerURI.parse("/nonexistent/clip.mp4"))
            let source = try GStreamerSource(uri: uri, missingTimeout: nil, logger: LogRecorder().logger)
            let error = #expect(throws: IOError.self) { _ = try readAll(source) }
            #expect(error.map { "\($0)".contains("/nonexistent/clip.mp4") } == true, "\(String(describing: error))")
        }

        @Test func credentialsNeverReachAMessage() throws {
            let uri = try #require(try GStreamerURI.parse("rtsp://admin:hunter2@127.0.0.1:1/stream"))
            #expect(uri.description == "rtsp://admin:***@127.0.0.1:1/stream")
            let source = try GStreamerSource(uri: uri, missingTimeout: nil, logger: LogRecorder().logger)
            #expect(source.uri == "rtsp://admin:***@127.0.0.1:1/stream")
            #expect(source.shown("Could not open rtsp://admin:hunter2@127.0.0.1:1/stream (hunter2)") == "Could not open rtsp://admin:***@127.0.0.1:1/stream (***)")
            #expect(SecretRedaction.secrets(in: uri.location) == ["hunter2"])
        }
    }
}

@Suite(.offThePool) struct GStreamerURITests {
    @Test func eachFormHasItsKindAndLiveness() throws {
        let rtsp = try #require(try GStreamerURI.parse("rtsp://cam.local:8554/live"))
        #expect(GStreamerURI.kind(of: rtsp) == .network(scheme: "rtsp") && GStreamerURI.isLive(rtsp))
        let file = try #require(try GStreamerURI.parse("clips/Phone.MOV"))
        #expect(GStreamerURI.kind(of: file) == .file(path: "clips/Phone.MOV") && !GStreamerURI.isLive(file))
        #expect(file.description == "file:clips/Phone.MOV")
        let pipeline = try #require(try GStreamerURI.parse("gst:libcamerasrc"))
        #expect(GStreamerURI.kind(of: pipeline) == .pipeline(description: "libcamerasrc"))
        #expect(try GStreamerURI.parse("/dev/video0") == nil)
        #expect(try GStreamerURI.parse("clip.y4m") == nil)
        #expect(throws: SourceURIError.self) { try GStreamerURI.parse("rtsp:camera") }
        #expect(throws: SourceURIError.self) { try GStreamerURI.parse("gst: ") }
    }

    @Test func rtspGetsItsTransportAndJitterBufferAndEveryPipelineEndsInTheLumaSink() throws {
        let rtsp = try #require(try GStreamerURI.parse("rtsp://u:p@cam/live"))
        #expect(GStreamerURI.pipelineDescription(rtsp, transport: .udp, latencyMilliseconds: 50)
                .hasPrefix("rtspsrc location=\"rtsp://u:p@cam/live\" latency=50 protocols=udp buffer-mode=none ! decodebin ! videoconvert ! appsink name=syncscan"))
        #expect(GStreamerURI.pipelineDescription(rtsp, cameraTime: true)
                .hasPrefix("rtspsrc location=\"rtsp://u:p@cam/live\" latency=200 protocols=tcp buffer-mode=none add-reference-timestamp-meta=true ! decodebin ! "))
        let file = try #require(try GStreamerURI.parse("a \"b\".mkv"))
        #expect(GStreamerURI.pipelineDescription(file).hasPrefix("filesrc location=\"a \\\"b\\\".mkv\" ! decodebin ! "))
        let custom = try #require(try GStreamerURI.parse("gst:videotestsrc"))
        #expect(GStreamerURI.pipelineDescription(custom).hasPrefix("videotestsrc ! videoconvert ! appsink name=syncscan"))
    }

    @Test func installedPluginsAreCheckedWithoutOpening() throws {
        // This machine has the plugins the tests need (scripts/setup.sh): the check passes.
        try GStreamerURI.checkInstalled(try #require(try GStreamerURI.parse("rtsp://cam/live")))
        try GStreamerURI.checkInstalled(try #require(try GStreamerURI.parse("clip.mp4")))
        #expect(GStreamerLibrary.version.hasPrefix("1."), "\(GStreamerLibrary.version)")
        #expect(GStreamerLibrary.hasElement("rtspsrc") && !GStreamerLibrary.hasElement("nosuchelement"))
    }
}

/// Every plugin a pipeline uses is loaded with GStreamer itself, before any pipeline.
@Suite struct PipelinePluginTests {
    @Test func initializingGStreamerLoadsEveryPluginAPipelineUses() throws {
        try GStreamerCalls.initialize().get()
        // This machine has them all (scripts/setup.sh installs -good, -bad and -libav).
        let notLoaded = GStreamerCalls.pipelinePlugins.filter { !GStreamerCalls.pluginIsLoaded($0) }
        #expect(notLoaded.isEmpty, "\(notLoaded)")
        #expect(!GStreamerCalls.pluginIsLoaded("nosuchplugin"))
    }
}
