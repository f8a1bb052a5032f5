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

/// The frame sequence number in an id (`<source>-<run>-<seq>-<index>`).
private func sequence(_ id: String) -> Int { Int(id.split(separator: "-").dropLast().last ?? "") ?? -1 }

/// The ids `receiver` answered with a 2xx, each request's objects in order (one object or a batch's array).
private func deliveredIDs(_ receiver: WebhookReceiver) -> [String] {
    receiver.requests.filter { (200...299).contains($0.status) }.flatMap { bodyObjects($0).compactMap { $0["id"] as? String } }
}

/// A request's code objects: its body's one object, or each of its array's.
private func bodyObjects(_ request: WebhookReceiver.Request) -> [[String: Any]] {
    let json = try? JSONSerialization.jsonObject(with: Data(request.body.utf8))
    return (json as? [[String: Any]]) ?? (json as? [String: Any]).map { [$0] } ?? []
}

/// A configuration file of `webhook:` lines (and no duplicate suppression), rewritten by `write`.
private final class WebhookConfigFile {
    let file: TemporaryFile
    init(_ webhook: String) throws {
        file = try TemporaryFile(contents: [], suffix: ".yaml")
        try write(webhook)
    }
    var path: String { file.path }
    func write(_ webhook: String) throws {
        try Data(("duplicate_suppression:\n  enabled: false\nwebhook:\n" + webhook).utf8).write(to: URL(fileURLWithPath: file.path))
    }
}

