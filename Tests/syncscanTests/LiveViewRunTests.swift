import Foundation
import SystemCalls
import TestSupport
import Testing

/// `syncscan run --http 127.0.0.1:0` on a live pipe of QR frames, fed at 10 frames/s by a thread
/// of its own until the test ends; the port is the one the daemon logs.
private final class LiveViewDaemon: @unchecked Sendable {
    static let payload = "syncscan live view"
    let daemon: RunningDaemon
    let port: Int
    private let stop = LockedValue(false)
    private let fed = LockedValue(0)

    /// - Parameters:
    ///   - frames: frames to feed (`nil`: until released), then stdin is closed.
    ///   - activatedPort: syncscan runs under `systemd-socket-activate -l 127.0.0.1:PORT`, started
    ///     by a first request to that port.
    ///   - scene: the 640x480 frame fed every time; `nil`: a QR code of `payload` at (240, 220).
    ///   - suppressingDuplicates: the default duplicate window (a code in view is one line);
    ///     false: `--duplicate-window 0` (a line for every frame's code).
    ///   - inFlight: at most this many frames fed and not yet answered by a code line (the
    ///     feeder waits for the line, `hangTimeout` at most): a slow scanner, not the pacing,
    ///     sets the rate, so frames never pile up past the session's queue; `nil`: 10 frames/s.
    init(_ arguments: [String] = [], frames: Int? = nil, activatedPort: Int? = nil, scene: GreyFrame? = nil,
         suppressingDuplicates: Bool = false, inFlight: Int? = nil) throws {
        var frame = GreyFrame(width: 640, height: 480, background: 200)
        frame.draw(try ModuleMatrix.qrCode(Array(Self.payload.utf8)), centerX: 240, centerY: 220, moduleSize: 6)
        if let scene { frame = scene }
        let stream = Y4MStream(width: 640, height: 480)
        daemon = try RunningDaemon(["run", "--source", "y4m:-", "--http", "127.0.0.1:0"]
                                       + (suppressingDuplicates ? [] : ["--duplicate-window", "0"]) + arguments,
                                   launcher: activatedPort.map { ["systemd-socket-activate", "-l", "127.0.0.1:\($0)"] } ?? [])
        daemon.feed(stream.header)
        let (daemon, stop, fed, bytes) = (self.daemon, self.stop, self.fed, stream.frame(frame))
        Thread {
            while !stop.withLock({ $0 }) && fed.withLock({ $0 }) < (frames ?? .max) {
                if let inFlight {
                    let sent = fed.withLock { $0 }, deadline = ContinuousClock.now + hangTimeout
                    while ContinuousClock.now < deadline && !stop.withLock({ $0 }) && daemon.process.isRunning
                            && daemon.stdoutLines.count { ($0?["type"] as? String) == "code" } < sent - inFlight + 1 {
                        stop.withLock(when: { $0 }, deadline: .now + .milliseconds(20)) { _, _ in }
                    }
                }
                guard daemon.feed(bytes) else { break }
                fed.withLock { $0 += 1 }
                // Paced at 10 frames/s: a timed wait on the stop flag.
                stop.withLock(when: { $0 }, deadline: .now + .milliseconds(100)) { _, _ in }
            }
            daemon.closeStdin()
        }.start()
        let deadline = ContinuousClock.now + hangTimeout
        // The first request starts syncscan, once the launcher listens (a refused connect is retried).
        while let activatedPort, ContinuousClock.now < deadline, daemon.process.isRunning,
              (try? HTTPTestConnection.request("/status", port: activatedPort)) == nil {
            stop.withLock(when: { $0 }, deadline: .now + .milliseconds(50)) { _, _ in }
        }
        var found: Int?
        while found == nil && ContinuousClock.now < deadline && daemon.process.isRunning {
            if let range = daemon.stderr.range(of: "url=http://127.0.0.1:") ?? daemon.stderr.range(of: "url=https://127.0.0.1:") {
                found = Int(daemon.stderr[range.upperBound...].prefix { $0.isNumber })
            } else {
                stop.withLock(when: { $0 }, deadline: .now + .milliseconds(50)) { _, _ in }
            }
        }
        guard let found else {
            // Killed, so the feeding thread's write fails and it lets go of the daemon.
            stop.withLock { $0 = true }
            daemon.send(SIGKILL)
            throw HarnessError("no live view URL in stderr: \(daemon.stderr)")
        }
        port = found
    }

    var framesFed: Int { fed.withLock { $0 } }

