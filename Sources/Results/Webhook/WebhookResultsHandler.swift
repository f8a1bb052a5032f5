import Capture
import Logging
import Media
import MQTT

/// POSTs each emitted code as JSON to one or more web endpoints (`webhook.url`), each on its own
/// thread (`WebhookEndpoint`), through libcurl.
///
/// A request's body is the code's stdout JSON object plus `"id": "<source>-<run>-<frame seq>-<index>"`
/// (with `batchMax` > 1, a JSON array of such objects), and its `Idempotency-Key` header is
/// that id (a batch's ids joined by `, `): the same on every retry and after a restart (the
/// spool keeps it), so a receiver drops a repeated delivery by it. `handle` never waits: it hands
/// the code to each endpoint's thread; past the bounds the oldest codes are dropped and counted,
/// so a slow or absent receiver never slows scanning. The retry rules are `WebhookRetryRules`.
public final class WebhookResultsHandler: ResultsHandler, @unchecked Sendable {
    public let settings: WebhookSettings
    private let endpoints: [WebhookEndpoint]
    private let source: String
    private let clock: @Sendable () -> WallClockTime
    /// The codes' objects with their ids (`<source>-<run>-<frame seq>-<index>`); `handle` only.
    private var codeEncoder: IdentifiedCodeEncoder

    /// - Parameters:
    ///   - source: the source URI (the `source` field, and the ids' first part).
    ///   - token: the bearer token read from `settings.tokenFile` by the caller (sent, never logged).
    ///   - drainTimeoutSeconds: how long `finish` waits for a receiver to take what is queued.
    ///   - backoffCap: the longest wait between retries without a `Retry-After` (30 s; tests shorten it).
    public init(settings: WebhookSettings, source: String, token: String?, logger: Logger, drainTimeoutSeconds: Double = 5,
                backoffCap: Duration = WebhookRetryRules.maximumBackoff, clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now) {
        self.settings = settings
        self.source = source
        self.clock = clock
        codeEncoder = IdentifiedCodeEncoder(prefix: MQTTSettings.sourceName(source) + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 16))
        let headers = ["Content-Type: application/json"] + settings.headers + (token.map { ["Authorization: Bearer \($0)"] } ?? [])
        endpoints = settings.urls.map {
            WebhookEndpoint(url: $0, settings: settings, headers: headers, drainTimeoutSeconds: drainTimeoutSeconds,
                            backoffCap: backoffCap, logger: logger)
        }
    }

    public func start() { endpoints.forEach { $0.start() } }

    public func handle(_ code: inout DeliveredCode) throws {
        let (id, payload) = codeEncoder.encode(code, source: source, time: clock())
        let entry = MQTTOutbox.Entry(message: MQTTConnection.Message(topic: id, payload: payload, qos: 1), isCode: true)
        for endpoint in endpoints { endpoint.add(entry) }
    }

    /// Waits for every endpoint to deliver or spool what it holds (see `WebhookEndpoint.finish`).
    public func finish() throws { endpoints.forEach { $0.finish() } }

    /// Codes the receivers answered with a 2xx (every endpoint's).
    public var delivered: Int { endpoints.reduce(0) { $0 + $1.counts.delivered } }

    public var counters: [ResultsCounter] {
        let all = endpoints.map(\.counts)
        let queued = endpoints.reduce(0) { $0 + $1.queued }
        func sum(_ value: (WebhookEndpoint.Counts) -> Int) -> Int { all.reduce(0) { $0 + value($1) } }
        var failures: [Int: Int] = [:]
        for counts in all { failures.merge(counts.failures, uniquingKeysWith: +) }
        return [
            ResultsCounter(name: "webhook_delivered", help: "Codes the webhook receivers answered with a 2xx.", value: sum(\.delivered)),
            ResultsCounter(name: "webhook_retried", help: "Codes in webhook requests that failed for a while (5xx, 408, 429, no answer) and are sent again.",
                           value: sum(\.retried)),
            ResultsCounter(name: "webhook_queued", metric: "webhook_queued_codes", help: "Codes waiting in memory for the webhook receivers.",
                           kind: .gauge, value: queued),
            ResultsCounter(name: "webhook_spooled", metric: "webhook_spooled_codes", help: "Codes waiting in the spool files for the webhook receivers.",
                           kind: .gauge, value: sum(\.spooled)),
            ResultsCounter(name: "webhook_dropped", help: "Codes dropped before a webhook receiver took them: past the memory queue and the spool.",
                           value: sum { $0.dropped + $0.outboxDropped }),
            ResultsCounter(name: "webhook_failed", help: "Codes a webhook receiver refused for good (a 4xx other than 408 and 429): not sent again.",
                           value: failures.values.reduce(0, +)),
        ] + failures.keys.sorted().map { status in
            ResultsCounter(name: "webhook_failed_\(status)", help: "Codes a webhook receiver refused for good with HTTP \(status).",
                           value: failures[status]!)
        }
    }
}
