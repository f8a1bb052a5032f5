import Foundation
import HTTPClient
import Logging
import Outbox
import SystemCalls
import SystemPackage

/// One webhook URL's delivery: its own thread (`syncscan-hook`) POSTing the codes handed to
/// it, in order, through one `HTTPPoster`, with `WebhookRetryRules` deciding what an answer means.
///
/// The codes wait in a `DurableOutbox` (a code being a message whose key is its idempotency key
/// and whose payload is its body): memory first, then the spool file, the oldest dropped and
/// counted past both; at exit what was not delivered joins the spool, and the next run sends it
/// first with the same keys. A reload changes the settings in place (`apply`): the thread takes
/// them between requests, moving what waits into a new outbox when the bounds or the spool
/// change; an endpoint whose URL a reload removes is closed as at exit, and one made for a URL
/// whose spool file an older endpoint still holds starts once that one has finished. No lock is
/// held during a request: `add`, `apply` and the counters share only `Shared` with the thread.
final class WebhookEndpoint: Sendable {
    struct Counts: Sendable {
        /// Delivered (a 2xx), waiting in memory or the spool, dropped.
        var outbox = OutboxIntake.Counts()
        /// Codes in requests that were retried (a code retried twice counts twice).
        var retried = 0
        /// Codes refused for good, by HTTP status.
        var failures: [Int: Int] = [:]
    }

    private struct Shared {
        /// The codes handed over and the outbox's counters.
        var intake = OutboxIntake()
        /// The intake's bound: `webhook.queue_messages`.
        var bound: Int
        /// Settings and headers from a reload, not yet taken by the thread.
        var update: (settings: WebhookSettings, headers: [String])?
        /// Closed by a reload that removed the URL (not by the service's exit): what the logs say.
        var removed = false
        /// The thread's, published with the outbox's counters (`publish`).
        var requests = RequestCounts()
    }

    /// What the thread counts of its requests (the outbox counts where the other codes are).
    private struct RequestCounts {
        /// Codes the receiver answered with a 2xx (the outbox's `delivered` counts those refused for good too).
        var delivered = 0
        /// Codes in requests that were retried (a code retried twice counts twice).
        var retried = 0
        /// Codes refused for good, by HTTP status.
        var failures: [Int: Int] = [:]
    }

    let url: String
    /// The spool's file name in `webhook.spool_directory`: one per URL.
    let spoolFileName: String
    /// The settings the thread starts with (a reload's come through `Shared.update`).
    private let initialSettings: WebhookSettings
    /// Content-Type, the configured headers and the token's `Authorization`: never logged.
    private let initialHeaders: [String]
    /// An endpoint a reload closed that holds the same spool file: the thread waits for it to finish first.
    private let predecessor: WebhookEndpoint?
    private let logger: Logger
    private let shared: LockedValue<Shared>
    /// Seconds `finish` waits for the receiver to take what is queued before spooling or dropping it.
    let drainTimeoutSeconds: Double
    /// The backoff's cap (`WebhookRetryRules.maximumBackoff`; tests shorten it).
    let backoffCap: Duration

    init(url: String, settings: WebhookSettings, headers: [String], drainTimeoutSeconds: Double, backoffCap: Duration,
         predecessor: WebhookEndpoint? = nil, logger: Logger) {
        (self.url, initialSettings, initialHeaders, self.drainTimeoutSeconds) = (url, settings, headers, drainTimeoutSeconds)
        spoolFileName = Self.spoolFileName(for: url)
        self.backoffCap = backoffCap
        self.predecessor = predecessor
        self.logger = logger
        shared = LockedValue(Shared(bound: max(1, settings.queueMessages)))
    }

    /// `webhook-<host_port_path>.webhook-spool` (the URL without scheme, any password redacted).
    static func spoolFileName(for url: String) -> String {
        let shown = WebhookSettings.redacted(url)
        return SpoolFile.fileName(for: "webhook-" + (shown.range(of: "://").map { String(shown[$0.upperBound...]) } ?? shown), owner: .webhook)
    }

    private var shownURL: String { WebhookSettings.redacted(url) }

