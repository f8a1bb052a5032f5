import Capture
import Foundation
import Logging
import Media
import MQTT
import Outbox
import SystemCalls
import SystemPackage

/// Publishes each emitted code to an MQTT broker (`<prefix>/codes`), the service's status
/// (`<prefix>/status`, retained; the Last Will says `offline`) and its counters
/// (`<prefix>/stats`); on every connect, Home Assistant's discovery configs (`HomeAssistantDiscovery`:
/// the configs with `mqtt.homeassistant.discovery`, else empty payloads that remove them).
///
/// A `codes` message is the code's stdout JSON object plus `"id": "<run>-<frame seq>-<index>"`,
/// the same on every retry, so at-least-once delivery can be deduplicated downstream. With
/// `mqtt.topic_by_ai`, a code with a GS1 element of that AI goes to `<prefix>/gs1/<ai>/<value>`
/// instead (`MQTTGS1Topic`): still one message per code, counted and spooled as any. An item
/// that leaves is its `item_removed` object plus `"id": "<run>-item-<item>"` on `<prefix>/items`;
/// with Home Assistant discovery on, an item's first reading and its leaving are also `added` and
/// `removed` events on `<prefix>/item_events` (`MQTTItemMessages`). Items' messages go through the
/// same queue, in order with the codes, but are not codes: never spooled (the spool holds codes,
/// its count is `mqtt_spooled`), and counted apart when dropped (`mqtt_items_dropped`). A code that
/// did not match `match.*` (`DeliveredCode.match` false) is also published on `<prefix>/mismatch`,
/// its `codes` object again, after it and in order, as items' messages are (not spooled, counted
/// with them when dropped): the code itself is on `codes`, spooled as every code.
/// The broker connection lives on the handler's own thread (`syncscan-mqtt`). `handle` only
/// hands a message to that thread and wakes it (a `WakeSignal` its poll watches beside the
/// broker's socket), so a code is published at once; the thread keeps up to `queueMessages` in memory, in order,
/// and a message leaves only when the broker acknowledged it (PUBACK at QoS 1). While the broker
/// is unreachable, codes past the memory queue go to the spool file (`DurableOutbox`, `SpoolFile`, up to
/// `spoolMaxBytes`), and at exit the codes still in memory join them there, so the next run
/// delivers them first; past the bounds the oldest codes are dropped and counted. After a
/// reconnect (0.5 s doubling to 30 s) unacknowledged messages are published again, in order.
/// With `mqtt.trigger` it subscribes to `<prefix>/trigger` (QoS 1) on every connection, and the
/// messages there press and release the scan's trigger (`MQTTTriggerInput`) on the same thread.
/// With `.wait` (a file source) `handle` waits for room while the broker is connected. Failures
/// are logged once per kind with the URL and what to do; they never stop capture or stdout.

public final class MQTTResultsHandler: ResultsHandler, ServiceHooks, CountsReporting, @unchecked Sendable {  // unchecked: `codeEncoder` is the delivery thread's alone; `drainTimeoutSeconds` is set before `start()`; the rest is behind `shared`'s lock
    public let settings: MQTTSettings
    public let topicPrefix: String
    let connectionOptions: MQTTConnection.Options
    let logger: Logger
    private let source: String
    private let clock: @Sendable () -> WallClockTime
    /// Home Assistant's discovery configs, or their removals: published first on every connection.
    private let discoveryMessages: [MQTTConnection.Message]
    /// Signalled by `wakeThread` (after the lock is released), drained by the thread before it takes the intake.
    private let wake: WakeSignal?
    /// What `handle` and the accessors share with the handler's thread (`MQTTHandlerShared`).
    let shared: LockedValue<MQTTHandlerShared>
    /// The codes' objects with their ids (`<run>-<frame seq>-<index>`); `handle` only.
    private var codeEncoder: IdentifiedCodeEncoder
    /// The run's part of message ids (`codeEncoder`'s prefix, and items' `<run>-item-<item>`).
    private let runID: String
    /// Whether items' `added` and `removed` events go to `<prefix>/item_events` (Home Assistant discovery on).
    private let publishesItemEvents: Bool
    /// What `<prefix>/trigger` presses; `nil`: no subscription (`mqtt.trigger` off).
    private let triggers: TriggerSwitch?
    /// Where codes with a GS1 element of `mqtt.topic_by_ai` go; `nil`: none is routed.
    private let gs1Topic: MQTTGS1Topic?