    /// The port of the `count`-th "live view serving" line (a reload that restarts the server logs
    /// another), waiting for it (at most `hangTimeout`).
    func port(ofServing count: Int) -> Int? {
        let deadline = ContinuousClock.now + hangTimeout
        while ContinuousClock.now < deadline {
            let lines = daemon.stderr.replacingOccurrences(of: "url=https://", with: "url=http://")
                .components(separatedBy: "url=http://127.0.0.1:").dropFirst()
            if lines.count >= count { return Int(lines[lines.startIndex + count - 1].prefix { $0.isNumber }) }
            stop.withLock(when: { _ in false }, deadline: .now + .milliseconds(50)) { _, _ in }
        }
        return nil
    }

    func get(_ path: String, method: String = "GET", headers: [String] = []) throws -> HTTPReply {
        try HTTPTestConnection.request(path, port: port, method: method, headers: headers)
    }

    /// `/snapshot.jpg` as a client that honours `503` with `Retry-After` gets it.
    func snapshot() throws -> HTTPReply { try snapshotReply(port: port) }

    /// Stops feeding, closes stdin and waits for the exit status.
    func finish() -> Int32 {
        stop.withLock { $0 = true }
        stop.broadcast()
        return daemon.wait()
    }

    deinit { if daemon.process.isRunning { _ = finish() } }
}

@Suite(.offThePool) struct LiveViewRunTests {
    @Test func everyEndpointAnswers() throws {
        let live = try LiveViewDaemon()
        let page = try live.get("/")
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.text.contains("stream.mjpeg") && page.text.contains("EventSource(\"events\")"))
        for fetch in ["src=\"http", "href=\"http", "src=\"//", "href=\"//", "fetch(\"http", "EventSource(\"http", "url(http", "@import"] {
            #expect(!page.text.contains(fetch), "the page fetches nothing from elsewhere: \(fetch)")
        }

        let status = try live.get("/status")
        #expect(status.status == 200 && status.headers["content-type"] == "application/json")
        let json = try JSONSerialization.jsonObject(with: Data(status.body)) as? [String: Any]
        #expect(json?["source"] as? String == "y4m:-")
        #expect(["scanning", "opening"].contains(json?["state"] as? String ?? ""), "\(status.text)")
        #expect((json?["counters"] as? [String: Any])?["frames"] is Int)

        let metrics = try live.get("/metrics")
        #expect(metrics.status == 200 && metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains("syncscan_frames_total{source=\"y4m:-\",outcome=\"scanned\"}"), "\(metrics.text.prefix(500))")
        #expect(metrics.text.contains("syncscan_live_view_viewers{source=\"y4m:-\"}"))

        let snapshot = try live.snapshot()
        #expect(snapshot.status == 200 && snapshot.headers["content-type"] == "image/jpeg")
        #expect(snapshot.body.starts(with: [0xFF, 0xD8]) && snapshot.body.suffix(2) == [0xFF, 0xD9])

        #expect(try live.get("/nothing-here").status == 404)
        let post = try live.get("/status", method: "POST")
        #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD")
        #expect(try live.get("/", method: "DELETE").status == 405)
        let head = try live.get("/status", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(live.finish() == 0, "\(live.daemon.stderr)")
    }