    /// The counts, read under one lock: `memory` holds the codes handed to the thread too, so at
    /// every moment codes added = delivered + failures + memory + spooled + dropped.
    var counts: Counts {
        shared.withLock { Counts(outbox: $0.intake.current, retried: $0.requests.retried, failures: $0.requests.failures) }
    }

    /// Hands a code to the thread; `false` once the endpoint is closed (the code is not taken).
    /// Should the thread fall behind by a whole queue, the oldest waiting code is dropped and counted.
    @discardableResult
    func add(_ code: OutboxMessage) -> Bool {
        let taken = shared.withLock { shared in
            guard !shared.intake.closed else { return false }
            shared.intake.add(code, limit: shared.bound)
            return true
        }
        shared.broadcast()
        return taken
    }

    /// New settings and headers (a reload): the thread applies them before its next request.
    func apply(_ settings: WebhookSettings, headers: [String]) {
        shared.withLock { shared in
            shared.update = (settings, headers)
            shared.bound = max(1, settings.queueMessages)
        }
        shared.broadcast()
    }

    /// Starts the thread (once).
    func start() {
        guard shared.withLock({ $0.intake.claimStart() }) else { return }
        startThread(name: "syncscan-hook") { [self] in run() }
    }

    /// Closes the endpoint without waiting: from now on `add` takes nothing, and the thread
    /// delivers, spools or drops what it holds as at exit (`finish`), then ends.
    /// - Parameter removed: a reload removed the URL (what the logs say), rather than the service stopping.
    func close(removed: Bool) {
        shared.withLock { shared in
            if !shared.intake.closed { shared.removed = removed }
            shared.intake.closed = true
        }
        shared.broadcast()
    }

    /// Waits up to `drainTimeoutSeconds` for the receiver to take what is queued (with a spool,
    /// not while it does not answer), spools the rest and stops the thread; safe to call more than once.
    func finish() {
        start()
        close(removed: false)
        waitUntilFinished()
    }

    /// Blocks until the thread has ended (after `close` or `finish`).
    func waitUntilFinished() {
        shared.withLock(when: { $0.intake.finished }) { _, _ in }
    }

    // MARK: - The endpoint's thread