    /// Seconds `finish` waits for a connected broker to take what is queued before spooling or dropping it.
    public var drainTimeoutSeconds = 5.0

    /// - Parameters:
    ///   - source: the source URI (the `source` field).
    ///   - sourceName: the name the source's input family gives it (`SourceURI.name`): the default
    ///     topic prefix's last part, the client id's and Home Assistant's device name; `nil`: the name
    ///     read from `source` (`SourceName.of`).
    ///   - hostname: the default topic prefix's middle part.
    ///   - password: read from `settings.passwordFile` by the caller.
    ///   - softwareVersion: syncscan's version, for Home Assistant's device.
    ///   - triggers: what `<prefix>/trigger` presses with `settings.trigger` (the scan's switch).
    ///   - readResults: the scan opens read windows (`trigger.mode: triggered`): Home Assistant's
    ///     discovery describes their results.
    public init(settings: MQTTSettings, source: String, sourceName: String? = nil, hostname: String, password: String?, softwareVersion: String, logger: Logger,
                overflow: OverflowPolicy = .wait, triggers: TriggerSwitch? = nil, readResults: Bool = false,
                clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now) {
        self.settings = settings
        self.triggers = settings.trigger ? triggers : nil
        self.source = source
        self.logger = logger
        self.shared = LockedValue(MQTTHandlerShared(overflow: overflow))
        self.clock = clock
        let name = sourceName.map(SourceName.topicSafe) ?? SourceName.of(source)
        let prefix = settings.topicPrefix ?? "syncscan/\(hostname)/\(name)"
        topicPrefix = prefix
        discoveryMessages = HomeAssistantDiscovery(discoveryPrefix: settings.homeAssistantPrefix, topicPrefix: prefix, hostname: hostname,
                                                   sourceName: name, softwareVersion: softwareVersion)
            .messages(enabled: settings.homeAssistantDiscovery, trigger: self.triggers != nil, readResults: readResults)
        runID = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        codeEncoder = IdentifiedCodeEncoder(prefix: runID)
        publishesItemEvents = settings.homeAssistantDiscovery == true
        gs1Topic = settings.topicByAI.map { MQTTGS1Topic(prefix: prefix, ai: $0) }
        var options = MQTTConnection.Options(host: settings.url.host, port: settings.url.port)
        options.clientID = settings.clientID ?? "syncscan-\(hostname)-\(name)"
        options.keepaliveSeconds = settings.keepaliveSeconds
        options.username = settings.username
        options.password = password
        options.caFile = settings.url.tls ? settings.caFile : nil
        options.will = MQTTConnection.Message(topic: prefix + "/status", payload: Array("offline".utf8), qos: settings.qos, retain: true)
        connectionOptions = options
        do {
            wake = try WakeSignal()
        } catch {
            wake = nil
            logger.warning("MQTT codes are published within 50 ms instead of at once: no wake-up descriptor", metadata: [
                "error": "\(LogText.error(error))"])
        }
    }

    /// Starts the broker connection's thread (once); `finish` starts it too, so what was queued
    /// before is still delivered or spooled.
    public func start() {
        guard shared.withLock({ $0.intake.claimStart() }) else { return }
        startThread(name: "syncscan-mqtt") { [self] in run() }
    }

    /// Changes what a full queue does from now on (`.dropOldest` acts as `.drop`: the memory
    /// queue and the spool already keep the newest codes and count what they drop).
    public func setOverflowPolicy(_ policy: OverflowPolicy) {
        shared.withLock { $0.overflow = policy }
        shared.broadcast()
    }

