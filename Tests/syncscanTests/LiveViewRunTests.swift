import Foundation
import SystemCalls
import TestSupport
import Testing

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
        connection.send(Array("GET /stream.mjpeg HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
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

    /// A reload applies `http.allowed_hosts` like the other `http.*` keys, by restarting the
    /// server: a name refused before it (421) is served after it, another still refused.
    @Test func aReloadAppliesAllowedHosts() throws {
        let config = try TemporaryFile(contents: Array("http:\n  max_connections: 8\n".utf8), suffix: ".yaml")
        let live = try LiveViewDaemon(["--config", config.path])
        #expect(try HTTPTestConnection.request("/status", port: live.port, host: "camera.example.com").status == 421)
        try Array("http:\n  max_connections: 8\n  allowed_hosts: [camera.example.com]\n".utf8).withUnsafeBytes {
            try Data($0).write(to: URL(fileURLWithPath: config.path))
        }
        live.daemon.send(SIGHUP)
        let port = try #require(live.port(ofServing: 2), "a second server after the reload: \(live.daemon.stderr)")
        #expect(try HTTPTestConnection.request("/status", port: port, host: "camera.example.com").status == 200)
        #expect(try HTTPTestConnection.request("/status", port: port, host: "evil.example").status == 421)
        #expect(live.finish() == 0, "\(live.daemon.stderr)")
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
            connection.send(Array("GET /status HTTP/1.1\r\nHost: localhost\r\nX-Half: ".utf8))
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
        stalled.send(Array("GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        let pictures = try HTTPTestConnection(port: live.port, receiveBuffer: 2048)
        pictures.send(Array("GET /stream.mjpeg HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
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