    private func run() {
        // An endpoint a reload closed may still hold this URL's spool file: one owner at a time
        // (`finish` starts its thread too, should the handler never have started).
        predecessor?.finish()
        var (settings, headers) = (initialSettings, initialHeaders)
        var spoolLog = SpoolEventLog(owner: .webhook)
        var outbox = openOutbox(settings)
        spoolLog.report(outbox.takeSpoolEvents(), metadata: ["url": "\(LogText.untrusted(shownURL))"], logger: logger)
        /// Codes the outboxes before a reload's new one dropped.
        var droppedEarlier = 0
        var poster: HTTPPoster?
        /// After a failed request, how many codes it carried: the retry sends the same ones (the same Idempotency-Key).
        var retryBatch: Int?
        var failuresInARow = 0
        /// The last failed attempt got no answer (refused, timed out): the receiver is away, not busy.
        var receiverAway = false
        var nextAttempt = ContinuousClock.now
        var deadline: ContinuousClock.Instant?
        var batchWaitStarted = false
        var failingKinds = Set<String>()
        var refusedStatuses = Set<Int>()
        var lastID: Int32 = 0
        var counts = RequestCounts()

        while true {
            let (newCodes, closed, update) = shared.withLock { shared in
                defer { shared.update = nil }
                // Counted in memory until `publish` says where `place` put them.
                return (shared.intake.take(), shared.intake.closed, shared.update)
            }
            if let update {
                if update.settings.caFile != settings.caFile || update.settings.timeoutSeconds != settings.timeoutSeconds { poster = nil }
                if (update.settings.queueMessages, update.settings.spoolDirectory, update.settings.spoolMaxBytes)
                    != (settings.queueMessages, settings.spoolDirectory, settings.spoolMaxBytes) {
                    // What waits (memory, then the spool) moves, in order, into an outbox with the new bounds and spool.
                    let (waiting, failure) = outbox.takeAll()
                    if let failure {
                        logger.error("webhook spool failed at a reload; the codes it still holds stay in its file, read again when it is opened",
                                     metadata: ["url": "\(LogText.untrusted(shownURL))", "error": "\(LogText.error(failure))"])
                    }
                    droppedEarlier += outbox.dropped
                    outbox = DurableOutbox(bound: 1, spool: nil)  // the old spool's file closed before the new one opens
                    outbox = openOutbox(update.settings)
                    outbox.place(waiting)
                }
                (settings, headers) = update
            }
            outbox.place(newCodes)
            spoolLog.report(outbox.takeSpoolEvents(), metadata: ["url": "\(LogText.untrusted(shownURL))"], logger: logger)
            publish(counts, outbox, droppedBefore: droppedEarlier)
            let now = ContinuousClock.now
            if closed {
                if deadline == nil { deadline = now + .milliseconds(Int(drainTimeoutSeconds * 1000)) }
                // With a spool, an absent receiver is not waited for (the spool keeps the codes for the
                // next run); one that answers (a 503, a 429's Retry-After) is, up to the deadline.
                if outbox.isDrained || now >= deadline! || (outbox.spool != nil && failuresInARow > 0 && receiverAway) { break }
            }
            if now < nextAttempt {
                waitForNews(wasClosed: closed, until: min(nextAttempt, deadline ?? nextAttempt))
                continue
            }
            if settings.batchMax > 1, settings.batchWaitMilliseconds > 0, !closed, !batchWaitStarted, retryBatch == nil,
               outbox.memoryCount < settings.batchMax, outbox.spooledCount == 0, outbox.memoryCount > 0 {
                // The first code of a batch waits for others, up to webhook.batch_wait_ms.
                batchWaitStarted = true
                let (needed, until) = (settings.batchMax - outbox.memoryCount, now + .milliseconds(settings.batchWaitMilliseconds))
                shared.withLock(when: { $0.intake.waiting.count >= needed || $0.intake.closed }, deadline: until) { _, _ in }
                continue
            }
            var batch: [(id: Int32, message: OutboxMessage)] = []
            _ = outbox.publishPending(window: retryBatch ?? max(1, settings.batchMax)) { message -> Result<Int32, Never> in
                lastID &+= 1
                batch.append((lastID, message))
                return .success(lastID)
            }
            guard !batch.isEmpty else {
                waitForNews(wasClosed: closed, until: deadline ?? now + .seconds(1))
                continue
            }
            batchWaitStarted = false
            if poster == nil {
                switch HTTPPoster.make(caFile: settings.caFile, timeoutSeconds: settings.timeoutSeconds) {
                case .success(let p): poster = p
                case .failure(let error):
                    logger.error("webhook client cannot be made; codes wait", metadata: ["url": "\(LogText.untrusted(shownURL))", "error": "\(LogText.error(error))"])
                }
            }
            let result: Result<HTTPPoster.Response, HTTPClientError> = poster.map { poster in
                // With batching on, every request is an array, one code's too (a batch that waited
                // out webhook.batch_wait_ms alone): a receiver of batches reads one shape.
                let body = batch.count == 1 && settings.batchMax == 1 ? batch[0].message.payload
                    : Array("[".utf8) + Array(batch.map(\.message.payload).joined(separator: Array(",".utf8))) + Array("]".utf8)
                let key = batch.map(\.message.key).joined(separator: ", ")
                return poster.post(url: url, body: body, headers: headers + ["Idempotency-Key: \(key)"])
            } ?? .failure(HTTPClientError(call: "curl_easy_init", code: 2, reason: "no client"))
            switch WebhookRetryRules.outcome(of: result) {
            case .delivered:
                for sent in batch { outbox.acknowledge(sent.id) }
                counts.delivered += batch.count
                (failuresInARow, retryBatch) = (0, nil)
                if !failingKinds.isEmpty {
                    logger.notice("webhook delivers again", metadata: ["url": "\(LogText.untrusted(shownURL))", "waiting": "\(outbox.memoryCount + outbox.spooledCount)"])
                    failingKinds.removeAll()
                }
            case .permanentFailure(let status):
                for sent in batch { outbox.acknowledge(sent.id) }
                counts.failures[status, default: 0] += batch.count
                retryBatch = nil
                if refusedStatuses.insert(status).inserted {
                    logger.error("webhook receiver refused codes for good; they are counted and not sent again (logged once per status)",
                                 metadata: ["url": "\(LogText.untrusted(shownURL))", "status": "\(status)", "codes": "\(batch.count)",
                                            "fix": "check webhook.url, webhook.headers and webhook.token_file against the receiver"])
                }
            case .retry(let after, let reason):
                outbox.connectionLost()
                counts.retried += batch.count
                failuresInARow += 1
                retryBatch = batch.count
                if case .failure = result { receiverAway = true } else { receiverAway = false }
                let wait = after ?? WebhookRetryRules.backoff(failures: failuresInARow, cap: backoffCap)
                nextAttempt = ContinuousClock.now + wait
                if failingKinds.insert(reason).inserted {
                    var metadata: Logger.Metadata = ["url": "\(LogText.untrusted(shownURL))", "reason": "\(LogText.untrusted(reason))", "retry_in": "\(wait)"]
                    if case .failure(let error) = result { metadata["error"] = "\(LogText.error(error))" }
                    logger.warning("webhook delivery failed; codes wait and are sent again (logged once per kind)", metadata: metadata)
                }
            }
        }
        poster = nil
        let removed = shared.withLock { $0.removed }
        let lostAtExit = outbox.closeForExit()
        for case .failed(let error) in outbox.takeSpoolEvents() {
            logger.error(removed ? "webhook spool failed when a reload removed the URL" : "webhook spool failed at exit",
                         metadata: ["url": "\(LogText.untrusted(shownURL))", "error": "\(LogText.error(error))"])
        }
        if let spool = outbox.spool, spool.count > 0 {
            logger.notice(removed ? "webhook codes the receiver has not taken are spooled until webhook.url names it again"
                                  : "webhook codes the receiver has not taken are spooled for the next run", metadata: [
                "url": "\(LogText.untrusted(shownURL))", "file": "\(LogText.untrusted(spool.path))", "codes": "\(spool.count)"])
        }
        if lostAtExit > 0 {
            logger.error(removed ? "webhook codes not delivered when a reload removed the URL: the receiver did not take them in time and no spool kept them"
                                 : "webhook codes not delivered at exit: the receiver did not take them in time and no spool kept them", metadata: [
                "url": "\(LogText.untrusted(shownURL))", "codes": "\(lostAtExit)",
                "fix": settings.spoolDirectory == nil ? "set webhook.spool_directory" : "the spool could not take them: see the spool's error above"])
        }
        publish(counts, outbox, droppedBefore: droppedEarlier + lostAtExit, finished: true)
        shared.broadcast()
    }