    /// Codes the broker acknowledged.
    public var published: Int { shared.withLock { $0.intake.counts.delivered } }
    /// Codes dropped: past the memory queue and the spool (oldest first), or left at exit with nowhere to go.
    public var dropped: Int { shared.withLock { $0.intake.counts.dropped } }
    /// Codes waiting in memory for the broker now.
    public var queued: Int { shared.withLock { $0.intake.queuedCodes } }
    /// Codes waiting in the spool file now.
    public var spooled: Int { shared.withLock { $0.intake.counts.spooled } }
    /// Whether the broker connection is up now.
    public var isConnected: Bool { shared.withLock { $0.connected } }
    /// `<prefix>/trigger`: the topic whose messages press the trigger (`mqtt.trigger`).
    public var triggerTopic: String { topicPrefix + "/trigger" }
    /// Whether the broker granted the `<prefix>/trigger` subscription on the connection up now.
    public var isTriggerSubscribed: Bool { shared.withLock { $0.triggerSubscribed } }

    public var counters: [ResultsCounter] {
        // One lock: at every moment codes emitted = published + queued + spooled + dropped.
        let (counts, connected, rejected) = shared.withLock { ($0.intake.current, $0.connected, $0.triggersRejected) }
        let triggerCounters = triggers == nil ? [] : [
            ResultsCounter(name: "mqtt_triggers_rejected",
                           help: "Messages on <prefix>/trigger that were no command (an empty, unknown or too long payload, a retained message).",
                           value: rejected),
        ]
        return [
            ResultsCounter(name: "mqtt_published", help: "Codes the MQTT broker acknowledged.", value: counts.delivered),
            ResultsCounter(name: "mqtt_queued", metric: "mqtt_queued_messages", help: "Codes waiting in memory for the MQTT broker.",
                           kind: .gauge, value: counts.memory),
            ResultsCounter(name: "mqtt_spooled", metric: "mqtt_spooled_messages", help: "Codes waiting in the spool file for the MQTT broker.",
                           kind: .gauge, value: counts.spooled),
            ResultsCounter(name: "mqtt_dropped",
                           help: "Codes dropped before the MQTT broker took them: past the memory queue and the spool.",
                           value: counts.dropped),
            ResultsCounter(name: "mqtt_items_dropped",
                           help: "Items' messages (<prefix>/items, <prefix>/item_events) and mismatches' (<prefix>/mismatch) dropped before the MQTT broker took them; they are not spooled.",
                           value: counts.itemsDropped),
            ResultsCounter(name: "mqtt_connected", help: "1 while connected to the MQTT broker, else 0.", kind: .gauge,
                           value: connected ? 1 : 0, inLines: false),
        ] + triggerCounters
    }

    public func sourceStreaming() { markOnline() }

    public func statsUpdated(_ json: [UInt8]) { publishStats(json) }

    /// Publishes retained `online` now (the source streams) and after every reconnect.
    public func markOnline() {
        let (message, bound) = (statusMessage("online"), self.bound)
        let added = shared.withLock { shared in
            guard !shared.online else { return false }
            shared.online = true
            // Not connected yet: the connection publishes `online` first when it comes up (once).
            guard shared.connected else { return false }
            shared.intake.add(OutboxMessage(message, kind: .status), limit: 2 * bound)
            return true
        }
        if added { wakeThread() }
    }

    /// Queues `payload` (the counters as a JSON object) on `<prefix>/stats`.
    public func publishStats(_ payload: [UInt8]) {
        let (message, bound) = (OutboxMessage(key: topicPrefix + "/stats", payload: payload, kind: .status, qos: settings.qos), self.bound)
        shared.withLock { $0.intake.add(message, limit: 2 * bound) }
        wakeThread()
    }

    /// Queues the code on `<prefix>/codes` (or its GS1 topic, `mqtt.topic_by_ai`); a code that did
    /// not match `match.*` again on `<prefix>/mismatch` (the same object, its id too); with item
    /// events its item's `added` event.
    public func handle(_ code: inout DeliveredCode) throws {
        let (id, payload) = codeEncoder.encode(code, source: source, time: clock())
        let topic = gs1Topic?.topic(for: code.code) ?? topicPrefix + "/codes"
        var messages = [OutboxMessage(key: topic, payload: payload, kind: .code, qos: settings.qos)]
        if code.match == false { messages.append(itemMessage("mismatch", payload)) }
        if publishesItemEvents, let item = code.item {
            messages.append(itemMessage("item_events", MQTTItemMessages.added(code.code, item: item, id: id)))
        }
        enqueue(messages)
    }