    @Test func eventsCarryTheStdoutLinesAndTheStatus() throws {
        let live = try LiveViewDaemon()
        let connection = try HTTPTestConnection(port: live.port)
        connection.send(Array("GET /events HTTP/1.0\r\n\r\n".utf8))  // 1.0: the body as sent, not chunked
        let bytes = connection.receive { received in
            let text = String(decoding: received, as: UTF8.self)
            return text.contains("event: status\ndata: ") && text.contains("\ndata: {\"type\":\"code\"")
        }
        let reply = try #require(HTTPReply(bytes))
        #expect(reply.status == 200 && reply.headers["content-type"] == "text/event-stream")
        #expect(live.finish() == 0)
        let text = String(decoding: bytes, as: UTF8.self)
        let codeLine = try #require(text.components(separatedBy: "\ndata: ").dropFirst().first { $0.hasPrefix("{\"type\":\"code\"") }?
            .components(separatedBy: "\n").first, "\(text)")
        let event = try #require(try JSONSerialization.jsonObject(with: Data(codeLine.utf8)) as? [String: Any])
        let seq = (event["frame"] as? [String: Any])?["seq"] as? Int
        // The same line as stdout's for that frame, but for the time it was written.
        let stdoutLine = try #require(live.daemon.stdoutLines.compactMap { $0 }.first { ($0["frame"] as? [String: Any])?["seq"] as? Int == seq })
        #expect(event["text"] as? String == LiveViewDaemon.payload)
        for key in ["type", "symbology", "engine", "pass", "text", "data_b64", "orientation", "source"] {
            #expect("\(event[key] ?? "-")" == "\(stdoutLine[key] ?? "+")", "\(key)")
        }
        #expect((event["corners"] as? NSArray)?.isEqual(stdoutLine["corners"]) == true)
        #expect((event["frame"] as? NSDictionary)?.isEqual(stdoutLine["frame"]) == true)
    }

    /// `/status` carries the frame rates (sampled every second) and the source's mode: a Y4M
    /// stream's from its header (`Y4MStream`: 640x480 mono at 10:1).
    @Test func theStatusCarriesTheRatesAndTheMode() throws {
        let live = try LiveViewDaemon()
        var status: [String: Any] = [:]
        let rated = waitUntil(every: .milliseconds(200)) {
            let reply = try? live.get("/status")
            status = reply.flatMap { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] } ?? [:]
            // Rates over the last 2 s: a stopped machine's window may hold no frame; wait for one that does.
            let rates = status["rates"] as? [String: Any]
            return (rates?["frames_per_second"] as? Double ?? 0) > 0 && (rates?["scanned_per_second"] as? Double ?? 0) > 0
        }
        #expect(rated, "rates in /status: \(status)")
        let mode = status["mode"] as? [String: Any]
        #expect(mode?["width"] as? Int == 640 && mode?["height"] as? Int == 480 && mode?["format"] as? String == "GREY", "\(status)")
        #expect(mode?["fps"] as? Double == 10 && mode?["origin"] as? String == "file", "\(status)")
        let rates = status["rates"] as? [String: Any]
        let (frames, scanned) = (rates?["frames_per_second"] as? Double, rates?["scanned_per_second"] as? Double)
        #expect(frames.map { $0 > 0 } == true && scanned.map { $0 > 0 && $0 <= frames! } == true, "\(status)")
        #expect(live.finish() == 0)
    }

    @Test func theMJPEGStreamSendsJPEGParts() throws {
        let live = try LiveViewDaemon()
        let connection = try HTTPTestConnection(port: live.port)
        connection.send(Array("GET /stream.mjpeg HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let bytes = connection.receive { String(decoding: $0, as: UTF8.self).components(separatedBy: "--syncscanframe\r\n").count > 2 }
        let reply = try #require(HTTPReply(bytes))
        #expect(reply.headers["content-type"] == "multipart/x-mixed-replace; boundary=syncscanframe")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("Content-Type: image/jpeg\r\nContent-Length: "))
        // 640 wide by default: the frame keeps its size; the JPEG's SOF0 marker holds it.
        let sof = try #require((0..<(bytes.count - 9)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        #expect(Int(bytes[sof + 7]) << 8 | Int(bytes[sof + 8]) == 640)
        #expect(live.finish() == 0)
    }

    @Test func thePreviewIsScaledToPreviewWidth() throws {
        let config = try TemporaryFile(contents: Array("http:\n  preview_width: 320\n  preview_fps: 2\n".utf8), suffix: ".yaml")
        let live = try LiveViewDaemon(["--config", config.path])
        let jpeg = try live.snapshot().body
        let sof = try #require((0..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        #expect(Int(jpeg[sof + 5]) << 8 | Int(jpeg[sof + 6]) == 240, "height")
        #expect(Int(jpeg[sof + 7]) << 8 | Int(jpeg[sof + 8]) == 320, "width")
        #expect(live.finish() == 0)
    }

    /// SIGHUP applies `http.*` to the preview and restarts the server alone: the scan session goes on.
    @Test func aReloadAppliesHTTPSettingsWithoutLosingTheScanSession() throws {
        let config = try TemporaryFile(contents: Array("http:\n  preview_width: 320\n".utf8), suffix: ".yaml")
        // The frame ledger: every fed frame once, scanned or dropped (a busy machine drops some).
        let live = try LiveViewDaemon(["--config", config.path, "--emit-frames"])
        let width = { (port: Int) throws -> Int in
            let jpeg = try snapshotReply(port: port).body
            let sof = try #require((0..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
            return Int(jpeg[sof + 7]) << 8 | Int(jpeg[sof + 8])
        }
        #expect(try width(live.port) == 320)
        try Array("http:\n  preview_width: 160\n  max_connections: 4\n".utf8).withUnsafeBytes {
            try Data($0).write(to: URL(fileURLWithPath: config.path))
        }
        let fedBefore = live.framesFed
        live.daemon.send(SIGHUP)
        let port = try #require(live.port(ofServing: 2), "a second server after the reload: \(live.daemon.stderr)")
        // A picture encoded at the old width just before the reload may still be the newest for a
        // moment on a busy machine: the new width shows from the next picture on.
        #expect(waitUntil { (try? width(port)) == 160 }, "the preview at the reloaded width")
        #expect(live.finish() == 0)
        let stderr = live.daemon.stderr
        #expect(stderr.contains("reloaded configuration applied in place"), "\(stderr)")
        #expect(!stderr.contains("restarting capture"))
        let records = live.daemon.stdoutLines.compactMap { $0 }
        let frameSeqs = records.filter { $0["type"] as? String == "frame" }.compactMap { $0["seq"] as? Int }
        #expect(frameSeqs == Array(0..<live.framesFed), "one session's numbering, unbroken, every fed frame once")
        let codeSeqs = records.filter { $0["type"] as? String == "code" }.compactMap { ($0["frame"] as? [String: Any])?["seq"] as? Int }
        #expect(codeSeqs.contains { $0 >= fedBefore }, "codes after the reload")
        #expect(stderr.contains("summary: frames=\(live.framesFed) "), "\(stderr)")
    }

    /// A socket systemd passed (LISTEN_FDS, here from systemd-socket-activate) is served instead
    /// of binding, and kept across a reload that restarts the server.
    @Test func aSocketFromSystemdIsServedAndKeptAcrossAReload() throws {
        let port = try MosquittoBroker.freePort()  // the fixtures' one free-port helper
        let config = try TemporaryFile(contents: Array("http:\n  max_connections: 8\n".utf8), suffix: ".yaml")
        let live = try LiveViewDaemon(["--config", config.path], activatedPort: port)
        #expect(live.daemon.stderr.contains("socket=\"inherited 3\"") || live.daemon.stderr.contains("socket=inherited 3"), "\(live.daemon.stderr)")
        #expect(try HTTPTestConnection.request("/status", port: port).status == 200)
        try Array("http:\n  max_connections: 4\n".utf8).withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: config.path)) }
        live.daemon.send(SIGHUP)
        #expect(live.port(ofServing: 2) != nil, "the server restarted: \(live.daemon.stderr)")
        #expect(try HTTPTestConnection.request("/status", port: port).status == 200, "the same socket after the restart")
        #expect(live.finish() == 0, "\(live.daemon.stderr)")
    }

    /// `http.tls_cert_file` and `http.tls_key_file`: HTTPS, and a reload serves a renewed certificate.
    @Test func httpsIsServedAndAReloadReadsARenewedCertificate() throws {
        let (first, renewed) = (try SelfSignedCertificate(), try SelfSignedCertificate())
        let directory = try TemporaryDirectory()
        let (key, certificate) = (directory.path + "/key.pem", directory.path + "/cert.pem")
        try FileManager.default.copyItem(atPath: first.keyPath, toPath: key)
        try FileManager.default.copyItem(atPath: first.certificatePath, toPath: certificate)
        let config = try TemporaryFile(contents: Array("http:\n  tls_cert_file: \(certificate)\n  tls_key_file: \(key)\n".utf8), suffix: ".yaml")
        let live = try LiveViewDaemon(["--config", config.path])
        #expect(live.daemon.stderr.contains("url=https://127.0.0.1:\(live.port)/"), "\(live.daemon.stderr)")
        let status = try first.fetch("https://127.0.0.1:\(live.port)/status")
        #expect(status.body?.contains("\"source\":\"y4m:-\"") == true, "\(status.result.describe())")
        let page = try first.fetch("https://127.0.0.1:\(live.port)/")
        #expect(page.body?.contains("stream.mjpeg") == true)
        for (from, to) in [(renewed.keyPath, key), (renewed.certificatePath, certificate)] {
            try FileManager.default.removeItem(atPath: to)
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
        live.daemon.send(SIGHUP)
        let port = try #require(live.port(ofServing: 2), "a second server after the reload: \(live.daemon.stderr)")
        #expect(try renewed.fetch("https://127.0.0.1:\(port)/status").body != nil, "the renewed certificate is served")
        #expect(try first.fetch("https://127.0.0.1:\(port)/status").result.status == 60, "the old one no longer")
        #expect(live.finish() == 0, "\(live.daemon.stderr)")
    }

    @Test func anUnreadableKeyIsAnErrorNamingTheKeyAndTheFile() throws {
        let certificate = try SelfSignedCertificate()
        let config = try TemporaryFile(contents: Array("http:\n  listen: 127.0.0.1:0\n  tls_cert_file: \(certificate.certificatePath)\n  tls_key_file: /nonexistent/key.pem\n".utf8),
                                       suffix: ".yaml")
        let run = try SyncscanProcess.run(["run", "--config", config.path, "--source", "y4m:/dev/null"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("http.tls_key_file /nonexistent/key.pem cannot be read"), "\(run.stderr)")
    }

    @Test func basicAuthIsRefusedWithoutThePasswordAndAcceptedWithIt() throws {
        let password = try TemporaryFile(contents: Array("s3cret\n".utf8), suffix: ".pw")
        let config = try TemporaryFile(contents: Array("http:\n  password_file: \(password.path)\n".utf8), suffix: ".yaml")
        let live = try LiveViewDaemon(["--config", config.path])
        for path in ["/", "/status", "/metrics", "/nothing-here"] {
            let refused = try live.get(path)
            #expect(refused.status == 401, "\(path)")
            #expect(refused.headers["www-authenticate"]?.hasPrefix("Basic realm=\"syncscan\"") == true)
        }
        #expect(try live.get("/status", headers: ["Authorization: Basic dmlld2VyOndyb25n"]).status == 401, "viewer:wrong")
        #expect(try live.get("/status", headers: ["Authorization: Basic dmlld2VyOnMzY3JldA=="]).status == 200, "viewer:s3cret")
        #expect(live.finish() == 0)
    }

    /// 100 connections from one address (127.0.0.2) that each send half a request and wait: past
    /// `http.max_connections_per_address` they are closed at once, `/metrics` from another address
    /// still answers while they are held, and the server closes every one of them (the request timeout).
    @Test func metricsAnswerWhile100HalfSentRequestsAreHeld() throws {
        let live = try LiveViewDaemon()
        let held = try (0..<100).map { _ in
            let connection = try HTTPTestConnection(port: live.port, from: "127.0.0.2")
            connection.send(Array("GET /status HTTP/1.1\r\nHost: x\r\nX-Half: ".utf8))
            return connection
        }
        let metrics = try live.get("/metrics")
        #expect(metrics.status == 200 && metrics.text.contains("syncscan_frames_total{"), "\(metrics.text.prefix(300))")
        #expect(try live.get("/status").status == 200)
        #expect(waitUntil(every: .milliseconds(50)) { held.allSatisfy(\.isClosedByServer) },
                "every half-sent request closed by the server: \(held.filter(\.isClosedByServer).count) of 100")
        #expect(held.allSatisfy { $0.receive().isEmpty }, "closed without an answer")
        #expect(live.finish() == 0, "\(live.daemon.stderr)")
    }

    /// An events viewer that never reads while a code line comes with every frame: every frame is
    /// still scanned and every line written to stdout, nothing dropped, and the daemon still answers.
    @Test func aViewerThatNeverReadsCostsThePipelineNothing() throws {
        let frames = 150
        // Frames queue rather than drop while the scanners are busy, and at most two are fed ahead
        // of the code lines (a loaded machine's slow scans once filled the queue: one frame
        // `outOfBuffers` under ASan with both cores busy), so a pipeline held up by a viewer shows
        // as lines that stop coming: frames not fed, not scanned or lines not written.
        let live = try LiveViewDaemon(["--no-discard-late"], frames: frames, inFlight: 2)
        let stalled = try HTTPTestConnection(port: live.port, receiveBuffer: 2048)
        stalled.send(Array("GET /events HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let pictures = try HTTPTestConnection(port: live.port, receiveBuffer: 2048)
        pictures.send(Array("GET /stream.mjpeg HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let deadline = ContinuousClock.now + hangTimeout
        while live.framesFed < frames && ContinuousClock.now < deadline {
            #expect(try live.get("/status").status == 200)
        }
        #expect(live.daemon.wait() == 0, "\(live.daemon.stderr)")
        let codes = live.daemon.stdoutLines.compactMap { $0 }.filter { $0["type"] as? String == "code" }
        #expect(codes.count == frames, "\(live.daemon.stderr)")
        #expect(live.daemon.stderr.contains("frames=\(frames) scanned=\(frames) dropped=0"), "\(live.daemon.stderr)")
        #expect(live.daemon.stderr.contains("output_lines_dropped=0"))
    }
}

/// A real browser (headless Chromium) loads the page while syncscan scans a live pipe: the code's
/// text is in the page's DOM and its outline is drawn on the picture at the code's corners.
@Suite(.offThePool) struct LiveViewBrowserTests {
    /// `chromium --headless=new` started on `url` with `arguments` (its stdout to a file): one page, one window of 1200x700.
    private func startChromium(_ arguments: [String], url: String) throws -> (browser: ChildProcess, stdout: TemporaryFile) {
        let out = try TemporaryFile(contents: [], suffix: ".out")
        let browser = try ChildProcess(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                        "--window-size=1200,700"] + arguments + [url], stdout: .file(out.path))
        return (browser, out)
    }

    /// Waits up to `limit` for a browser from `startChromium` to exit (0 expected); its stdout, or
    /// `nil` when it had not finished and was killed: a browser stopped and continued (a loaded
    /// or suspended machine) can wedge, and the callers then open the page again.
    private func finished(_ started: (browser: ChildProcess, stdout: TemporaryFile), _ arguments: [String],
                          limit: Duration = .seconds(120)) -> [UInt8]? {
        guard let status = started.browser.wait(timeout: limit).map(ChildProcess.exitStatus) else {
            started.browser.signal(SIGKILL); _ = started.browser.wait()
            return nil
        }
        #expect(status == 0, "chromium \(arguments): exit \(status)")
        return [UInt8](FileManager.default.contents(atPath: started.stdout.path) ?? Data())
    }

    /// Runs `chromium --headless=new` with `arguments` and `url`; its stdout (empty when it had to be killed).
    private func chromium(_ arguments: [String], url: String) throws -> [UInt8] {
        finished(try startChromium(arguments, url: url), arguments) ?? []
    }

    /// What a screenshot to `png` by a browser from `startChromium` misses (`misses`), once it
    /// finished; a browser killed or a screenshot not written is a miss too.
    private func screenshotMisses(_ started: (browser: ChildProcess, stdout: TemporaryFile), _ arguments: [String], png: String,
                                  _ misses: (String) throws -> [String]) throws -> [String] {
        guard finished(started, arguments) != nil else { return ["chromium \(arguments) had not finished: killed"] }
        guard FileManager.default.fileExists(atPath: png) else { return ["chromium \(arguments) wrote no screenshot"] }
        return try misses(png)
    }

    @Test func theCodesTextAndOutlineAppearInTheBrowser() throws {
        let live = try LiveViewDaemon()
        let url = "http://127.0.0.1:\(live.port)/"
        // The code's text in the recent codes list, frames/s scanned and captured, the mode. (The
        // outline and the text beside it are drawn once the picture is there, which a DOM dump
        // comes too early for: the screenshots show them.)
        let listed = "<td>\(LiveViewDaemon.payload)</td>"
        let mode = "<span id=\"mode\">640x480 GREY at 10 fps (the file's)</span>"
        let rate = /<span id="fps">[0-9]+\.[0-9]<\/span> frames\/s scanned of <span id="capture-fps">[0-9]+\.[0-9]<\/span> captured/
        var dom = ""
        try waitUntil(every: .milliseconds(100)) {
            dom = String(decoding: try chromium(["--timeout=4000", "--dump-dom"], url: url), as: UTF8.self)
            return dom.contains(listed) && dom.contains(mode) && dom.contains(rate)
        }
        #expect(dom.contains(listed), "the recent codes list: \(dom.suffix(1500))")
        #expect(dom.contains(mode) && dom.contains(rate), "the rates and the mode: \(dom.suffix(1500))")

        let directory = try ScreenshotDirectory()
        let png = directory.path("live-view.png")
        let corners = try #require(live.daemon.stdoutLines.compactMap { $0 }.first { $0["type"] as? String == "code" }?["corners"] as? [[Int]])
        // Chromium picks the moment of its screenshot (counted from its own start, so on a loaded
        // machine it can come before the first picture or code reached the page): screenshots
        // until one shows the outline (the event; only a hang reaches the deadline), each checked
        // in full; the last one's misses are reported.
        var missing: [String] = []
        try waitUntil(every: .milliseconds(100)) {
            try? FileManager.default.removeItem(atPath: png)
            _ = try chromium(["--timeout=4000", "--screenshot=\(png)"], url: url)
            guard FileManager.default.fileExists(atPath: png) else { missing = ["no screenshot written"]; return false }
            let shot = try Screenshot(png: png, directory: directory)
            missing = shot.misses(.read, around: corners.map { (Double($0[0]), Double($0[1])) })
            // Away from the outline the picture is not green: the check sees the overlay, not the scene.
            if shot.has(.read, nearFramePixel: (600, 460), within: 0) { missing.append("green away from the outline") }
            return missing.isEmpty
        }
        #expect(missing.isEmpty, "\(missing)")
        #expect(live.finish() == 0)
        let kept = ProcessInfo.processInfo.environment["LIVE_VIEW_SCREENSHOT"]
        if let kept { try? FileManager.default.copyItem(atPath: png, toPath: kept) }
    }

    /// Aiming: a readable QR code and a damaged one (finder patterns intact, the data wiped past
    /// repair) held in view with duplicate suppression on, as by default, so the readable one is
    /// one line at the start and never again. A page opened while they are in view outlines the
    /// readable one in green and the damaged one in magenta on screenshots taken 1 s and 8 s after
    /// it opened; neither colour is on the other code, and the damaged one never becomes a line.
    @Test func codesHeldInViewStayOutlinedAndAnUndecodableOneInAnotherColour() throws {
        var scene = GreyFrame(width: 640, height: 480, background: 200)
        let readable = scene.draw(try ModuleMatrix.qrCode(Array(LiveViewDaemon.payload.utf8)), centerX: 150, centerY: 140, moduleSize: 6)
        let damagedPayload = "damaged beyond repair, finders intact"
        let damaged = scene.draw(try ModuleMatrix.qrCode(damagedPayload), centerX: 470, centerY: 330, moduleSize: 5)
        scene = scene.withDataRowsWiped(of: damaged)
        // Duplicate suppression on, with a window longer than the test: a stopped machine's gap in
        // frame time must not report the code again (one line, however long the test takes).
        let live = try LiveViewDaemon(["--duplicate-window", "3600"], scene: scene, suppressingDuplicates: true)
        let directory = try ScreenshotDirectory()
        let page = try directory.heldOpenPage(live: "http://127.0.0.1:\(live.port)")
        // The codes have been in view since the first frame, and the line was written then.
        #expect(waitUntil { live.daemon.stdoutLines.contains { $0?["type"] as? String == "code" } },
                "the readable code's line: \(live.daemon.stderr)")
        func corners(_ code: RenderedCode) -> [(Double, Double)] { code.corners.map { ($0.x, $0.y) } }
        func misses(_ png: String) throws -> [String] {
            let shot = try Screenshot(png: png, directory: directory)
            return shot.misses(.read, around: corners(readable)) + shot.misses(.undecoded, around: corners(damaged))
                + shot.strays(.read, around: corners(damaged)) + shot.strays(.undecoded, around: corners(readable))
        }
        // Both browsers open the page now; each screenshots at its --timeout.
        let (early, late) = (directory.path("1s.png"), directory.path("8s.png"))
        let earlyArguments = ["--timeout=1000", "--screenshot=\(early)"], lateArguments = ["--timeout=8000", "--screenshot=\(late)"]
        let lateBrowser = try startChromium(lateArguments, url: page)
        // LIVE_VIEW_SCREENSHOT=PREFIX keeps every screenshot checked, as PREFIX-NAME.png.
        let keep = { (png: String, name: String) in
            if let prefix = ProcessInfo.processInfo.environment["LIVE_VIEW_SCREENSHOT"] {
                try? FileManager.default.removeItem(atPath: prefix + "-" + name)
                try? FileManager.default.copyItem(atPath: png, toPath: prefix + "-" + name)
            }
        }
        // One second is short on a loaded or stopped machine (Chromium's own start counts in it):
        // pages opened while the codes are still in view, each checked in full, until one shows
        // both outlines (the event; only a hang reaches the deadline).
        var earlyMisses: [String] = [], attempt = 0
        try waitUntil(every: .milliseconds(100)) {
            attempt += 1
            try? FileManager.default.removeItem(atPath: early)
            earlyMisses = try screenshotMisses(try startChromium(earlyArguments, url: page), earlyArguments, png: early, misses)
            keep(early, "1s-try\(attempt).png")
            return earlyMisses.isEmpty
        }
        #expect(earlyMisses.isEmpty, "1 s after the page opened: \(earlyMisses)")
        var lateMisses = try screenshotMisses(lateBrowser, lateArguments, png: late, misses)
        keep(late, "8s.png")
        // The same for 8 s: an outline that fades while the codes are in view fails every page.
        try waitUntil(every: .milliseconds(100)) {
            guard !lateMisses.isEmpty else { return true }
            try? FileManager.default.removeItem(atPath: late)
            lateMisses = try screenshotMisses(try startChromium(lateArguments, url: page), lateArguments, png: late, misses)
            return lateMisses.isEmpty
        }
        #expect(lateMisses.isEmpty, "8 s after the page opened: \(lateMisses)")
        // Held in view for 10 s of the stream at least (100 frames at 10 frames/s), one line all along.
        #expect(waitUntil { live.framesFed >= 100 }, "100 frames fed: \(live.framesFed)")
        #expect(live.finish() == 0, "\(live.daemon.stderr)")
        let codes = live.daemon.stdoutLines.compactMap { $0 }.filter { $0["type"] as? String == "code" }
        #expect(codes.map { $0["text"] as? String } == [LiveViewDaemon.payload], "one line, the readable code's, never the damaged one")
    }
}

/// A temporary directory for a browser test's pages and screenshots, removed with the value.
private final class ScreenshotDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A page (its `file://` URL) showing the live view at `live` in a frame filling the window,
    /// with a hidden frame on its `/events`, a stream that never ends. Chromium takes `--screenshot`
    /// at the page's load or at `--timeout`, whichever comes first, and the live picture's first
    /// part fires load at once: held open by the hidden frame, the page is screenshot at the timeout.
    func heldOpenPage(live: String) throws -> String {
        let html = "<!doctype html><html><body style=\"margin:0\">"
            + "<iframe src=\"\(live)/\" style=\"border:0;display:block;width:1200px;height:700px\"></iframe>"
            + "<iframe src=\"\(live)/events\" style=\"display:none\"></iframe></body></html>"
        try Array(html.utf8).withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path("held-open.html"))) }
        return "file://" + path("held-open.html")
    }
}

