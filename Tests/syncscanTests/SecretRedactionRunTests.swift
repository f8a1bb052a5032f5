import Foundation
import SystemCalls
import TestSupport
import Testing

/// Secrets in a source URL that the old redaction showed — a password in the query string, a
/// password holding raw `/`, `#`, `?` — in none of a real run's outputs: stdout, stderr, `/status`,
/// `/metrics`, MQTT topics and messages, `check-config`; a flag holding one is warned about.
@Suite(.offThePool) struct SecretRedactionRunTests {
    /// What no output may hold: the query's secret and every piece of the raw password.
    static let secretParts = ["Qsecret42", "Rs/ec", "ec#re", "re?t9"]

    static func expectNoSecret(in outputs: [(name: String, text: String)]) {
        for (name, text) in outputs {
            for part in secretParts { #expect(!text.contains(part), "\(part) in \(name): \(text.prefix(2000))") }
        }
    }

    /// `check-config` of a file whose source is `source`: its stdout and stderr.
    static func checkConfig(source: String) throws -> String {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-secret-\(UUID().uuidString).yaml").path
        try "source: \"\(source)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try SyncscanProcess.run(["check-config", config])
        return String(decoding: run.stdout, as: UTF8.self) + run.stderr
    }

    /// A camera read with `?password=…&channel=1` in its URL: every code read, the query's secret in
    /// no output; the metrics' label and the MQTT topics name the source without its query.
    @Test func aQueryStringPasswordIsInNoOutputOfARun() throws {
        let server = try RTSPTestServer(frames: try RTSPRunTests.frames())
        let source = server.url(path: "test?password=Qsecret42&channel=1")
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker, topic: "#")
        let daemon = try RunningDaemon(["run", "--source", source, "--engine", "zbar", "--duplicate-window", "0",
                                        "--http", "127.0.0.1:0", "--mqtt-url", broker.url],
                                       environment: ["SYNCSCAN_STATS_INTERVAL_SECONDS": "1"])
        defer { if daemon.process.isRunning { daemon.send(SIGKILL) } }
        let read = { Set(daemon.records("code").compactMap { $0["text"] as? String }) }
        #expect(waitUntil { read() == Set(RTSPRunTests.codes) || !daemon.process.isRunning }, "every code: \(daemon.stderr)")
        let port = try RTSPRunTests.httpPort(daemon)
        let status = try HTTPTestConnection.request("/status", port: port).text
        let metrics = try HTTPTestConnection.request("/metrics", port: port).text
        let shown = "rtsp://127.0.0.1:\(server.port)/test?password=***&channel=1"
        #expect(status.contains(shown), "\(status)")
        #expect(metrics.contains("syncscan_frames_total{source=\"rtsp://127.0.0.1:\(server.port)/test\",outcome=\"scanned\"}"),
                "\(metrics.prefix(1000))")
        subscriber.wait { messages in messages.contains { $0.topic.hasSuffix("/stats") } || !daemon.process.isRunning }
        daemon.send(SIGTERM)
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        #expect(daemon.records("code").allSatisfy { $0["source"] as? String == shown })
        let messages = subscriber.wait { messages in messages.contains { $0.topic.hasSuffix("/status") && $0.payload == "offline" } }
        #expect(messages.contains { $0.topic.hasSuffix("/test/codes") }, "the topics name the source test: \(messages.map(\.topic))")
        #expect(daemon.stderr.contains("warning: --source \(shown) holds a password or token"), "\(daemon.stderr)")
        Self.expectNoSecret(in: [("stdout", RTSPRunTests.stdoutText(daemon)), ("stderr", daemon.stderr), ("/status", status),
                                 ("/metrics", metrics), ("MQTT", messages.map { "\($0.topic) \($0.payload)" }.joined(separator: "\n")),
                                 ("check-config", try Self.checkConfig(source: source))])
    }

    /// A password holding raw `/`, `#` and `?` (which GStreamer cannot parse as one): the run ends
    /// with an error naming the source as `viewer:***@`, and neither it nor `check-config` shows any of it.
    @Test func aPasswordWithRawDelimitersIsInNoOutput() throws {
        let port = try MosquittoBroker.freePort()
        let source = "rtsp://viewer:Rs/ec#re?t9@127.0.0.1:\(port)/test"
        let run = try SyncscanProcess.run(["run", "--source", source, "--max-frames", "1"])
        #expect(run.status != 0, "\(run.stderr)")
        #expect(run.stderr.contains("rtsp://viewer:***@127.0.0.1:\(port)/test"), "\(run.stderr)")
        let checked = try Self.checkConfig(source: source)
        #expect(checked.contains("rtsp://viewer:***@127.0.0.1:\(port)/test"), "\(checked)")
        Self.expectNoSecret(in: [("stdout", String(decoding: run.stdout, as: UTF8.self)), ("stderr", run.stderr), ("check-config", checked)])
    }

    /// `--mqtt-url` with credentials: refused (credentials go in mqtt.username and mqtt.password_file),
    /// the warning and the error showing `***@`, never the password.
    @Test func brokerCredentialsOnTheCommandLineAreWarnedAboutAndNeverShown() throws {
        let refused = try SyncscanProcess.run(["run", "--source", "y4m:-", "--mqtt-url", "mqtt://user:Rs/ec#re?t9@127.0.0.1:1883"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("warning: --mqtt-url mqtt://***@127.0.0.1:1883 holds credentials"), "\(refused.stderr)")
        #expect(refused.stderr.contains("mqtt.password_file"), "\(refused.stderr)")
        Self.expectNoSecret(in: [("stderr", refused.stderr), ("stdout", String(decoding: refused.stdout, as: UTF8.self))])
    }

    /// `--webhook-url` with a password and a token: a warning naming webhook.token_file, with both as `***`.
    @Test func webhookCredentialsOnTheCommandLineAreWarnedAboutAndNeverShown() throws {
        let run = try SyncscanProcess.run(["run", "--source", "/nonexistent/clip.y4m", "--max-frames", "1",
                                           "--webhook-url", "https://u:Rs/ec#re?t9@127.0.0.1:1/hook?token=Qsecret42"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("warning: --webhook-url https://***@127.0.0.1:1/hook?token=*** holds credentials")
                && run.stderr.contains("webhook.token_file"), "\(run.stderr)")
        Self.expectNoSecret(in: [("stderr", run.stderr), ("stdout", String(decoding: run.stdout, as: UTF8.self))])
    }
}