    /// Queues the item's `item_removed` object on `<prefix>/items`, and with item events its `removed` event.
    public func itemRemoved(_ item: RemovedItem) throws {
        let id = MQTTItemMessages.id(run: runID, item: item.id)
        var messages = [itemMessage("items", MQTTItemMessages.removed(item, id: id, source: source, time: clock()))]
        if publishesItemEvents { messages.append(itemMessage("item_events", MQTTItemMessages.removedEvent(item, id: id))) }
        enqueue(messages)
    }

    /// Queues a read window's result on `<prefix>/results` (the stdout `read_result` object with
    /// `"id"` last, QoS 1, in order with the codes through the outbox, in memory as item messages
    /// are) and, for a `no_read` with a diagnosis JPEG, the JPEG's bytes on `<prefix>/no_read/image`
    /// (retained: the last no-read's picture for a subscriber that comes later).
    public func readResult(_ result: inout ReadResult) throws {
        var payload = JSONLineEncoder().encode(result: result, source: source, time: clock())
        payload.removeLast(2)  // `}\n`
        payload += Array(",\"id\":".utf8) + JSONLineEncoder.quoted("\(runID)-window-\(result.window)") + [UInt8(ascii: "}")]
        var messages = [OutboxMessage(key: topicPrefix + "/results", payload: payload, kind: .item, qos: 1)]
        if result.kind == .noRead, let jpeg = result.jpeg {
            messages.append(OutboxMessage(key: topicPrefix + "/no_read/image", payload: jpeg, kind: .item, qos: 1, retain: true))
        }
        enqueue(messages)
    }

    /// An item's (or a mismatch's) message on `<prefix>/<topic>`, at the configured QoS, not retained.
    private func itemMessage(_ topic: String, _ payload: [UInt8]) -> OutboxMessage {
        OutboxMessage(key: topicPrefix + "/" + topic, payload: payload, kind: .item, qos: settings.qos)
    }

    /// Hands `messages` to the thread together, in order, first waiting for room when full (`MQTTHandlerShared.isFull`).
    /// Should the thread fall behind by two whole queues, the oldest waiting are dropped (`OutboxIntake.add`).
    private func enqueue(_ messages: [OutboxMessage]) {
        let bound = self.bound
        shared.withLock(when: { !$0.isFull(bound: bound) }) { shared, _ in
            for message in messages { shared.intake.add(message, limit: 2 * bound) }
        }
        wakeThread()
    }

    /// Publishes `offline` (retained), waits up to `drainTimeoutSeconds` for the broker to take
    /// what is queued, spools what it did not take, disconnects cleanly and stops the thread;
    /// safe to call more than once.
    public func finish() throws {
        start()
        let (offline, bound) = (statusMessage("offline"), self.bound)
        let closing = shared.withLock { shared in
            guard !shared.intake.closed else { return false }
            shared.intake.add(OutboxMessage(offline, kind: .status), limit: 2 * bound)
            shared.intake.closed = true
            return true
        }
        if closing { wakeThread() }
        shared.withLock(when: { $0.intake.finished }) { _, _ in }
    }

    var bound: Int { max(1, settings.queueMessages) }

    /// What every new connection publishes before the queue: the discovery configs (or their
    /// removals), then a retained `online` once streaming. Not tracked: the next connection sends them again.
    private func messagesOnConnect(streaming: Bool) -> [MQTTConnection.Message] {
        discoveryMessages + (streaming ? [statusMessage("online")] : [])
    }

    private func statusMessage(_ text: String) -> MQTTConnection.Message {
        MQTTConnection.Message(topic: topicPrefix + "/status", payload: Array(text.utf8), qos: settings.qos, retain: true)
    }

    /// Makes the thread's poll return (its `WakeSignal`), and a backoff wait re-check for new entries.
    private func wakeThread() {
        shared.broadcast()
        wake?.signal()
    }

    // MARK: - The handler's thread

