import Capture
import Foundation
import Media
import MQTT
import Testing
import TestSupport
@testable import Results

private let prefix = "syncscan/test/trigger"

/// A handler with `mqtt.trigger` on against `broker`, pressing `triggers`, started.
private func triggeredHandler(_ broker: MosquittoBroker, triggers: TriggerSwitch, logs: LogRecorder) throws -> MQTTResultsHandler {
    var settings = MQTTSettings(url: try MQTTBrokerURL(parsing: broker.url))
    settings.topicPrefix = prefix
    settings.trigger = true
    let handler = MQTTResultsHandler(settings: settings, source: "y4m:-", hostname: "test", password: nil, softwareVersion: "0",
                                     logger: logs.logger, overflow: .drop, triggers: triggers)
    handler.drainTimeoutSeconds = 1
    handler.start()
    return handler
}

/// `mosquitto_pub` of one message on `<prefix>/trigger` at QoS 1 (`nil`: an empty payload).
private func publish(_ payload: String?, to broker: MosquittoBroker, retain: Bool = false) throws {
    let arguments = ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t", prefix + "/trigger"]
        + (payload.map { ["-m", $0] } ?? ["-n"]) + (retain ? ["-r"] : [])
    let result = try ExternalTool.run("mosquitto_pub", arguments)
    try #require(result.status == 0, "\(result.describe())")
}

private func counter(_ handler: MQTTResultsHandler, _ name: String) -> Int? {
    handler.counters.first { $0.name == name }?.value
}

