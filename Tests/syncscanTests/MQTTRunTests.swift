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

/// `syncscan run ARGS` reading a live pipe the test writes frames into; stdout and stderr in files.
private final class LiveSyncscan {
    let process = Process()
    let stdin = Pipe()
    let out: TemporaryFile
    let err: TemporaryFile

    init(_ arguments: [String]) throws {
        out = try TemporaryFile(contents: [], suffix: ".out")
        err = try TemporaryFile(contents: [], suffix: ".err")
        process.executableURL = URL(fileURLWithPath: SyncscanProcess.binary)
        process.arguments = ["run", "--source", "-"] + arguments
        process.standardInput = stdin
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out.path))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err.path))
        try process.run()
    }

    /// Writes the Y4M header for `frames`' size, then each frame `interval` seconds apart, calling `after(i)` after frame i.
    func feed(_ frames: [GreyFrame], interval: Double, after: (Int) throws -> Void = { _ in }) rethrows {
        let bytes = Y4MWriter.bytes(frames)
        let headerEnd = bytes.firstIndex(of: UInt8(ascii: "\n"))! + 1
        stdin.fileHandleForWriting.write(Data(bytes[..<headerEnd]))
        let frameSize = (bytes.count - headerEnd) / frames.count
        for i in frames.indices {
            let start = headerEnd + i * frameSize
            stdin.fileHandleForWriting.write(Data(bytes[start..<(start + frameSize)]))
            Thread.sleep(forTimeInterval: interval)
            try after(i)
        }
    }

    func closeInputAndWait() -> Int32 {
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    var stdoutCodes: [[String: Any]] {
        let text = (try? String(contentsOfFile: out.path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { object(String($0)) }.filter { $0["type"] as? String == "code" }
    }

    var stderr: String { (try? String(contentsOfFile: err.path, encoding: .utf8)) ?? "" }
}

/// Polls the retained `topic` until it is `value` (at most `seconds`); the last value seen.
private func retained(_ topic: String, becomes value: String, broker: MosquittoBroker, seconds: Double = 10) throws -> String? {
    let deadline = Date().addingTimeInterval(seconds)
    var seen = try MosquittoSubscriber.retained(on: topic, broker: broker)
    while seen != value && Date() < deadline {
        Thread.sleep(forTimeInterval: 0.1)
        seen = try MosquittoSubscriber.retained(on: topic, broker: broker)
    }
    return seen
}

@Suite(.serialized) struct MQTTRunTests {
    @Test func everyCodeOfAFileReachesTheSubscriberAsItsLineWithAUniqueID() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker)
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try codeFrames(24)), suffix: ".y4m")
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--duplicate-window", "0", "--mqtt-url", broker.url,
                                           "--mqtt-topic-prefix", "syncscan/test/file"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = run.codes
        #expect(lines.count == 24, "one code per frame on stdout")
        let messages = subscriber.wait(seconds: 10) { $0.filter { $0.topic == "syncscan/test/file/codes" }.count >= lines.count }
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
        #expect(messages.filter { $0.topic == "syncscan/test/file/status" }.map(\.payload) == ["online", "offline"])
        #expect(try MosquittoSubscriber.retained(on: "syncscan/test/file/status", broker: broker) == "offline")
        #expect(run.stderr.contains("mqtt_published=24 mqtt_queued=0 mqtt_dropped=0"), "stderr: \(run.stderr)")
        #expect(broker.log.contains(" disconnected.") && broker.closedWithoutDisconnect(clientPrefix: "syncscan-").isEmpty,
                "a clean DISCONNECT, no Will: \(broker.log)")
    }

    @Test func aBrokerDownForSecondsMidStreamStillGetsEveryCodeInOrder() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker)
        let daemon = try LiveSyncscan(["--duplicate-window", "0", "--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/live"])
        var stoppedAt = Date(), restartedAt = Date()
        try daemon.feed(try codeFrames(50), interval: 0.1) { i in
            if i == 10 { broker.stop(); stoppedAt = Date() }
            if i == 40 { try broker.start(); restartedAt = Date() }
        }
        #expect(restartedAt.timeIntervalSince(stoppedAt) >= 2.5, "the broker was down for seconds")
        #expect(daemon.closeInputAndWait() == 0, "stderr: \(daemon.stderr)")
        let lines = daemon.stdoutCodes
        #expect(lines.count >= 20, "a live pipe may drop late frames, but most are scanned: \(lines.count)")
        let codes = subscriber.wait(seconds: 15) { messages in
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
        #expect(sequences == lineSequences, "every stdout code reached the subscriber, in order")
        #expect(daemon.stderr.contains("MQTT broker connection failed"), "the outage is logged: \(daemon.stderr)")
        #expect(daemon.stderr.contains("MQTT broker connected"), "and the reconnect: \(daemon.stderr)")
        #expect(daemon.stderr.contains("mqtt_published=\(lines.count) mqtt_queued=0 mqtt_dropped=0"), "stderr: \(daemon.stderr)")
    }

    @Test func retainedStatusGoesOnlineThenOfflineOnSIGTERM() throws {
        let broker = try MosquittoBroker()
        let daemon = try LiveSyncscan(["--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/term"])
        try daemon.feed(try codeFrames(3), interval: 0.05)
        #expect(try retained("syncscan/test/term/status", becomes: "online", broker: broker) == "online")
        daemon.process.terminate()
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0, "stderr: \(daemon.stderr)")
        #expect(try MosquittoSubscriber.retained(on: "syncscan/test/term/status", broker: broker) == "offline")
        #expect(broker.log.contains(" disconnected.") && broker.closedWithoutDisconnect(clientPrefix: "syncscan-").isEmpty,
                "a clean DISCONNECT: \(broker.log)")
    }

    @Test func theWillSaysOfflineWhenTheDaemonIsKilled() throws {
        let broker = try MosquittoBroker()
        let daemon = try LiveSyncscan(["--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/kill"])
        try daemon.feed(try codeFrames(3), interval: 0.05)
        #expect(try retained("syncscan/test/kill/status", becomes: "online", broker: broker) == "online")
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationReason == .uncaughtSignal)
        // Only the broker can have said it now: the Last Will.
        #expect(try retained("syncscan/test/kill/status", becomes: "offline", broker: broker) == "offline")
        #expect(broker.closedWithoutDisconnect(clientPrefix: "syncscan-").count == 1, "the connection ended without DISCONNECT: \(broker.log)")
    }

    @Test func aBrokerNobodyListensOnIsLoggedOnceRetriedAndStdoutIsComplete() throws {
        let port = try MosquittoBroker.freePort()
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try codeFrames(24)), suffix: ".y4m")
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--duplicate-window", "0", "--log-level", "debug",
                                           "--mqtt-url", "mqtt://127.0.0.1:\(port)"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.codes.count == 24, "every line on stdout")
        let logged = run.stderr.split(separator: "\n").filter { $0.contains(" error ") && $0.contains("MQTT broker connection failed") }
        #expect(logged.count == 1, "once per kind: \(logged)")
        #expect(logged.first?.contains("Connection refused") == true && logged.first?.contains("mqtt://127.0.0.1:\(port)") == true,
                "names the URL and the reason: \(logged)")
        #expect(logged.first?.contains("check that the broker runs and listens") == true, "says what to do: \(logged)")
        #expect(run.stderr.contains("MQTT broker connection failed again"), "it retried: \(run.stderr)")
        #expect(run.stderr.contains("mqtt_published=0 mqtt_queued=0 mqtt_dropped=24"), "undelivered codes counted: \(run.stderr)")
    }
}