    /// The handler's thread: connects, publishes in order, spools, reconnects with backoff, until finished.
    private func run() {
        var log = MQTTConnectionLog(settings: settings, logger: logger)
        var outbox = openOutbox()
        log.spool(outbox.takeSpoolEvents())
        var connection: MQTTConnection?
        var backoff = 0.5
        var nextAttempt = ContinuousClock.now
        var deadline: ContinuousClock.Instant?
        var refused = false
        var trigger = triggers.map { MQTTTriggerInput(topic: triggerTopic, triggers: $0, logger: logger) }
        var triggerSubscription: Int32?

        func lost(_ error: MQTTError?) {
            connection = nil
            outbox.connectionLost()
            let wasConnected = shared.withLock { shared in
                defer { (shared.connected, shared.triggerSubscribed) = (false, false) }
                return shared.connected
            }
            shared.broadcast()
            if wasConnected { backoff = 0.5 }
            if let error { log.failed(error, spool: outbox.spool) }
            nextAttempt = ContinuousClock.now + .milliseconds(Int(backoff * 1000))
            backoff = min(30, backoff * 2)
        }

        while true {
            wake?.drain()  // before taking the intake: a later signal wakes the next poll
            // Counted in memory until `publishCounts` says where `place` put them.
            let (newMessages, isClosed) = shared.withLock { ($0.intake.take(), $0.intake.closed) }
            outbox.place(newMessages)
            log.spool(outbox.takeSpoolEvents())
            publishCounts(outbox)
            if isClosed {
                if deadline == nil { deadline = ContinuousClock.now + .milliseconds(Int(drainTimeoutSeconds * 1000)) }
                // With a spool, an absent broker is not waited for: the spool keeps the codes for the next run.
                let giveUp = ContinuousClock.now >= deadline! || (outbox.spool != nil && connection == nil)
                if outbox.isDrained || giveUp {
                    // A clean DISCONNECT (the broker then discards the Will), written before the socket closes.
                    if let connection {
                        connection.disconnect()
                        _ = connection.loop(timeout: .milliseconds(10))
                    }
                    break
                }
            }
            guard let client = connection else {
                if ContinuousClock.now < nextAttempt {
                    // The backoff's next turn, or sooner: a message or `finish` wakes it.
                    shared.withLock(when: { !$0.intake.waiting.isEmpty || $0.intake.closed }, deadline: .now + .milliseconds(50)) { _, _ in }
                    continue
                }
                switch MQTTConnection.connect(connectionOptions) {
                case .success(let c): connection = c
                case .failure(let error): lost(error)
                }
                continue
            }
            // Publish what is not on this connection yet, in order, up to a window of unacknowledged messages.
            if shared.withLock({ $0.connected }), let failure = outbox.publishPending({ client.publish(MQTTConnection.Message($0)) }) {
                lost(failure)
                continue
            }
            let (events, loopFailure) = client.loop(timeout: .milliseconds(50), wake: wake?.descriptor)
            for event in events {
                switch event {
                case .connected:
                    backoff = 0.5
                    let streaming = shared.withLock { shared in
                        shared.connected = true
                        return shared.online && !shared.intake.closed
                    }
                    shared.broadcast()
                    for message in messagesOnConnect(streaming: streaming) { _ = client.publish(message) }
                    // A clean session: the subscription is made anew on every connection.
                    if trigger != nil { triggerSubscription = subscribeTrigger(client) }
                    log.connected()
                case .refused(let error):
                    log.failed(error, spool: outbox.spool)
                    refused = true
                case .published(let mid):
                    outbox.acknowledge(mid)
                case .subscribed(let mid, let granted) where mid == triggerSubscription:
                    triggerSubscribed(granted)
                case .subscribed:
                    break
                case .message(let message):
                    if trigger?.receive(message) == true { shared.withLock { $0.triggersRejected += 1 } }
                case .disconnected(let error):
                    // After a refused CONNACK the broker closes the connection: the refusal was the news.
                    lost(refused ? nil : error ?? MQTTError(call: "connection", code: 7, reason: "The connection was lost."))
                    refused = false
                }
            }
            if connection == nil { continue }
            if let loopFailure { lost(refused ? nil : loopFailure); refused = false }
        }
        connection = nil
        let lostAtExit = closeForExit(&outbox, log: &log)
        shared.withLock { shared in
            shared.intake.record(outbox, delivered: outbox.delivered, droppedBefore: lostAtExit)
            shared.intake.finished = true
        }
        shared.broadcast()
    }
}
