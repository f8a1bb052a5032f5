import Capture
import Decoders
import Foundation
import HTTPClient
import Media
import Testing
import TestSupport
@testable import Results

/// Codes of `count` frames (one code each), from frame `first` on, handed to `handler`.
func send(_ handler: some ResultsHandler, frames: Range<UInt64>) throws {
    for seq in frames {
        let frame = GreyFrame(width: 16, height: 16).videoFrame(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 1_000_000))
        var code = DeliveredCode(code: MachineReadableCodeObject(symbology: .qrcode, data: Array("code \(seq)".utf8), text: "code \(seq)",
                                                                 quality: 1, orientation: .up, corners: [], frame: frame.info, pass: .zbar))
        try handler.handle(&code)
    }
}

func counter(_ handler: some CountsReporting, _ name: String) -> Int {
    handler.counters.first { $0.name == name }?.value ?? 0
}

/// Keys the receiver answered with a 2xx, and whether each body's `id` is its header's key.
func deliveredKeys(_ receiver: WebhookReceiver) -> [String] {
    receiver.requests.filter { (200...299).contains($0.status) }.compactMap(\.key)
}

private func bodyIDMatchesKey(_ request: WebhookReceiver.Request) -> Bool {
    guard let object = try? JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any] else { return false }
    return object["id"] as? String == request.key
}

@Suite(.offThePool) struct WebhookRetryRulesTests {
    @Test func answersAreDeliveredRetriedOrRefusedForGood() {
        let outcome = { (status: Int, after: Int?) in WebhookRetryRules.outcome(of: .success(HTTPPoster.Response(status: status, retryAfterSeconds: after))) }
        #expect(outcome(200, nil) == .delivered)
        #expect(outcome(204, nil) == .delivered)
        #expect(outcome(503, nil) == .retry(after: nil, reason: "HTTP 503"))
        #expect(outcome(500, nil) == .retry(after: nil, reason: "HTTP 500"))
        #expect(outcome(408, nil) == .retry(after: nil, reason: "HTTP 408"))
        #expect(outcome(429, 2) == .retry(after: .seconds(2), reason: "HTTP 429"))
        #expect(outcome(429, 86_400) == .retry(after: .seconds(3600), reason: "HTTP 429"))
        #expect(outcome(400, nil) == .permanentFailure(status: 400))
        #expect(outcome(404, nil) == .permanentFailure(status: 404))
        let refused = HTTPClientError(call: "curl_easy_perform", code: 7, reason: "Couldn't connect to server")
        #expect(WebhookRetryRules.outcome(of: .failure(refused)) == .retry(after: nil, reason: refused.kind))
        let badCA = HTTPClientError(call: "curl_easy_perform", code: 60, reason: "SSL peer certificate")
        #expect(WebhookRetryRules.outcome(of: .failure(badCA)) == .retry(after: WebhookRetryRules.maximumBackoff, reason: badCA.kind))
    }

    @Test func backoffDoublesFromHalfASecondToThirtyWithJitter() {
        #expect(WebhookRetryRules.backoff(failures: 1, jitter: 1) == .milliseconds(500))
        #expect(WebhookRetryRules.backoff(failures: 2, jitter: 1) == .seconds(1))
        #expect(WebhookRetryRules.backoff(failures: 4, jitter: 1) == .seconds(4))
        #expect(WebhookRetryRules.backoff(failures: 7, jitter: 1) == .seconds(30))
        #expect(WebhookRetryRules.backoff(failures: 1_000, jitter: 1) == .seconds(30))
        #expect(WebhookRetryRules.backoff(failures: 3, jitter: 0.5) == .seconds(1))
        #expect(WebhookRetryRules.backoff(failures: 9, cap: .seconds(1), jitter: 1) == .seconds(1))
        for _ in 0..<100 {
            let wait = WebhookRetryRules.backoff(failures: 3)
            #expect(wait >= .seconds(1) && wait <= .seconds(2))
        }
    }

    @Test func passwordsInURLsAreRedacted() {
        // An '@' in the path after a user:password may end a password holding a raw '/': all of it hidden.
        #expect(WebhookSettings.redacted("https://u:pw@h.example/x@y") == "https://***@y")
        #expect(WebhookSettings.redacted("https://h.example/x@y?token=t0k") == "https://h.example/x@y?token=***")
        #expect(WebhookSettings.redacted("http://127.0.0.1:8080/hook") == "http://127.0.0.1:8080/hook")
    }
}

