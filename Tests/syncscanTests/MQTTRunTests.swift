import Foundation
import TestSupport
import Testing

/// Frames 320x240, each with one QR code ("mqtt-N", a new one every other frame).
private func codeFrames(_ count: Int) throws -> [GreyFrame] {
    try (0..<count).map { i in
        var f = GreyFrame(width: 320, height: 240)
        f.draw(try ModuleMatrix.qrCode("mqtt-\(i / 2)"), x: 40 + Double(i % 7) * 6, y: 40, moduleSize: 4)
        return f
    }
}

/// A JSON object's fields; `nil` when `text` is not one.
private func object(_ text: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
}

/// `syncscan run ARGS` reading a live pipe the test writes frames into; stdout and stderr in files (MQTT and webhook runs).
final class LiveSyncscan {
    let daemon: RunningDaemon

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        daemon = try RunningDaemon(["run", "--source", "-"] + arguments, environment: environment)
    }

    /// The stdout codes' frame sequence numbers.
    var stdoutSequences: [Int] { stdoutCodes.map { ($0["frame"] as? [String: Any])?["seq"] as? Int ?? -1 } }

    /// Writes the Y4M header for `frames`' size, then each frame `interval` seconds apart, calling `after(i)` after frame i.
    func feed(_ frames: [GreyFrame], interval: Double, after: (Int) throws -> Void = { _ in }) rethrows {
        let bytes = Y4MWriter.bytes(frames)
        let headerEnd = bytes.firstIndex(of: UInt8(ascii: "\n"))! + 1
        daemon.feed(Array(bytes[..<headerEnd]))
        let frameSize = (bytes.count - headerEnd) / frames.count
        for i in frames.indices {
            let start = headerEnd + i * frameSize
            daemon.feed(Array(bytes[start..<(start + frameSize)]))
            pause(.milliseconds(Int(interval * 1000)))
            try after(i)
        }
    }

    /// Writes the Y4M header (once), then `frames`, cycled, one every `interval`, until
    /// `condition` holds: an event, however slowly a loaded machine gets there. Whether it held.
    @discardableResult
    func feed(_ frames: [GreyFrame], every interval: Duration = .milliseconds(100), until condition: () throws -> Bool) rethrows -> Bool {
        let stream = Y4MStream(width: frames[0].width, height: frames[0].height)
        if !headerWritten { daemon.feed(stream.header); headerWritten = true }
        let bytes = frames.map(stream.frame)
        var failure: (any Error)?
        let held = daemon.feedFrames(bytes, every: interval) {
            do { return try condition() } catch { failure = error; return true }
        }
        if let failure { try { throw failure }() }
        return held
    }
    private var headerWritten = false

    func closeInputAndWait() -> Int32 {
        daemon.closeStdin()
        return daemon.wait()
    }

    var stdoutCodes: [[String: Any]] { daemon.stdoutLines.compactMap { $0 }.filter { $0["type"] as? String == "code" } }

    var stderr: String { daemon.stderr }
}

/// Polls the retained `topic` until it is `value` (at most `hangTimeout`); the last value seen.
private func retained(_ topic: String, becomes value: String, broker: MosquittoBroker) throws -> String? {
    var seen: String?
    try waitUntil(every: .milliseconds(100)) {
        seen = try MosquittoSubscriber.retained(on: topic, broker: broker)
        return seen == value
    }
    return seen
}

