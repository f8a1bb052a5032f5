import Capture
import Foundation
import Logging
import Media
import MQTT

/// Publishes each emitted code to an MQTT broker (`<prefix>/codes`), the service's status
/// (`<prefix>/status`, retained; the Last Will says `offline`) and its counters
/// (`<prefix>/stats`).
///
/// A `codes` message is the code's stdout JSON object plus `"id": "<run>-<frame seq>-<index>"`,
/// the same on every retry, so at-least-once delivery can be deduplicated downstream.
/// The broker connection lives on the handler's own thread (`syncscan-mqtt`) behind a bounded
/// queue: a message leaves the queue only when the broker acknowledged it (PUBACK at QoS 1);
/// while the broker is unreachable messages wait, and after a reconnect (0.5 s doubling to 30 s)
/// the unacknowledged ones are published again, in order. A full queue drops its oldest message
/// and counts it; with `.wait` (a file source) `handle` waits instead while the broker is
/// connected. Failures are logged once per kind with the URL and what to do; they never stop
/// capture or stdout.
public final class MQTTResultsHandler: ResultsHandler, @unchecked Sendable {
    /// One message in the queue.
    private struct Entry {
        let sequence: UInt64
        let message: MQTTConnection.Message
        let isCode: Bool
        var state: State
    }

    private enum State: Equatable { case pending, sent(mid: Int32), acknowledged }

    public let settings: MQTTSettings
    public let topicPrefix: String
    private let connectionOptions: MQTTConnection.Options
    private let logger: Logger
    private let encoder = JSONLineEncoder()
    private let source: String
    private let runID: String
    private let clock: @Sendable () -> WallClockTime
    private let condition = NSCondition()
    private var queue: [Entry] = []
    private var queueHead = 0
    private var nextSequence: UInt64 = 0
    private var overflow: LineWriter.OverflowPolicy
    private var connected = false
    private var online = false
    private var closed = false
    private var finished = false
    private var counts = (published: 0, dropped: 0, failed: 0)
    /// Frame of the last code `handle` saw and the codes of it so far (for ids); `handle` only.
    private var lastFrame: (sequence: UInt64, index: Int)?

    /// Seconds `finish` waits for the broker to take what is queued before giving up.
    public var drainTimeoutSeconds = 5.0

    /// - Parameters:
    ///   - source: the source URI (the `source` field, and the default topic prefix's last part).
    ///   - hostname: the default topic prefix's middle part.
    ///   - password: read from `settings.passwordFile` by the caller.
    public init(settings: MQTTSettings, source: String, hostname: String, password: String?, logger: Logger,
                overflow: LineWriter.OverflowPolicy = .wait, clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now) {
        self.settings = settings
        self.source = source
        self.logger = logger
        self.overflow = overflow
        self.clock = clock
        let name = MQTTSettings.sourceName(source)
        let prefix = settings.topicPrefix ?? "syncscan/\(hostname)/\(name)"
        topicPrefix = prefix
        runID = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        var options = MQTTConnection.Options(host: settings.url.host, port: settings.url.port)
        options.clientID = settings.clientID ?? "syncscan-\(hostname)-\(name)"
        options.keepaliveSeconds = settings.keepaliveSeconds
        options.username = settings.username
        options.password = password
        options.caFile = settings.url.tls ? settings.caFile : nil
        options.will = MQTTConnection.Message(topic: prefix + "/status", payload: Array("offline".utf8), qos: settings.qos, retain: true)
        connectionOptions = options
        let thread = Thread { [self] in self.run() }
        thread.name = "syncscan-mqtt"
        thread.start()
    }

    /// Changes what a full queue does from now on.
    public func setOverflowPolicy(_ policy: LineWriter.OverflowPolicy) {
        condition.withLock { overflow = policy; condition.broadcast() }
    }

    /// Messages the broker acknowledged.
    public var published: Int { condition.withLock { counts.published } }
    /// Messages dropped: the queue was full (oldest first) or the broker was gone at exit.
    public var dropped: Int { condition.withLock { counts.dropped } }
    /// Messages waiting for the broker now.
    public var queued: Int { condition.withLock { queue.count - queueHead } }
    /// Whether the broker connection is up now.
    public var isConnected: Bool { condition.withLock { connected } }

