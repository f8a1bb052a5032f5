import Capture
import Logging
import Media
import Outbox
import SystemCalls

/// POSTs each emitted code as JSON to one or more web endpoints (`webhook.url`), each on its own
/// thread (`WebhookEndpoint`), through libcurl.
///
/// A request's body is the code's stdout JSON object plus `"id": "<source>-<run>-<frame seq>-<index>"`
/// (with `batchMax` > 1, a JSON array of such objects), and its `Idempotency-Key` header is
/// that id (a batch's ids joined by `, `): the same on every retry and after a restart (the
/// spool keeps it), so a receiver drops a repeated delivery by it. `handle` never waits: it hands
/// the code to each endpoint's thread; past the bounds the oldest codes are dropped and counted,
/// so a slow or absent receiver never slows scanning. The retry rules are `WebhookRetryRules`.
/// A read window's result (`trigger.mode: triggered`) goes the same way, as its stdout
/// `read_result` object plus `"id": "<source>-<run>-window-<N>"`: queued, spooled, retried and
/// counted as a code is.
///
/// `apply` (a reload) changes the settings in place: a URL kept keeps its endpoint, its queue and
/// its spool, and takes the new settings before its next request; a URL removed is closed as at
/// exit (its codes delivered, else spooled); a URL added gets a new endpoint. Every code goes to
/// every URL configured when it is handled.
public final class WebhookResultsHandler: ResultsHandler, ServiceHooks, CountsReporting, @unchecked Sendable {  // unchecked: `codeEncoder` is the delivery thread's alone (`handle`); the rest is immutable or the endpoint's, behind its lock
    /// The endpoints and what made them, shared by `handle`, `apply`, `finish` and the counters.
    private struct State {
        var settings: WebhookSettings
        var headers: [String]
        /// One per URL, in `settings.urls`' order: every code goes to each.
        var active: [WebhookEndpoint]
        /// Endpoints a reload closed: counted, and waited for by `finish`.
        var retired: [WebhookEndpoint] = []
        var started = false
        var finished = false
    }

    private let state: LockedValue<State>
    private let source: String
    private let logger: Logger
    private let drainTimeoutSeconds: Double
    private let backoffCap: Duration
    private let clock: @Sendable () -> WallClockTime
    /// The codes' objects with their ids (`<source>-<run>-<frame seq>-<index>`); `handle` only.
    private var codeEncoder: IdentifiedCodeEncoder

    /// The settings in force (the last `apply`'s).
    public var settings: WebhookSettings { state.withLock { $0.settings } }