@Suite struct MQTTTriggerCommandTests {
    @Test func pressReleaseAndEverythingElse() {
        func command(_ text: String, retained: Bool = false) -> MQTTTriggerInput.Command {
            MQTTTriggerInput.command(MQTTConnection.Received(topic: prefix + "/trigger", payload: Array(text.utf8), retained: retained))
        }
        for text in ["press", "1", "ON", "on", " Press\n"] { #expect(command(text) == .press, "\(text.debugDescription)") }
        for text in ["release", "0", "OFF", "Off\n"] { #expect(command(text) == .release, "\(text.debugDescription)") }
        for text in ["bogus", "pressed", "2", "on off", "\u{0}", "\r\n", " "] { #expect(command(text) == .rejected(kind: "unknown"), "\(text.debugDescription)") }
        // Empty: neither, retained or not (clearing a retained trigger hands subscribers one).
        #expect(command("") == .empty && command("", retained: true) == .empty)
        #expect(command(String(repeating: " ", count: 65) + "press") == .rejected(kind: "too long"))
        #expect(command("press", retained: true) == .rejected(kind: "retained"))
        let binary = MQTTConnection.Received(topic: "t", payload: [0x70, 0x00, 0xFF, UInt8(ascii: "\\")])
        #expect(MQTTTriggerInput.shownPayload(binary) == "p\\u{00}\\xFF\\\\")
        let long = MQTTConnection.Received(topic: "t", payload: Array(repeating: 0x61, count: 256), length: 1000)
        #expect(MQTTTriggerInput.shownPayload(long) == String(repeating: "a", count: 32) + "… (968 more bytes)")
    }
}

@Suite(.serialized, .offThePool) struct MQTTTriggerTests {
    /// Messages on `<prefix>/trigger` press and release the switch (origin `mqtt`); unknown
    /// payloads are counted and logged once; after the broker restarts the handler subscribes
    /// again, where the retained message it then gets is refused (it would press at every reconnect).
    @Test func triggerMessagesPressTheSwitchAndAfterABrokerRestartToo() throws {
        let broker = try MosquittoBroker()
        let (triggers, logs) = (TriggerSwitch(), LogRecorder())
        let handler = try triggeredHandler(broker, triggers: triggers, logs: logs)
        defer { try? handler.finish() }
        #expect(handler.triggerTopic == prefix + "/trigger")
        try #require(waitUntil { handler.isTriggerSubscribed }, "\(logs.all.map(\.line))")

        for payload in ["press", "release", "ON", "1", "0", " Press\n"] { try publish(payload, to: broker) }
        #expect(waitUntil { triggers.counts.pulls == 6 }, "\(triggers.counts)")
        let pulls = triggers.takePulls()
        #expect(pulls.map(\.kind) == [.press, .release, .press, .press, .release, .press])
        #expect(pulls.allSatisfy { $0.origin == "mqtt" })

        for payload in ["bogus", "nope"] { try publish(payload, to: broker) }
        #expect(waitUntil { counter(handler, "mqtt_triggers_rejected") == 2 })
        #expect(logs.lines(containing: "MQTT trigger message ignored").count == 1, "once per kind, not per message")
        #expect(logs.lines(containing: "payload=bogus").count == 1)

        // Retained: handed over as a plain message now (it presses), as retained after the restart (refused).
        try publish("press", to: broker, retain: true)
        #expect(waitUntil { triggers.counts.pulls == 7 })
        broker.stop()
        #expect(waitUntil { !handler.isTriggerSubscribed })
        try broker.start()
        try #require(waitUntil { handler.isTriggerSubscribed }, "\(logs.all.map(\.line))")
        #expect(waitUntil { counter(handler, "mqtt_triggers_rejected") == 3 })
        #expect(logs.lines(containing: "it is retained").count == 1)
        try publish("release", to: broker)
        #expect(waitUntil { triggers.counts.pulls == 8 })
        #expect(triggers.takePulls().map(\.kind) == [.press, .release])
        try publish(nil, to: broker, retain: true)  // the broker forgets the retained one
    }

    /// 1,000 messages as fast as one client sends them, 900 presses then 100 unknown payloads:
    /// the switch keeps its bound and counts what it dropped, the unknown ones are logged once,
    /// and the connection stays up and publishes a code right after. (Past the broker's queue for
    /// one client, `max_queued_messages`, 1,000 by default, the broker drops QoS 1 messages.)
    @Test func aStormOfTriggerMessagesIsBoundedAndTheConnectionStaysResponsive() throws {
        let broker = try MosquittoBroker()
        let (triggers, logs) = (TriggerSwitch(), LogRecorder())
        let handler = try triggeredHandler(broker, triggers: triggers, logs: logs)
        defer { try? handler.finish() }
        try #require(waitUntil { handler.isTriggerSubscribed })
        let storm = try ExternalTool.run("sh", ["-c", "(yes press | head -n 900; yes bogus | head -n 100) | mosquitto_pub -l -q 1 "
                                                 + "-h 127.0.0.1 -p \(broker.port) -t \(prefix)/trigger"])
        try #require(storm.status == 0, "\(storm.describe())")
        #expect(waitUntil(timeout: hangTimeout) { counter(handler, "mqtt_triggers_rejected") == 100 }, "\(counter(handler, "mqtt_triggers_rejected") ?? -1)")
        #expect(triggers.counts == TriggerSwitch.Counts(pulls: 900, dropped: 900 - triggers.capacity))
        #expect(triggers.takePulls().count == triggers.capacity)
        #expect(logs.lines(containing: "MQTT trigger message ignored").count == 1)
        #expect(handler.isConnected)
        // The connection still publishes at once.
        let frame = GreyFrame(width: 16, height: 16).videoFrame(sequenceNumber: 1, presentationTime: MediaTime(nanoseconds: 0))
        var code = DeliveredCode(code: MachineReadableCodeObject(symbology: .qrcode, data: Array("after".utf8), text: "after",
                                                                 quality: 1, orientation: .up, corners: [], frame: frame.info, pass: .zbar))
        try handler.handle(&code)
        #expect(waitUntil(timeout: hangTimeout) { handler.published == 1 })
    }

    /// An empty payload is no press nor release, retained or not: clearing a retained trigger the
    /// documented way (`mosquitto_pub -r -n`), which the broker hands every subscriber as a live
    /// message, and a live empty message are counted with the rejected and logged at debug level
    /// only; a press after them still presses.
    @Test func anEmptyPayloadRetainedOrLiveNeverPresses() throws {
        let broker = try MosquittoBroker()
        let (triggers, logs) = (TriggerSwitch(), LogRecorder())
        let handler = try triggeredHandler(broker, triggers: triggers, logs: logs)
        defer { try? handler.finish() }
        try #require(waitUntil { handler.isTriggerSubscribed }, "\(logs.all.map(\.line))")

        try publish(nil, to: broker, retain: true)
        try publish(nil, to: broker)
        #expect(waitUntil { counter(handler, "mqtt_triggers_rejected") == 2 }, "\(triggers.counts)")
        try publish("press", to: broker)
        #expect(waitUntil { triggers.counts.pulls >= 1 })
        #expect(triggers.takePulls().map(\.kind) == [.press], "only the press after the empty ones")
        #expect(triggers.counts.pulls == 1)
        #expect(logs.lines(containing: "empty payload").count == 2, "\(logs.all.map(\.line))")
        #expect(logs.all.filter { $0.message.contains("empty payload") }.allSatisfy { $0.level == .debug })
        #expect(logs.lines(containing: "MQTT trigger message ignored").isEmpty, "no warning for a cleared trigger")
    }

    /// The rejected message's record shows the payload's bytes escaped: a line end, ESC and bytes
    /// that are no UTF-8 neither split the record nor reach a terminal.
    @Test func aRejectedPayloadIsEscapedInItsRecord() throws {
        let broker = try MosquittoBroker()
        let (triggers, logs) = (TriggerSwitch(), LogRecorder())
        let handler = try triggeredHandler(broker, triggers: triggers, logs: logs)
        defer { try? handler.finish() }
        try #require(waitUntil { handler.isTriggerSubscribed }, "\(logs.all.map(\.line))")
        try publish("x\n2026-12-01T21:00:00+0000 critical syncscan: [Daemon] FORGED\u{1B}[2J", to: broker)
        #expect(waitUntil { counter(handler, "mqtt_triggers_rejected") == 1 })
        #expect(triggers.counts.pulls == 0)
        #expect(logs.recordsWithRawControls.isEmpty, "\(logs.recordsWithRawControls)")
        #expect(logs.lines(containing: "payload=x\\n2026-12-01T21:00:00+0000 criti… (").count == 1, "\(logs.all.map(\.line))")
    }
}