    /// Publishes retained `online` now (the source streams) and after every reconnect.
    public func markOnline() {
        condition.withLock {
            guard !online else { return }
            online = true
            enqueueLocked(MQTTConnection.Message(topic: topicPrefix + "/status", payload: Array("online".utf8), qos: settings.qos, retain: true))
        }
    }

    /// Queues `payload` (the counters as a JSON object) on `<prefix>/stats`.
    public func publishStats(_ payload: [UInt8]) {
        condition.withLock {
            enqueueLocked(MQTTConnection.Message(topic: topicPrefix + "/stats", payload: payload, qos: settings.qos))
        }
    }

    public func handle(_ code: inout DeliveredCode) throws {
        let frame = code.code.frame.sequenceNumber
        let index = lastFrame.map { $0.sequence == frame ? $0.index + 1 : 0 } ?? 0
        lastFrame = (frame, index)
        let id = "\(runID)-\(frame)-\(index)"
        var payload = encoder.encode(code.code, source: source, time: clock(), fields: code.fields)
        // The stdout object plus "id": `…}\n` becomes `…,"id":"ID"}`.
        payload.removeLast(2)
        payload.append(contentsOf: Array(",\"id\":\"\(id)\"}".utf8))
        let message = MQTTConnection.Message(topic: topicPrefix + "/codes", payload: payload, qos: settings.qos)
        condition.lock(); defer { condition.unlock() }
        while overflow == .wait && connected && !closed && queue.count - queueHead >= max(1, settings.queueMessages) {
            condition.wait()
        }
        enqueueLocked(message, isCode: true)
    }

    /// Publishes `offline` (retained), waits up to `drainTimeoutSeconds` for the broker to take
    /// what is queued, disconnects cleanly and stops the thread; safe to call more than once.
    public func finish() throws {
        condition.lock(); defer { condition.unlock() }
        if !closed {
            enqueueLocked(MQTTConnection.Message(topic: topicPrefix + "/status", payload: Array("offline".utf8), qos: settings.qos, retain: true))
            closed = true
            condition.broadcast()
        }
        while !finished { condition.wait() }
    }

    /// Appends `message`; a full queue drops its oldest first (counted). Holds the lock.
    private func enqueueLocked(_ message: MQTTConnection.Message, isCode: Bool = false) {
        if queue.count - queueHead >= max(1, settings.queueMessages) {
            queueHead += 1
            counts.dropped += 1
        }
        queue.append(Entry(sequence: nextSequence, message: message, isCode: isCode, state: .pending))
        nextSequence += 1
        condition.broadcast()
    }

    // MARK: - The handler's thread