@Suite(.serialized, .offThePool) struct MQTTRunTests {
    @Test func everyCodeOfAFileReachesTheSubscriberAsItsLineWithAUniqueID() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker)
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try codeFrames(24)), suffix: ".y4m")
        let metrics = try TemporaryFile(contents: [], suffix: ".prom")
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--duplicate-window", "0", "--mqtt-url", broker.url,
                                           "--mqtt-topic-prefix", "syncscan/test/file", "--metrics-file", metrics.path])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        // The metrics file's MQTT counters and gauges equal the summary line's.
        let summary = try summaryCounts(run.stderr)
        let text = try PrometheusText(path: metrics.path)
        #expect(text.value("syncscan_mqtt_published_total") == summary["mqtt_published"] && summary["mqtt_published"] == 24)
        #expect(text.value("syncscan_mqtt_dropped_total") == summary["mqtt_dropped"])
        #expect(text.value("syncscan_mqtt_queued_messages") == summary["mqtt_queued"])
        #expect(text.value("syncscan_mqtt_spooled_messages") == summary["mqtt_spooled"])
        #expect(text.types["syncscan_mqtt_connected"] == "gauge")
        let lines = run.codes
        #expect(lines.count == 24, "one code per frame on stdout")
        let messages = subscriber.wait { $0.filter { $0.topic == "syncscan/test/file/codes" }.count >= lines.count }
        let codes = messages.filter { $0.topic == "syncscan/test/file/codes" }.compactMap { object($0.payload) }
        #expect(codes.count == lines.count, "every code once (no reconnect, so no repeats)")
        let ids = codes.compactMap { $0["id"] as? String }
        #expect(ids.count == codes.count && Set(ids).count == ids.count, "unique ids: \(ids)")
        for (line, code) in zip(lines, codes) {
            var message = code
            message["id"] = nil
            // The stdout object, field for field, but for the wall-clock time taken a moment apart.
            for key in Set(line.keys).union(message.keys) where key != "time" {
                // Compared as Foundation objects: a dictionary's description has no fixed key order.
                #expect((line[key] as? NSObject) == (message[key] as? NSObject), "field \(key): \(line[key] ?? "missing") vs \(message[key] ?? "missing")")
            }
            let seq = (line["frame"] as? [String: Any])?["seq"] as? Int ?? -1
            #expect((code["id"] as? String)?.hasSuffix("-\(seq)-0") == true, "id names the frame: \(code["id"] ?? "")")
        }
        // "online" is published once connected, unless the file already ended by then (a loaded
        // machine connects late): the status ends "offline" either way. (A live source's
        // "online" is retainedStatusGoesOnlineThenOfflineOnSIGTERM's.)
        let statuses = messages.filter { $0.topic == "syncscan/test/file/status" }.map(\.payload)
        #expect(statuses == ["online", "offline"] || statuses == ["offline"], "\(statuses)")
        #expect(try retained("syncscan/test/file/status", becomes: "offline", broker: broker) == "offline")
        #expect(run.stderr.contains("mqtt_published=24 mqtt_queued=0 mqtt_spooled=0 mqtt_dropped=0"), "stderr: \(run.stderr)")
        #expect(broker.log.contains(" disconnected.") && broker.closedWithoutDisconnect(clientPrefix: "syncscan-").isEmpty,
                "a clean DISCONNECT, no Will: \(broker.log)")
    }

    @Test func aBrokerDownForSecondsMidStreamStillGetsEveryCodeInOrder() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker)
        let daemon = try LiveSyncscan(["--duplicate-window", "0", "--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/live"])
        // Codes before, during and after the outage (events, waited for while frames are fed):
        // the subscriber has codes before the broker stops (the daemon is connected), the daemon
        // has logged the lost connection before it starts again, and the broker stays down for
        // 3 s at least, so the client's reconnect backs off.
        let frames = try codeFrames(50)
        #expect(daemon.feed(frames) { daemon.stdoutCodes.count >= 3 && subscriber.messages.contains { $0.topic.hasSuffix("/codes") } },
                "codes before the outage, published: \(broker.log.suffix(2000))")
        broker.stop()
        let stoppedAt = ContinuousClock.now, beforeOutage = daemon.stdoutCodes.count
        #expect(daemon.feed(frames) {
            daemon.stdoutCodes.count >= beforeOutage + 5 && ContinuousClock.now - stoppedAt >= .seconds(3)
                && daemon.stderr.contains("MQTT broker connection failed")
        }, "codes during the outage, and the daemon saw it: \(daemon.stderr.suffix(2000))")
        try broker.start()
        let afterOutage = daemon.stdoutCodes.count
        #expect(daemon.feed(frames) { daemon.stdoutCodes.count >= afterOutage + 3 && daemon.stderr.contains("MQTT broker connected") },
                "codes after the outage, connected again: \(daemon.stderr.suffix(2000))")
        #expect(daemon.closeInputAndWait() == 0, "stderr: \(daemon.stderr)")
        let lines = daemon.stdoutCodes
        let codes = subscriber.wait { messages in
            Set(messages.filter { $0.topic.hasSuffix("/codes") }.compactMap { object($0.payload)?["id"] as? String }).count >= lines.count
        }.filter { $0.topic == "syncscan/test/live/codes" }.compactMap { object($0.payload) }
        // At-least-once: a message the broker took but did not acknowledge before it stopped comes again; the id deduplicates.
        var firstSeen: [String] = [], sequences: [Int] = []
        for code in codes {
            guard let id = code["id"] as? String, !firstSeen.contains(id) else { continue }
            firstSeen.append(id)
            sequences.append((code["frame"] as? [String: Any])?["seq"] as? Int ?? -1)
        }
        let lineSequences = lines.map { ($0["frame"] as? [String: Any])?["seq"] as? Int ?? -2 }
        #expect(sequences == lineSequences, "every stdout code reached the subscriber, in order; the broker's log: \(broker.log.suffix(3000))")
        #expect(daemon.stderr.contains("MQTT broker connection failed"), "the outage is logged: \(daemon.stderr)")
        #expect(daemon.stderr.contains("MQTT broker connected"), "and the reconnect: \(daemon.stderr)")
        #expect(daemon.stderr.contains("mqtt_published=\(lines.count) mqtt_queued=0 mqtt_spooled=0 mqtt_dropped=0"), "stderr: \(daemon.stderr)")
    }

    @Test func retainedStatusGoesOnlineThenOfflineOnSIGTERM() throws {
        let broker = try MosquittoBroker()
        let daemon = try LiveSyncscan(["--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/term"])
        try daemon.feed(try codeFrames(3), interval: 0.05)
        #expect(try retained("syncscan/test/term/status", becomes: "online", broker: broker) == "online")
        daemon.daemon.send(SIGTERM)
        #expect(daemon.daemon.wait() == 0, "stderr: \(daemon.stderr)")
        #expect(try retained("syncscan/test/term/status", becomes: "offline", broker: broker) == "offline")
        #expect(broker.log.contains(" disconnected.") && broker.closedWithoutDisconnect(clientPrefix: "syncscan-").isEmpty,
                "a clean DISCONNECT: \(broker.log)")
    }

    @Test func theWillSaysOfflineWhenTheDaemonIsKilled() throws {
        let broker = try MosquittoBroker()
        let daemon = try LiveSyncscan(["--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/kill"])
        try daemon.feed(try codeFrames(3), interval: 0.05)
        #expect(try retained("syncscan/test/kill/status", becomes: "online", broker: broker) == "online")
        daemon.daemon.send(SIGKILL)
        #expect(daemon.daemon.wait() == 128 + SIGKILL, "ended by the signal")
        // Only the broker can have said it now: the Last Will.
        #expect(try retained("syncscan/test/kill/status", becomes: "offline", broker: broker) == "offline")
        #expect(broker.closedWithoutDisconnect(clientPrefix: "syncscan-").count == 1, "the connection ended without DISCONNECT: \(broker.log)")
    }

    @Test func aBrokerNobodyListensOnIsLoggedOnceRetriedAndStdoutIsComplete() throws {
        let refusing = try RefusingPort(), port = refusing.port
        let run = try LiveSyncscan(["--duplicate-window", "0", "--log-level", "debug", "--mqtt-url", "mqtt://127.0.0.1:\(port)"])
        let logged = try expectLoggedOnceAndRetried(run)
        #expect(logged.first?.contains("Connection refused") == true && logged.first?.contains("mqtt://127.0.0.1:\(port)") == true,
                "names the URL and the reason: \(logged)")
        #expect(logged.first?.contains("check that the broker runs and listens") == true, "says what to do: \(logged)")
    }

    /// The daemon stopped (SIGTERM) while the broker is down and started again, still during the
    /// outage: the codes of both runs reach the subscriber once the broker is back.
    @Test func aRestartDuringAnOutageLosesNothingSpooled() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker)
        let spool = try TemporaryDirectory()
        let arguments = ["--duplicate-window", "0", "--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/spool"]
        let environment = ["SYNCSCAN_MQTT_SPOOL_DIRECTORY": spool.path]
        let first = try LiveSyncscan(arguments, environment: environment)
        let frames = try codeFrames(40)
        // Each run's codes before and during the outage, or during and after it: events, waited
        // for while frames are fed.
        #expect(first.feed(Array(frames[0..<20])) { first.stdoutCodes.count >= 3 }, "first run: codes before the outage")
        broker.stop()
        let beforeOutage = first.stdoutCodes.count
        #expect(first.feed(Array(frames[0..<20])) { first.stdoutCodes.count >= beforeOutage + 3 }, "first run: codes during the outage")
        first.daemon.send(SIGTERM)
        #expect(first.daemon.wait() == 0, "stderr: \(first.stderr)")
        #expect(first.stderr.contains("MQTT codes the broker has not taken are spooled for the next run"), "stderr: \(first.stderr)")
        let second = try LiveSyncscan(arguments, environment: environment)
        #expect(second.feed(Array(frames[20..<40])) { second.stdoutCodes.count >= 3 }, "second run: codes during the outage")
        try broker.start()
        let beforeRestart = second.stdoutCodes.count
        // The reconnect is an event too: ended before it, the run would rightly spool its codes for
        // a third run (the drain at exit does not wait for an absent broker).
        #expect(second.feed(Array(frames[20..<40])) { second.stdoutCodes.count >= beforeRestart + 3 && second.stderr.contains("MQTT broker connected") },
                "second run: reconnected, and codes after it")
        func delivered(_ messages: [(topic: String, payload: String)]) -> Int {
            Set(messages.filter { $0.topic == "syncscan/test/spool/codes" }.compactMap { object($0.payload)?["id"] as? String }).count
        }
        // Every code of both runs so far taken by the broker while the input is still open, so the
        // exit's drain (5 s of the clock, which runs on while a loaded machine stops the process)
        // has nothing left to give up on.
        _ = subscriber.wait { delivered($0) >= first.stdoutCodes.count + second.stdoutCodes.count }
        #expect(second.closeInputAndWait() == 0, "stderr: \(second.stderr)")
        #expect(second.stderr.contains("MQTT codes spooled by an earlier run are delivered first"), "stderr: \(second.stderr)")
        let expected = first.stdoutCodes.count + second.stdoutCodes.count
        let codes = subscriber.wait { delivered($0) >= expected }.filter { $0.topic == "syncscan/test/spool/codes" }.compactMap { object($0.payload) }
        // Ids are "<run>-<seq>-<index>": the first run's codes, then the second's, each in frame order.
        var seen: [String] = []
        for id in codes.compactMap({ $0["id"] as? String }) where !seen.contains(id) { seen.append(id) }
        let runs = seen.map { String($0.split(separator: "-")[0]) }
        let sequences = seen.map { Int($0.split(separator: "-")[1]) ?? -1 }
        let firstRun = runs.first ?? ""
        #expect(Array(sequences.prefix(first.stdoutCodes.count)) == first.stdoutSequences,
                "the first run's codes first, in order: \(seen)")
        #expect(runs.prefix(first.stdoutCodes.count).allSatisfy { $0 == firstRun })
        #expect(Array(sequences.dropFirst(first.stdoutCodes.count)) == second.stdoutSequences, "then the second run's, in order: \(seen)")
        #expect(second.stderr.contains("mqtt_spooled=0 mqtt_dropped=0"), "stderr: \(second.stderr)")
    }

    /// A broker that refuses the credentials: one clear line naming the keys to check, retries, stdout complete, exit 0.
    @Test func badCredentialsAreLoggedOnceAndRetriedWhileStdoutGoesOn() throws {
        let broker = try MosquittoBroker(users: ["scanner": "right"])
        let wrong = try TemporaryFile(contents: Array("wrong\n".utf8), suffix: ".pw")
        let run = try LiveSyncscan(["--duplicate-window", "0", "--log-level", "debug", "--mqtt-url", broker.url],
                                   environment: ["SYNCSCAN_MQTT_USERNAME": "scanner", "SYNCSCAN_MQTT_PASSWORD_FILE": wrong.path])
        let logged = try expectLoggedOnceAndRetried(run)
        #expect(logged.first?.contains("not authorised") == true && logged.first?.contains("check mqtt.username and mqtt.password_file") == true,
                "names the refusal and what to check: \(logged)")
        // The right password: every code of a file published.
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try codeFrames(12)), suffix: ".y4m")
        let right = try TemporaryFile(contents: Array("right\n".utf8), suffix: ".pw")
        let good = try SyncscanProcess.run(["run", "--source", video.path, "--duplicate-window", "0", "--mqtt-url", broker.url],
                                           environment: ["SYNCSCAN_MQTT_USERNAME": "scanner", "SYNCSCAN_MQTT_PASSWORD_FILE": right.path])
        #expect(good.status == 0 && good.stderr.contains("mqtt_published=12 "), "stderr: \(good.stderr)")
    }

    /// `mqtts://` to a broker that does not speak TLS there: the handshake fails, one clear line, retries, stdout complete.
    @Test func aRefusedTLSHandshakeIsLoggedOnceAndRetried() throws {
        let broker = try MosquittoBroker()
        let run = try LiveSyncscan(["--duplicate-window", "0", "--log-level", "debug", "--mqtt-url", "mqtts://127.0.0.1:\(broker.port)"],
                                   environment: ["SYNCSCAN_MQTT_CA_FILE": "/etc/ssl/certs/ca-certificates.crt"])
        let logged = try expectLoggedOnceAndRetried(run)
        #expect(logged.first?.contains("TLS") == true && logged.first?.contains("check mqtt.ca_file") == true, "\(logged)")
    }
}

/// Feeds `run` code frames until its MQTT connection has failed, been logged and been retried
/// (events, however slowly a loaded machine gets there), then ends its input: exit 0, every code
/// on stdout, each one counted as undelivered (no spool is set), the failure an error line once.
/// The error lines.
private func expectLoggedOnceAndRetried(_ run: LiveSyncscan) throws -> [Substring] {
    #expect(run.feed(try codeFrames(12)) { run.stderr.contains("MQTT broker connection failed again") && run.stdoutCodes.count >= 3 },
            "it retried while codes went to stdout: \(run.stderr)")
    #expect(run.closeInputAndWait() == 0, "stderr: \(run.stderr)")
    let codes = run.stdoutCodes.count
    #expect(Int(try summaryCounts(run.stderr)["codes_emitted"] ?? -1) == codes, "every code on stdout")
    #expect(run.stderr.contains("mqtt_published=0 mqtt_queued=0 mqtt_spooled=0 mqtt_dropped=\(codes)"),
            "undelivered codes counted: \(run.stderr)")
    let logged = run.stderr.split(separator: "\n").filter { $0.contains(" error syncscan: ") && $0.contains("MQTT broker connection failed") }
    #expect(logged.count == 1, "once per kind: \(logged)")
    return logged
}