    /// - Parameters:
    ///   - source: the source URI (the `source` field, and the ids' first part).
    ///   - token: the bearer token read from `settings.tokenFile` by the caller (sent, never logged).
    ///   - drainTimeoutSeconds: how long `finish` waits for a receiver to take what is queued.
    ///   - backoffCap: the longest wait between retries without a `Retry-After` (30 s; tests shorten it).
    public init(settings: WebhookSettings, source: String, token: String?, logger: Logger, drainTimeoutSeconds: Double = 5,
                backoffCap: Duration = WebhookRetryRules.maximumBackoff, clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now) {
        self.source = source
        self.logger = logger
        (self.drainTimeoutSeconds, self.backoffCap) = (drainTimeoutSeconds, backoffCap)
        self.clock = clock
        codeEncoder = IdentifiedCodeEncoder(prefix: SourceName.of(source) + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 16))
        let headers = Self.headers(settings, token: token)
        let endpoints = Self.unique(settings.urls).map {
            WebhookEndpoint(url: $0, settings: settings, headers: headers, drainTimeoutSeconds: drainTimeoutSeconds,
                            backoffCap: backoffCap, logger: logger)
        }
        state = LockedValue(State(settings: settings, headers: headers, active: endpoints))
    }

    /// Content-Type, `settings.headers` and the token's `Authorization`.
    private static func headers(_ settings: WebhookSettings, token: String?) -> [String] {
        ["Content-Type: application/json"] + settings.headers + (token.map { ["Authorization: Bearer \($0)"] } ?? [])
    }

    /// `urls` without repeats, in order.
    private static func unique(_ urls: [String]) -> [String] {
        var seen = Set<String>()
        return urls.filter { seen.insert($0).inserted }
    }

    public func start() {
        let endpoints = state.withLock { state in
            state.started = true
            return state.active
        }
        endpoints.forEach { $0.start() }
    }

    public func handle(_ code: inout DeliveredCode) throws {
        let (id, payload) = codeEncoder.encode(code, source: source, time: clock())
        give(OutboxMessage(key: id, payload: payload, kind: .code))
    }

    /// Hands a read window's result to every endpoint: the stdout `read_result` object with
    /// `"id": "<source>-<run>-window-<N>"` last, a message as a code's (spooled, retried, counted).
    public func readResult(_ result: inout ReadResult) throws {
        let id = "\(codeEncoder.prefix)-window-\(result.window)"
        var payload = JSONLineEncoder().encode(result: result, source: source, time: clock())
        payload.removeLast(2)  // `}\n`
        payload += Array(",\"id\":".utf8) + JSONLineEncoder.quoted(id) + [UInt8(ascii: "}")]
        give(OutboxMessage(key: id, payload: payload, kind: .code))
    }

    /// Gives `message` to every endpoint in use.
    private func give(_ message: OutboxMessage) {
        // An endpoint a reload closed meanwhile refuses the code: the reload's endpoints then get it.
        var given: [ObjectIdentifier] = []
        while true {
            let endpoints = state.withLock { $0.active }.filter { !given.contains(ObjectIdentifier($0)) }
            var refused = false
            for endpoint in endpoints {
                if endpoint.add(message) { given.append(ObjectIdentifier(endpoint)) } else { refused = true }
            }
            if !refused { return }
        }
    }

    /// Applies reloaded settings and token in place (see the type's description); nothing when they did not change.
    /// - Parameter keepingToken: the running `Authorization` is kept (the token file could not be read again).
    public func apply(_ settings: WebhookSettings, token: String? = nil, keepingToken: Bool = false) {
        let urls = Self.unique(settings.urls)
        let change = state.withLock { state -> (kept: [WebhookEndpoint], added: [WebhookEndpoint], removed: [WebhookEndpoint], started: Bool,
                                                headers: [String])? in
            let running = state.headers.filter { $0.hasPrefix("Authorization: ") }
            let headers = keepingToken ? Self.headers(settings, token: nil) + running : Self.headers(settings, token: token)
            guard !state.finished, settings != state.settings || headers != state.headers else { return nil }
            let removed = state.active.filter { !urls.contains($0.url) }
            var (kept, added) = ([WebhookEndpoint](), [WebhookEndpoint]())
            state.active = urls.map { url in
                if let endpoint = state.active.first(where: { $0.url == url }) {
                    kept.append(endpoint)
                    return endpoint
                }
                let name = WebhookEndpoint.spoolFileName(for: url)
                let predecessor = (state.retired + removed).last { $0.spoolFileName == name }
                let endpoint = WebhookEndpoint(url: url, settings: settings, headers: headers, drainTimeoutSeconds: drainTimeoutSeconds,
                                               backoffCap: backoffCap, predecessor: predecessor, logger: logger)
                added.append(endpoint)
                return endpoint
            }
            state.retired += removed
            (state.settings, state.headers) = (settings, headers)
            return (kept, added, removed, state.started, headers)
        }
        guard let change else { return }
        for endpoint in change.kept { endpoint.apply(settings, headers: change.headers) }
        for endpoint in change.removed { endpoint.close(removed: true) }
        if change.started { change.added.forEach { $0.start() } }
        logger.notice("webhook settings reloaded in place", metadata: [
            "urls": "\(LogText.untrusted(urls.map(WebhookSettings.redacted).joined(separator: ","), limit: LogText.errorLimit))",
            "added": "\(change.added.count)", "removed": "\(change.removed.count)"])
    }

    /// Waits for every endpoint, those a reload closed too, to deliver or spool what it holds (see `WebhookEndpoint.finish`).
    public func finish() throws {
        let endpoints = state.withLock { state in
            state.finished = true
            state.retired += state.active
            state.active = []
            return state.retired
        }
        endpoints.forEach { $0.finish() }
    }

    /// Every endpoint: those a reload closed, then those in use.
    private var allEndpoints: [WebhookEndpoint] { state.withLock { $0.retired + $0.active } }

    /// Codes the receivers answered with a 2xx (every endpoint's).
    public var delivered: Int { allEndpoints.reduce(0) { $0 + $1.counts.outbox.delivered } }

    public var counters: [ResultsCounter] {
        let endpoints = allEndpoints
        let all = endpoints.map(\.counts)
        let queued = all.reduce(0) { $0 + $1.outbox.memory }
        // A spool file a later endpoint took over (its URL back after a reload) is counted once, by that one.
        let spooled = endpoints.indices.filter { i in !endpoints[(i + 1)...].contains { $0.spoolFileName == endpoints[i].spoolFileName } }
            .reduce(0) { $0 + all[$1].outbox.spooled }
        func sum(_ value: (WebhookEndpoint.Counts) -> Int) -> Int { all.reduce(0) { $0 + value($1) } }
        var failures: [Int: Int] = [:]
        for counts in all { failures.merge(counts.failures, uniquingKeysWith: +) }
        return [
            ResultsCounter(name: "webhook_delivered", help: "Codes the webhook receivers answered with a 2xx.", value: sum(\.outbox.delivered)),
            ResultsCounter(name: "webhook_retried", help: "Codes in webhook requests that failed for a while (5xx, 408, 429, no answer) and are sent again.",
                           value: sum(\.retried)),
            ResultsCounter(name: "webhook_queued", metric: "webhook_queued_codes", help: "Codes waiting in memory for the webhook receivers.",
                           kind: .gauge, value: queued),
            ResultsCounter(name: "webhook_spooled", metric: "webhook_spooled_codes", help: "Codes waiting in the spool files for the webhook receivers.",
                           kind: .gauge, value: spooled),
            ResultsCounter(name: "webhook_dropped", help: "Codes dropped before a webhook receiver took them: past the memory queue and the spool.",
                           value: sum(\.outbox.dropped)),
            ResultsCounter(name: "webhook_failed", help: "Codes a webhook receiver refused for good (a 4xx other than 408 and 429): not sent again.",
                           value: failures.values.reduce(0, +)),
        ] + failures.keys.sorted().map { status in
            ResultsCounter(name: "webhook_failed_\(status)", help: "Codes a webhook receiver refused for good with HTTP \(status).",
                           value: failures[status]!)
        }
    }
}