@Suite(.serialized, .offThePool) struct WebhookReloadAndBatchRunTests {
    /// SIGHUP with the config file naming a second receiver instead of the first: applied in
    /// place (no restart), the codes after the reload reach the second, those before it the
    /// first, and every code of the run reaches one of them once.
    @Test func aReloadToANewURLSendsTheCodesAfterItThereAndLosesNone() throws {
        let (first, second) = (try WebhookReceiver(), try WebhookReceiver())
        let spool = try TemporaryDirectory()
        let config = try WebhookConfigFile("  url: \(first.url)\n  spool_directory: \(spool.path)\n")
        let run = try LiveSyncscan(["--config", config.path])
        let frames = try hookFrames(20)
        #expect(run.feed(frames) { deliveredIDs(first).count >= 3 }, "codes at the first receiver")
        try config.write("  url: \(second.url)\n  spool_directory: \(spool.path)\n")
        run.daemon.send(SIGHUP)
        // The old code said a restart applies it: that line ends the wait too, and the test fails.
        #expect(run.feed(frames) { deliveredIDs(second).count >= 3 || run.stderr.contains("restart the service") },
                "codes at the second receiver after the reload")
        #expect(waitUntil(every: .milliseconds(50)) { deliveredIDs(first).count + deliveredIDs(second).count >= run.stdoutCodes.count },
                "every code so far delivered")
        #expect(run.closeInputAndWait() == 0, "stderr: \(run.stderr)")

        let (before, after) = (deliveredIDs(first), deliveredIDs(second))
        let all = before + after
        #expect(all.count == run.stdoutCodes.count && Set(all).count == all.count, "each code once: \(all.count) of \(run.stdoutCodes.count)")
        #expect(all.map(sequence).sorted() == run.stdoutSequences.sorted())
        #expect(!before.isEmpty && !after.isEmpty && before.map(sequence).max()! < after.map(sequence).min()!,
                "the first receiver's codes all come before the second's: \(before.map(sequence)) \(after.map(sequence))")
        #expect(run.stderr.contains("webhook settings reloaded in place") && !run.stderr.contains("restart the service"), "stderr: \(run.stderr)")
        #expect(try summaryCounts(run.stderr)["webhook_delivered"] == Double(all.count))
    }

    /// `webhook.batch_max` 20 and `batch_wait_ms` 1000 on a live pipe, through a while of 503s:
    /// each request a JSON array whose Idempotency-Key is its ids joined by ", ", a batch that
    /// failed sent again as the same batch (its key answered 200 later), no batch short of 20
    /// sent before its oldest code waited 1 s, and every code answered 200 once.
    @Test func batchesCarryEveryCodeOnceAndKeepTheirKeyAcrossRetries() throws {
        let receiver = try WebhookReceiver()
        let config = try WebhookConfigFile("  url: \(receiver.url)\n  batch_max: 20\n  batch_wait_ms: 1000\n")
        let run = try LiveSyncscan(["--config", config.path])
        let frames = try hookFrames(20)
        #expect(run.feed(frames) { receiver.requests.count >= 2 }, "batches answered 200")
        try receiver.answer("503")
        #expect(run.feed(frames) { receiver.requests.contains { $0.status == 503 } }, "a batch answered 503")
        try receiver.answer("200")
        let refused = receiver.requests.filter { $0.status == 503 }
        let refusedKeys = Set(refused.compactMap(\.key))
        let refusedIDs = Set(refused.flatMap { bodyObjects($0).compactMap { $0["id"] as? String } })
        // A refused code answered 200 under another key (the batch made anew) ends the wait too, and fails below.
        #expect(run.feed(frames) {
            let answered = receiver.requests.filter { $0.status == 200 }
            return Set(answered.compactMap(\.key)).isSuperset(of: refusedKeys) || answered.contains {
                !refusedKeys.contains($0.key ?? "") && !refusedIDs.isDisjoint(with: bodyObjects($0).compactMap { $0["id"] as? String })
            }
        }, "the refused codes answered 200")
        let answeredKeys = Set(receiver.requests.filter { $0.status == 200 }.compactMap(\.key))
        #expect(answeredKeys.isSuperset(of: refusedKeys), "each refused batch answered 200 with its key: \(refusedKeys.subtracting(answeredKeys))")
        #expect(waitUntil(every: .milliseconds(50)) { deliveredIDs(receiver).count >= run.stdoutCodes.count }, "every code so far delivered")
        let closedAt = Date().timeIntervalSince1970
        #expect(run.closeInputAndWait() == 0, "stderr: \(run.stderr)")

        let ids = deliveredIDs(receiver)
        #expect(ids.count == run.stdoutCodes.count && Set(ids).count == ids.count, "each code once: \(ids.count) of \(run.stdoutCodes.count)")
        #expect(ids.map(sequence) == run.stdoutSequences, "in order")
        let requests = receiver.requests
        #expect(requests.allSatisfy { $0.body.hasPrefix("[") && $0.key == bodyObjects($0).compactMap { $0["id"] as? String }.joined(separator: ", ") })
        #expect(requests.contains { bodyObjects($0).count > 1 }, "codes were batched: \(requests.map { bodyObjects($0).count })")
        let time = ISO8601DateFormatter()
        time.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for request in requests where request.wall < closedAt && bodyObjects(request).count < 20 {
            let oldest = try #require(bodyObjects(request).compactMap { ($0["time"] as? String).flatMap(time.date) }.min())
            #expect(request.wall - oldest.timeIntervalSince1970 >= 0.99, "a batch of \(bodyObjects(request).count) sent early: \(request.key ?? "")")
        }
    }

    /// Two URLs, the second's receiver down at first: the first is not held back, and each
    /// receiver is answered 200 for every code once.
    @Test func twoURLsEachGetEveryCodeOnce() throws {
        let (first, second) = (try WebhookReceiver(), try WebhookReceiver())
        second.stop()
        let run = try LiveSyncscan(["--duplicate-window", "0", "--webhook-url", first.url, "--webhook-url", second.url])
        let frames = try hookFrames(20)
        #expect(run.feed(frames) { deliveredIDs(first).count >= 3 }, "the first receiver gets codes while the second is down")
        try second.start()
        #expect(run.feed(frames) { deliveredIDs(second).count >= 3 }, "the second receiver gets codes once up")
        #expect(waitUntil(every: .milliseconds(50)) {
            deliveredIDs(first).count >= run.stdoutCodes.count && deliveredIDs(second).count >= run.stdoutCodes.count
        }, "every code so far delivered to both")
        #expect(run.closeInputAndWait() == 0, "stderr: \(run.stderr)")

        for receiver in [first, second] {
            let ids = deliveredIDs(receiver)
            #expect(ids.count == run.stdoutCodes.count && Set(ids).count == ids.count, "each code once: \(ids.count) of \(run.stdoutCodes.count)")
            #expect(ids.map(sequence) == run.stdoutSequences, "in order")
        }
        #expect(try summaryCounts(run.stderr)["webhook_delivered"] == Double(2 * run.stdoutCodes.count))
    }
}

/// The first run's `webhook_delivered` in its summary line.
private func beforeOutageDelivered(_ stderr: String) -> Int {
    Int((try? summaryCounts(stderr))?["webhook_delivered"] ?? -1)
}