    /// Waits for a new code, a reload's settings, `finish`, or `until`.
    private func waitForNews(wasClosed: Bool, until: ContinuousClock.Instant) {
        shared.withLock(when: { !$0.intake.waiting.isEmpty || $0.update != nil || ($0.intake.closed && !wasClosed) }, deadline: until) { _, _ in }
    }

    /// Publishes the thread's counters to the accessors, under one lock with the outbox's.
    private func publish(_ counts: RequestCounts, _ outbox: DurableOutbox, droppedBefore: Int, finished: Bool = false) {
        shared.withLock { shared in
            shared.intake.record(outbox, delivered: counts.delivered, droppedBefore: droppedBefore)
            shared.requests = counts
            if finished { shared.intake.finished = true }
        }
    }

    /// The outbox, over the spool file (`webhook.spool_directory`, one per URL) when one is set:
    /// opened now, and again while it fails to open (its failures are the outbox's spool events).
    private func openOutbox(_ settings: WebhookSettings) -> DurableOutbox {
        let bound = max(1, settings.queueMessages)
        guard let directory = settings.spoolDirectory else { return DurableOutbox(bound: bound, spool: nil) }
        let (name, maxBytes, logger, shownURL) = (spoolFileName, settings.spoolMaxBytes, logger, shownURL)
        return DurableOutbox(bound: bound, openingSpool: {
            SpoolFile.open(directory: FilePath(directory), fileName: name, owner: .webhook, maxBytes: maxBytes, logger: logger).map { spool in
                if !spool.isEmpty {
                    logger.notice("webhook codes spooled by an earlier run are delivered first", metadata: [
                        "url": "\(LogText.untrusted(shownURL))", "file": "\(LogText.untrusted(spool.path))", "codes": "\(spool.count)"])
                }
                return spool
            }
        })
    }
}