@Suite(.offThePool) struct WebhookResultsHandlerTests {
    @Test func everyCodeIsDeliveredOnceThroughAStopA503AndA429() throws {
        let receiver = try WebhookReceiver()
        let spool = try TemporaryDirectory()
        var settings = WebhookSettings(urls: [receiver.url])
        settings.spoolDirectory = spool.path
        let logs = LogRecorder()
        let handler = WebhookResultsHandler(settings: settings, source: "y4m:/data/dock.y4m", token: nil, logger: logs.logger,
                                            backoffCap: .seconds(1))
        handler.start()
        try send(handler, frames: 0..<5)
        #expect(waitUntil { handler.delivered == 5 })
        // Stopped for 5 s: refused connections, retried with backoff.
        receiver.stop()
        try send(handler, frames: 5..<10)
        #expect(waitUntil { counter(handler, "webhook_retried") > 0 })
        pause(.seconds(5))
        // Back, answering 503 for a while, then 429 with Retry-After, then 200.
        try receiver.answer("503")
        try receiver.start()
        try send(handler, frames: 10..<15)
        #expect(waitUntil { receiver.requests.contains { $0.status == 503 } })
        try receiver.answer("429 1")
        #expect(waitUntil { receiver.requests.contains { $0.status == 429 } })
        try receiver.answer("200")
        try send(handler, frames: 15..<20)
        #expect(waitUntil { handler.delivered == 20 })
        try handler.finish()

        let keys = deliveredKeys(receiver)
        #expect(keys.count == 20 && Set(keys).count == 20, "each code delivered once: \(keys)")
        #expect(receiver.requests.allSatisfy { $0.content_type == "application/json" && $0.key?.hasPrefix("dock-") == true })
        #expect(receiver.requests.allSatisfy(bodyIDMatchesKey))
        // The 429's Retry-After (1 s) was waited for: the next request came no sooner than the receiver said.
        let requests = receiver.requests
        let first429 = try #require(requests.firstIndex { $0.status == 429 })
        #expect(requests[first429 + 1].time - requests[first429].time >= 0.95)
        #expect(counter(handler, "webhook_retried") >= 3)
        #expect(counter(handler, "webhook_delivered") == 20)
        #expect(counter(handler, "webhook_dropped") == 0 && counter(handler, "webhook_failed") == 0)
        #expect(logs.lines(containing: "webhook delivers again").count >= 1)
    }

    @Test func codesSpooledInAnOutageAreDeliveredByTheNextRunWithTheirKeys() throws {
        let receiver = try WebhookReceiver()
        receiver.stop()
        let spool = try TemporaryDirectory()
        var settings = WebhookSettings(urls: [receiver.url])
        settings.spoolDirectory = spool.path
        let first = WebhookResultsHandler(settings: settings, source: "/dev/video0", token: nil, logger: LogRecorder().logger)
        first.start()
        try send(first, frames: 0..<10)
        #expect(waitUntil { counter(first, "webhook_retried") > 0 })
        try first.finish()
        #expect(counter(first, "webhook_spooled") == 10)

        try receiver.start()
        let logs = LogRecorder()
        let second = WebhookResultsHandler(settings: settings, source: "/dev/video0", token: nil, logger: logs.logger)
        second.start()
        #expect(waitUntil { second.delivered == 10 })
        try second.finish()
        let keys = deliveredKeys(receiver)
        #expect(Set(keys).count == 10 && keys.count == 10)
        // The first run's keys (one run id), frames 0 to 9 in order.
        let runs = Set(keys.map { $0.split(separator: "-").dropLast(2).joined(separator: "-") })
        #expect(runs.count == 1)
        #expect(keys.map { $0.split(separator: "-").suffix(2).joined(separator: "-") } == (0..<10).map { "\($0)-0" })
        #expect(logs.contains("spooled by an earlier run"))
        #expect(counter(second, "webhook_spooled") == 0)
    }

