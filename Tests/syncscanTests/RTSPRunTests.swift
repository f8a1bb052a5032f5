import Foundation
import SystemCalls
import TestSupport
import Testing

/// `syncscan run --source rtsp://…` against GStreamer's own RTSP server (`RTSPTestServer`) on a
/// free loopback port: the camera killed and restarted under the same process; a camera that
/// demands credentials; the password in no output.
@Suite(.offThePool) struct RTSPRunTests {
    static let codes = (0..<6).map { "frame-\($0)" }

    static func frames() throws -> [GreyFrame] { try codes.map { try GreyFrame.withQRCode($0).frame } }

    /// The live view's port, from the daemon's `url=http://127.0.0.1:PORT` log line.
    static func httpPort(_ daemon: RunningDaemon) throws -> Int {
        try #require(daemon.stderr.range(of: "url=http://127.0.0.1:").map { Int(daemon.stderr[$0.upperBound...].prefix { $0.isNumber }) } ?? nil)
    }

    /// Each `(name, text)` holds none of `passwords`.
    static func expectNoPassword(_ passwords: [String], in outputs: [(name: String, text: String)]) {
        for (name, text) in outputs {
            for password in passwords { #expect(!text.contains(password), "the password \(password) in \(name)") }
        }
    }

    /// The stdout lines as one text.
    static func stdoutText(_ daemon: RunningDaemon) -> String {
        daemon.stdoutPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
    }

    /// The seconds a `/status` body says the source has been gone (`waiting for SOURCE (gone N s)`), or nil.
    static func goneSeconds(_ status: String) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any],
              object["state"] as? String == "waiting", let line = object["status"] as? String,
              let gone = line.range(of: "(gone ") else { return nil }
        return Int(line[gone.upperBound...].prefix { $0.isNumber })
    }

    /// The camera killed, kept down until the daemon's `/status` has counted 5 s gone, then
    /// started again on the same port: the same process reopens it, the outage is one
    /// `discontinuity` in the ledger spanning it, every code is read again after it, and SIGTERM
    /// ends the run with 0.
    @Test func aCameraDownFiveSecondsIsReopenedBySameProcessAndThePasswordIsNeverShown() throws {
        let server = try RTSPTestServer(frames: try Self.frames())
        let source = server.url(credentials: "viewer:hunter2")
        let shown = "rtsp://viewer:***@127.0.0.1:\(server.port)/test"
        let daemon = try RunningDaemon(["run", "--source", source, "--engine", "zbar", "--duplicate-window", "0", "--emit-frames",
                                        "--http", "127.0.0.1:0"])
        defer { if daemon.process.isRunning { daemon.send(SIGKILL) } }
        let lines = { daemon.stdoutLines.compactMap { $0 } }
        /// The codes' texts in `lines` after the first discontinuity record (all of them with `afterGap` false).
        func texts(afterGap: Bool) -> Set<String> {
            var counting = !afterGap, seen = Set<String>()
            for line in lines() {
                if line["type"] as? String == "frame", line["dropped"] as? String == "discontinuity" { counting = true }
                if counting, line["type"] as? String == "code", let text = line["text"] as? String { seen.insert(text) }
            }
            return seen
        }

        #expect(waitUntil { texts(afterGap: false) == Set(Self.codes) || !daemon.process.isRunning }, "\(daemon.stderr)")
        let pid = daemon.pid
        let port = try Self.httpPort(daemon)
        server.kill()
        // The outage lasts until the daemon itself says the camera has been gone 5 s (an event).
        var statuses: [String] = []
        #expect(waitUntil(every: .milliseconds(100)) {
            statuses.append((try? HTTPTestConnection.request("/status", port: port).text) ?? "")
            return (Self.goneSeconds(statuses.last!) ?? 0) >= 5 || !daemon.process.isRunning
        }, "/status says waiting: \(statuses.suffix(3)) \(daemon.stderr)")
        #expect(statuses.last?.contains("waiting for \(shown) (gone ") == true, "\(statuses.last ?? "")")
        try server.start()  // same port
        #expect(daemon.waitForStderr("gstreamer input reopened"), "\(daemon.stderr)")
        #expect(waitUntil { texts(afterGap: true) == Set(Self.codes) || !daemon.process.isRunning }, "every code after the outage")
        #expect(daemon.process.isRunning && daemon.pid == pid, "the same process")
        let status = try HTTPTestConnection.request("/status", port: port)
        #expect(status.text.contains("\"state\":\"scanning\"") && status.text.contains(shown), "\(status.text)")

        daemon.send(SIGTERM)
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("discontinuity=1"), "the outage is one discontinuity: \(daemon.stderr)")
        #expect(daemon.stderr.components(separatedBy: "gstreamer input lost").count == 2, "the loss logged once")
        // The ledger: every sequence number once, in order; one discontinuity, between frames
        // whose pts are at least the outage apart (the stream's time continued by the wall clock).
        let frames = lines().filter { $0["type"] as? String == "frame" }
        let sequence = frames.compactMap { $0["seq"] as? Int }
        #expect(sequence == Array(0..<frames.count), "every sequence number once")
        let gaps = frames.indices.filter { frames[$0]["dropped"] as? String == "discontinuity" }
        #expect(gaps.count == 1, "one discontinuity: \(gaps)")
        if let gap = gaps.first, gap > 0, gap + 1 < frames.count,
           let before = frames[gap - 1]["pts"] as? Double, let after = frames[gap + 1]["pts"] as? Double {
            #expect(after - before >= 5, "pts across the outage: \(before) → \(after)")
        } else {
            Issue.record("frames on both sides of the discontinuity: \(gaps)")
        }
        let pts = frames.compactMap { $0["pts"] as? Double }
        #expect(zip(pts, pts.dropFirst()).allSatisfy { $0 < $1 }, "pts strictly increasing")
        Self.expectNoPassword(["hunter2"], in: [("stdout", Self.stdoutText(daemon)), ("stderr", daemon.stderr),
                                                ("/status", (statuses + [status.text]).joined(separator: "\n"))])
    }

    /// A camera that demands `viewer:hunter2`: a wrong password, a wrong path and a refused port
    /// each end `syncscan run` at start with one error line naming the source (the password as
    /// `***`), GStreamer's reason and what to check; the right password reads every code, and
    /// no password given is in the stdout, stderr, `/status` or MQTT messages of any run.
    @Test func wrongCredentialsAreAClearErrorAndRightOnesReadEveryCode() throws {
        let server = try RTSPTestServer(frames: try Self.frames(), credentials: "viewer:hunter2")
        let refusing = try RefusingPort(), refused = refusing.port
        let failures: [(url: String, shown: String, says: String)] = [
            (server.url(credentials: "viewer:letmein"), "rtsp://viewer:***@127.0.0.1:\(server.port)/test",
             "Unauthorized; the server refused the credentials: check the user name and password in the URI"),
            (server.url(credentials: "viewer:hunter2", path: "nothing"), "rtsp://viewer:***@127.0.0.1:\(server.port)/nothing",
             "Not found; the server has no stream at that path: check the path in the URI"),
            ("rtsp://viewer:hunter2@127.0.0.1:\(refused)/test", "rtsp://viewer:***@127.0.0.1:\(refused)/test",
             "cannot connect: check the address and port, and that the camera or server is up"),
        ]
        for (url, shown, says) in failures {
            // --max-frames: a run that wrongly plays the stream ends at once, rather than at the hang guard.
            let run = try SyncscanProcess.run(["run", "--source", url, "--max-frames", "1"])
            #expect(run.status == 1, "\(run.stderr)")
            let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("syncscan: error: ") }
            #expect(errors.count == 1 && errors.first?.contains("error: \(shown): ") == true && errors.first?.contains(says) == true,
                    "\(run.stderr)")
            Self.expectNoPassword(["hunter2", "letmein"], in: [("stdout", String(decoding: run.stdout, as: UTF8.self)), ("stderr", run.stderr)])
        }

        // The right password, with MQTT on (Home Assistant's discovery configs and the stats
        // too): every code read; no password in any output of the run, MQTT's messages and topics included.
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker, topic: "#")
        let daemon = try RunningDaemon(["run", "--source", server.url(credentials: "viewer:hunter2"), "--engine", "zbar",
                                        "--duplicate-window", "0", "--http", "127.0.0.1:0", "--mqtt-url", broker.url],
                                       environment: ["SYNCSCAN_MQTT_HOMEASSISTANT_DISCOVERY": "true", "SYNCSCAN_STATS_INTERVAL_SECONDS": "1"])
        defer { if daemon.process.isRunning { daemon.send(SIGKILL) } }
        let read = { Set(daemon.records("code").compactMap { $0["text"] as? String }) }
        #expect(waitUntil { read() == Set(Self.codes) || !daemon.process.isRunning }, "every code: \(daemon.stderr)")
        let status = try HTTPTestConnection.request("/status", port: try Self.httpPort(daemon))
        #expect(status.text.contains("rtsp://viewer:***@127.0.0.1:\(server.port)/test"), "\(status.text)")
        // Every kind of message there is before the end: discovery configs, status, stats, codes.
        let kinds = ["/config", "/status", "/stats", "/codes"]
        subscriber.wait { messages in kinds.allSatisfy { kind in messages.contains { $0.topic.hasSuffix(kind) } } || !daemon.process.isRunning }
        daemon.send(SIGTERM)
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        let stdoutCodes = daemon.records("code")
        #expect(stdoutCodes.allSatisfy { $0["source"] as? String == "rtsp://viewer:***@127.0.0.1:\(server.port)/test" })
        let messages = subscriber.wait { messages in
            messages.filter { $0.topic.hasSuffix("/codes") }.count >= stdoutCodes.count
                && messages.contains { $0.topic.hasSuffix("/status") && $0.payload == "offline" }
        }
        for kind in kinds { #expect(messages.contains { $0.topic.hasSuffix(kind) }, "a message on …\(kind)") }
        let mqttCodes = messages.filter { $0.topic.hasSuffix("/codes") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload.utf8)) as? [String: Any]
        }
        #expect(mqttCodes.count == stdoutCodes.count && mqttCodes.allSatisfy { $0["source"] as? String == "rtsp://viewer:***@127.0.0.1:\(server.port)/test" },
                "\(mqttCodes.count) codes over MQTT, \(stdoutCodes.count) on stdout")
        Self.expectNoPassword(["hunter2"], in: [("stdout", Self.stdoutText(daemon)), ("stderr", daemon.stderr), ("/status", status.text),
                                                ("MQTT", messages.map { "\($0.topic) \($0.payload)" }.joined(separator: "\n"))])
    }
}