    /// The handler's thread: connects, publishes in order, reconnects with backoff, until finished.
    private func run() {
        var connection: MQTTConnection?
        var reported: Set<String> = []
        var backoff = 0.5
        var nextAttempt = ContinuousClock.now
        var deadline: ContinuousClock.Instant?
        var refused = false
        /// Message ids of this connection → queue sequence numbers.
        var inflight: [Int32: UInt64] = [:]

        func reportOnce(_ error: MQTTError) {
            guard reported.insert(error.kind).inserted else {
                logger.debug("MQTT broker connection failed again", metadata: ["url": "\(settings.url)", "error": "\(error)"])
                return
            }
            logger.error("MQTT broker connection failed; codes wait in memory and stdout goes on; retrying", metadata: [
                "url": "\(settings.url)", "error": "\(error)", "later": "further \(error.kind) failures are logged at debug level"])
        }

        func lost(_ error: MQTTError?) {
            connection = nil
            inflight.removeAll()
            condition.withLock {
                let wasConnected = connected
                connected = false
                for i in queueHead..<queue.count where queue[i].state != .acknowledged { queue[i].state = .pending }
                condition.broadcast()
                if wasConnected { backoff = 0.5 }
            }
            if let error { reportOnce(error) }
            nextAttempt = ContinuousClock.now + .milliseconds(Int(backoff * 1000))
            backoff = min(30, backoff * 2)
        }

        while true {
            let (isClosed, empty) = condition.withLock { (closed, queue.count == queueHead) }
            if isClosed {
                if deadline == nil { deadline = ContinuousClock.now + .milliseconds(Int(drainTimeoutSeconds * 1000)) }
                if empty || ContinuousClock.now >= deadline! {
                    // A clean DISCONNECT (the broker then discards the Will), written before the socket closes.
                    if let client = connection {
                        client.disconnect()
                        _ = client.loop(timeoutMilliseconds: 10)
                    }
                    break
                }
            }
            guard let client = connection else {
                if ContinuousClock.now < nextAttempt {
                    condition.withLock { _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05)) }
                    continue
                }
                switch MQTTConnection.connect(connectionOptions) {
                case .success(let c): connection = c
                case .failure(let error): lost(error)
                }
                continue
            }
            // Publish what is pending, in order, up to a window of unacknowledged messages.
            let toSend: [(UInt64, MQTTConnection.Message)] = condition.withLock {
                guard connected else { return [] }
                var batch: [(UInt64, MQTTConnection.Message)] = []
                var i = queueHead
                while i < queue.count && inflight.count + batch.count < 100 {
                    if queue[i].state == .pending { batch.append((queue[i].sequence, queue[i].message)) }
                    i += 1
                }
                return batch
            }
            var failure: MQTTError?
            var sent: [(UInt64, Int32)] = []
            for (sequence, message) in toSend {
                switch client.publish(message) {
                case .success(let mid): sent.append((sequence, mid)); inflight[mid] = sequence
                case .failure(let error): failure = error
                }
                if failure != nil { break }
            }
            if !sent.isEmpty {
                condition.withLock {
                    for (sequence, mid) in sent {
                        if let i = index(of: sequence) { queue[i].state = .sent(mid: mid) }
                    }
                }
            }
            if let failure { lost(failure); continue }
            let (events, loopFailure) = client.loop(timeoutMilliseconds: 50)
            for event in events {
                switch event {
                case .connected:
                    backoff = 0.5
                    condition.withLock {
                        connected = true
                        condition.broadcast()
                    }
                    // A retained `online` first on every new connection once streaming.
                    if condition.withLock({ online && !closed }) {
                        _ = client.publish(MQTTConnection.Message(topic: topicPrefix + "/status", payload: Array("online".utf8),
                                                                  qos: settings.qos, retain: true))
                    }
                    if !reported.isEmpty {
                        logger.notice("MQTT broker connected", metadata: ["url": "\(settings.url)"])
                        reported.removeAll()
                    }
                case .refused(let error):
                    reportOnce(error)
                    refused = true
                case .published(let mid):
                    guard let sequence = inflight.removeValue(forKey: mid) else { continue }
                    condition.withLock {
                        if let i = index(of: sequence) { queue[i].state = .acknowledged }
                        while queueHead < queue.count && queue[queueHead].state == .acknowledged {
                            if queue[queueHead].isCode { counts.published += 1 }
                            queueHead += 1
                        }
                        if queueHead > 256 && queueHead * 2 > queue.count { queue.removeFirst(queueHead); queueHead = 0 }
                        condition.broadcast()
                    }
                case .disconnected(let error):
                    lost(error ?? MQTTError(call: "connection", code: 7, reason: "The connection was lost."))
                }
            }
            if connection == nil { continue }
            if let loopFailure { lost(refused ? nil : loopFailure); refused = false }
        }
        connection = nil
        condition.withLock {
            let left = queue[queueHead...].filter(\.isCode).count
            if left > 0 {
                counts.dropped += left
                logger.error("MQTT messages not delivered at exit: the broker did not take them in time", metadata: [
                    "url": "\(settings.url)", "messages": "\(left)"])
            }
            queue.removeAll()
            queueHead = 0
            finished = true
            condition.broadcast()
        }
    }

    /// The queue index of `sequence`, if still queued (sequences increase along the queue). Holds the lock.
    private func index(of sequence: UInt64) -> Int? {
        var low = queueHead, high = queue.count
        while low < high {
            let mid = (low + high) / 2
            if queue[mid].sequence < sequence { low = mid + 1 } else { high = mid }
        }
        return low < queue.count && queue[low].sequence == sequence ? low : nil
    }
}
