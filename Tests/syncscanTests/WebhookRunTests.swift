import Foundation
import TestSupport
import Testing

/// Frames 320x240, each with one QR code ("hook-N", a new one every other frame).
private func hookFrames(_ count: Int) throws -> [GreyFrame] {
    try (0..<count).map { i in
        var f = GreyFrame(width: 320, height: 240)
        f.draw(try ModuleMatrix.qrCode("hook-\(i / 2)"), x: 40 + Double(i % 7) * 6, y: 40, moduleSize: 4)
        return f
    }
}

@Suite(.serialized, .offThePool) struct WebhookRunTests {
    /// A live pipe's codes through a receiver stopped, a syncscan restart during that outage (the
    /// spool), the receiver back answering 503, then 429 with Retry-After, then 200: every code
    /// of both runs answered 200 once per idempotency key, and the token in no log line.
    @Test func everyCodeOfTwoRunsThroughAnOutageReachesTheReceiverOncePerKey() throws {
        let receiver = try WebhookReceiver()
        let spool = try TemporaryDirectory()
        let token = "hook-token-\(UUID().uuidString)"
        let tokenFile = try TemporaryFile(contents: Array("\(token)\n".utf8))
        let arguments = ["--duplicate-window", "0", "--webhook-url", receiver.url]
        let environment = ["SYNCSCAN_WEBHOOK_SPOOL_DIRECTORY": spool.path, "SYNCSCAN_WEBHOOK_TOKEN_FILE": tokenFile.path]
        let frames = try hookFrames(40)

        let first = try LiveSyncscan(arguments, environment: environment)
        #expect(first.feed(Array(frames[0..<20])) { receiver.requests.count >= 3 }, "first run: codes delivered before the outage")
        receiver.stop()
        let beforeOutage = first.stdoutCodes.count
        #expect(first.feed(Array(frames[0..<20])) { first.stdoutCodes.count >= beforeOutage + 3 }, "first run: codes during the outage")
        first.daemon.send(SIGTERM)
        #expect(first.daemon.wait() == 0, "stderr: \(first.stderr)")
        #expect(first.stderr.contains("webhook codes the receiver has not taken are spooled for the next run"), "stderr: \(first.stderr)")

        let second = try LiveSyncscan(arguments, environment: environment)
        #expect(second.feed(Array(frames[20..<40])) { second.stdoutCodes.count >= 3 }, "second run: codes during the outage")
        try receiver.answer("503")
        try receiver.start()
        #expect(second.feed(Array(frames[20..<40])) { receiver.requests.contains { $0.status == 503 } }, "a 503")
        try receiver.answer("429 1")
        #expect(second.feed(Array(frames[20..<40])) { receiver.requests.contains { $0.status == 429 } }, "a 429")
        try receiver.answer("200")
        let beforeEnd = second.stdoutCodes.count
        #expect(second.feed(Array(frames[20..<40])) { second.stdoutCodes.count >= beforeEnd + 3 }, "second run: codes after the outage")
        // Every code of both runs so far answered 200 while the input is still open: the drain at
        // exit (5 s of a clock that runs on while a loaded machine stops the process) then has
        // nothing left that it could rightly spool for a next run instead.
        #expect(waitUntil(every: .milliseconds(50)) {
            Set(receiver.requests.filter { $0.status == 200 }.compactMap(\.key)).count >= first.stdoutCodes.count + second.stdoutCodes.count
        }, "every code so far delivered")
        #expect(second.closeInputAndWait() == 0, "stderr: \(second.stderr)")
        #expect(second.stderr.contains("webhook codes spooled by an earlier run are delivered first"), "stderr: \(second.stderr)")

        let expected = first.stdoutCodes.count + second.stdoutCodes.count
        let delivered = receiver.requests.filter { $0.status == 200 }
        let keys = delivered.compactMap(\.key)
        #expect(keys.count == expected && Set(keys).count == expected, "each code answered 200 once: \(keys.count) of \(expected)")
        // The first run's keys (its run id) come before the second run's.
        let runs = keys.map { $0.split(separator: "-").dropLast(2).joined(separator: "-") }
        #expect(Set(runs).count == 2 && runs.prefix(first.stdoutCodes.count).allSatisfy { $0 == runs[0] }, "\(keys)")
        #expect(delivered.allSatisfy { $0.authorization == "Bearer \(token)" && $0.content_type == "application/json" })
        let summary = try summaryCounts(second.stderr)
        #expect(summary["webhook_delivered"] == Double(second.stdoutCodes.count + first.stdoutCodes.count - beforeOutageDelivered(first.stderr)))
        #expect(second.stderr.contains("webhook_spooled=0 webhook_dropped=0 webhook_failed=0"), "stderr: \(second.stderr)")
        #expect(!first.stderr.contains(token) && !second.stderr.contains(token), "the token is never logged")
    }
}

/// The first run's `webhook_delivered` in its summary line.
private func beforeOutageDelivered(_ stderr: String) -> Int {
    Int((try? summaryCounts(stderr))?["webhook_delivered"] ?? -1)
}