/// A 1200x700 screenshot of the page, decoded through ffmpeg (RGB, 3 bytes each), read in frame
/// pixels: the picture sits at the page's 12-pixel padding, 640 pixels wide for a 640-wide frame,
/// so frame pixel (x, y) is at (12 + x, 12 + y).
private struct Screenshot {
    /// The page's outline colours.
    enum Outline: String {
        /// A code read: green (`#0f0`).
        case read = "green"
        /// A code detected but not decoded: magenta (`#f0f`).
        case undecoded = "magenta"

        func matches(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool {
            switch self {
            case .read: r < 90 && g > 200 && b < 90
            case .undecoded: r > 200 && g < 90 && b > 200
            }
        }
    }

    static let (width, height) = (1200, 700)
    let rgb: [UInt8]

    init(png: String, directory: ScreenshotDirectory) throws {
        let raw = directory.path("screenshot.rgb")
        let decoded = try ChildProcess(["ffmpeg", "-v", "error", "-y", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        #expect(decoded.wait(timeout: hangTimeout).map(ChildProcess.exitStatus) == 0)
        rgb = [UInt8](FileManager.default.contents(atPath: raw) ?? Data())
        try #require(rgb.count == Self.width * Self.height * 3, "\(png): \(rgb.count) bytes")
    }

    /// Whether `outline`'s colour is within `within` screen pixels of frame pixel `point`.
    func has(_ outline: Outline, nearFramePixel point: (Int, Int), within: Int = 6) -> Bool {
        let (x, y) = (12 + point.0, 12 + point.1)
        return (-within...within).contains { dy in
            (-within...within).contains { dx in
                guard (0..<Self.width).contains(x + dx), (0..<Self.height).contains(y + dy) else { return false }
                let i = ((y + dy) * Self.width + x + dx) * 3
                return outline.matches(rgb[i], rgb[i + 1], rgb[i + 2])
            }
        }
    }

    /// What is missing: `outline`'s colour near each of `corners` (frame pixels).
    func misses(_ outline: Outline, around corners: [(Double, Double)]) -> [String] {
        corners.compactMap { corner in
            has(outline, nearFramePixel: (Int(corner.0.rounded()), Int(corner.1.rounded()))) ? nil
                : "no outline \(outline.rawValue) near the corner \(corner)"
        }
    }

    /// What is wrong: `outline`'s colour near any of `corners` (another code's).
    func strays(_ outline: Outline, around corners: [(Double, Double)]) -> [String] {
        corners.compactMap { corner in
            has(outline, nearFramePixel: (Int(corner.0.rounded()), Int(corner.1.rounded()))) ? "\(outline.rawValue) near the corner \(corner)" : nil
        }
    }
}

/// `/snapshot.jpg` as a client that honours `503` with `Retry-After` gets it: asked again each
/// second until a picture comes. The server waits 2 s for a fresh picture before its 503; under
/// ASan, with the whole suite running beside it, the first preview took longer (two tests got
/// the 503). The deadline is a hang's.
private func snapshotReply(port: Int) throws -> HTTPReply {
    var reply = try HTTPTestConnection.request("/snapshot.jpg", port: port)
    waitUntil(every: .seconds(1)) {
        guard reply.status == 503, let next = try? HTTPTestConnection.request("/snapshot.jpg", port: port) else { return true }
        reply = next
        return reply.status != 503
    }
    return reply
}