    /// A read window's result is POSTed as its stdout object plus `id` (its `Idempotency-Key`),
    /// in order with the codes: retried through an outage, spooled at exit, and delivered by the
    /// next run under the same key.
    @Test func readResultsArePostedRetriedAndSpooledAsCodesAre() throws {
        let receiver = try WebhookReceiver()
        receiver.stop()
        let spool = try TemporaryDirectory()
        var settings = WebhookSettings(urls: [receiver.url])
        settings.spoolDirectory = spool.path
        let time = WallClockTime(secondsSince1970: 1_795_342_500, milliseconds: 0)
        let first = WebhookResultsHandler(settings: settings, source: "/dev/video0", token: nil, logger: LogRecorder().logger,
                                          drainTimeoutSeconds: 0, clock: { time })
        first.start()
        try send(first, frames: 0..<1)
        var noRead = ReadResult(kind: .noRead, window: 2, trigger: "motion", opened: ItemFrame(sequenceNumber: 3, presentationTime: .zero),
                                closed: ItemFrame(sequenceNumber: 9, presentationTime: MediaTime(seconds: 0.2)), codes: 0, framesScanned: 7)
        noRead.snapshot = "/var/lib/syncscan/no_read/no_read-20261122T101500.000Z-w000002.jpg"
        try first.readResult(&noRead)
        #expect(waitUntil { counter(first, "webhook_retried") > 0 })
        try first.finish()
        #expect(counter(first, "webhook_spooled") == 2)

        try receiver.start()
        let second = WebhookResultsHandler(settings: settings, source: "/dev/video0", token: nil, logger: LogRecorder().logger)
        second.start()
        #expect(waitUntil { second.delivered == 2 })
        try second.finish()
        let requests = receiver.requests.filter { (200...299).contains($0.status) }
        #expect(requests.count == 2 && requests.allSatisfy(bodyIDMatchesKey))
        let result = try #require(requests.last)
        let key = try #require(result.key)
        #expect(key.hasPrefix("video0-") && key.hasSuffix("-window-2") && requests[0].key?.hasSuffix("-0-0") == true, "\(requests.map(\.key))")
        let line = String(decoding: JSONLineEncoder().encode(result: noRead, source: "/dev/video0", time: time), as: UTF8.self)
        #expect(result.body == line.dropLast(2) + ",\"id\":\"\(key)\"}", "the stdout line's object plus its id")
        #expect(result.body.contains("\"type\":\"read_result\",\"result\":\"no_read\"") && result.body.contains("\"snapshot\":"))
    }

    @Test func a400IsCountedLoggedOnceAndNotRetriedAndTheTokenIsNeverLogged() throws {
        let token = "tok-\(UUID().uuidString)"
        let receiver = try WebhookReceiver()
        try receiver.answer("400")
        var settings = WebhookSettings(urls: [receiver.url])
        settings.headers = ["X-Scanner: dock1"]
        let logs = LogRecorder()
        let handler = WebhookResultsHandler(settings: settings, source: "-", token: token, logger: logs.logger, drainTimeoutSeconds: 0)
        handler.start()
        try send(handler, frames: 0..<3)
        #expect(waitUntil { counter(handler, "webhook_failed") == 3 })
        try receiver.answer("200")
        try send(handler, frames: 3..<4)
        #expect(waitUntil { handler.delivered == 1 })
        // Each refused code was sent once: 3 refused + 1 delivered requests in all.
        #expect(receiver.requests.map(\.status) == [400, 400, 400, 200])
        #expect(counter(handler, "webhook_failed_400") == 3 && counter(handler, "webhook_retried") == 0)
        #expect(logs.lines(containing: "refused codes for good").count == 1)
        #expect(receiver.requests.allSatisfy { $0.authorization == "Bearer \(token)" })
        // Failures logged too (a stopped receiver), and none of the lines holds the token.
        receiver.stop()
        try send(handler, frames: 4..<5)
        #expect(waitUntil { counter(handler, "webhook_retried") > 0 })
        try handler.finish()
        #expect(logs.all.count >= 3)
        #expect(logs.all.allSatisfy { !$0.line.contains(token) })
    }

    @Test func httpsIsVerifiedAndAWrongCAIsRefusedAndRetried() throws {
        let certificate = try SelfSignedCertificate()
        let wrong = try SelfSignedCertificate()
        let receiver = try WebhookReceiver(tls: certificate)
        var settings = WebhookSettings(urls: [receiver.url])
        settings.caFile = certificate.certificatePath
        let good = WebhookResultsHandler(settings: settings, source: "-", token: nil, logger: LogRecorder().logger)
        good.start()
        try send(good, frames: 0..<2)
        #expect(waitUntil { good.delivered == 2 })
        try good.finish()

        settings.caFile = wrong.certificatePath
        let logs = LogRecorder()
        let refused = WebhookResultsHandler(settings: settings, source: "-", token: nil, logger: logs.logger, drainTimeoutSeconds: 0)
        refused.start()
        try send(refused, frames: 2..<3)
        #expect(waitUntil { counter(refused, "webhook_retried") > 0 })
        try refused.finish()
        #expect(refused.delivered == 0 && receiver.requests.count == 2)
        #expect(logs.lines(containing: "webhook delivery failed").contains { $0.contains("webhook.ca_file") })
    }
}
