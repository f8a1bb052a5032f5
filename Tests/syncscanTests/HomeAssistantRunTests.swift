import Foundation
import TestSupport
import Testing

/// Y4M bytes of `count` 320x240 frames, each with one QR code ("ha-N").
private func codeVideo(_ count: Int) throws -> [UInt8] {
    Y4MWriter.bytes(try (0..<count).map { i in
        var f = GreyFrame(width: 320, height: 240)
        f.draw(try ModuleMatrix.qrCode("ha-\(i)"), x: 40 + Double(i % 7) * 6, y: 40, moduleSize: 4)
        return f
    })
}

private func object(_ text: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
}

/// The `value_json.a.b` paths a template reads, but those it gives a default (`| default(…)`).
private func requiredFields(_ template: String) -> [[String]] {
    template.matches(of: /value_json((?:\.\w+)+)(\s*\|\s*default)?/).compactMap { match in
        match.output.2 == nil ? match.output.1.split(separator: ".").map(String.init) : nil
    }
}

/// The value at `path` in `object`, or nil.
private func value(at path: [String], in object: [String: Any]) -> Any? {
    var current: Any? = object
    for key in path { current = (current as? [String: Any])?[key] }
    return current
}

/// The configs this run's device can have: its tag scanner, three sensors and the items' event.
private let objectIDs = ["tag": ["scanner"], "sensor": ["last_code", "frames_per_second", "dropped"], "event": ["items"]]

@Suite(.serialized, .offThePool) struct HomeAssistantRunTests {
    /// Discovery on: retained configs name the device, the topics the codes and counters are on
    /// (every field their templates read is in those messages) and the status as availability.
    /// Every frame's code is a new item: the items' event gets an `added` and a `removed` event of
    /// a type its config lists. A second run with discovery off empties them: no retained config is left.
    @Test func discoveryConfigsNameTheTopicsTheCodesAreOnAndASecondRunWithItOffRemovesThem() throws {
        let broker = try MosquittoBroker()
        let discovery = try MosquittoSubscriber(broker: broker, topic: "homeassistant/#")
        let subscriber = try MosquittoSubscriber(broker: broker, topic: "syncscan/test/ha/#")
        let daemon = try RunningDaemon(["run", "--source", "-", "--mqtt-url", broker.url,
                                        "--mqtt-topic-prefix", "syncscan/test/ha"],
                                       environment: ["SYNCSCAN_MQTT_HOMEASSISTANT_DISCOVERY": "true", "SYNCSCAN_STATS_INTERVAL_SECONDS": "1"])
        let video = try codeVideo(30)
        let headerEnd = video.firstIndex(of: UInt8(ascii: "\n"))! + 1
        let frameSize = (video.count - headerEnd) / 30
        daemon.feed(Array(video[..<headerEnd]))
        for i in 0..<30 {
            daemon.feed(Array(video[(headerEnd + i * frameSize)..<(headerEnd + (i + 1) * frameSize)]))
            pause(.milliseconds(100))
        }
        // The scan's five configs; the read results' and the trigger's button emptied (continuous, no mqtt.trigger).
        let configs = discovery.wait { Set($0.map(\.topic)).count >= 15 }.filter { !$0.payload.isEmpty }
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")

        // One topic per config: <prefix>/<component>/<node id>/<object id>/config, node id from host and source ("stdin").
        let topics = Set(configs.map(\.topic)).sorted()
        #expect(topics.count == 5, "\(topics)")
        var documents: [String: [String: Any]] = [:]
        for topic in topics {
            let parts = topic.split(separator: "/").map(String.init)
            #expect(parts.count == 5 && parts[0] == "homeassistant" && parts[4] == "config", "\(topic)")
            guard parts.count == 5, let ids = objectIDs[parts[1]], ids.contains(parts[3]) else {
                Issue.record("not a config this device has: \(topic)")
                continue
            }
            #expect(parts[2].hasPrefix("syncscan_") && parts[2].hasSuffix("_stdin"), "\(topic)")
            #expect(parts[2].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }, "\(topic)")
            // Retained: what Home Assistant reads when it (re)starts.
            let retained = try MosquittoSubscriber.retained(on: topic, broker: broker)
            documents[parts[3]] = try #require(retained.flatMap(object), "retained config on \(topic): \(retained ?? "none")")
        }
        #expect(Set(documents.keys) == ["scanner", "last_code", "frames_per_second", "dropped", "items"])

        // Every item's events, the last ones sent as the input ended.
        let messages = subscriber.wait { messages in
            let codes = messages.count { $0.topic == "syncscan/test/ha/codes" }
            return messages.count { $0.topic == "syncscan/test/ha/item_events" } >= 2 * codes
        }
        let codes = messages.filter { $0.topic == "syncscan/test/ha/codes" }.compactMap { object($0.payload) }
        let stats = messages.filter { $0.topic == "syncscan/test/ha/stats" }.compactMap { object($0.payload) }
        let events = messages.filter { $0.topic == "syncscan/test/ha/item_events" }.compactMap { object($0.payload) }
        #expect(codes.count >= 10 && !stats.isEmpty, "codes \(codes.count), stats \(stats.count)")
        // The items still in view at the end are removed as the input ends.
        #expect(events.count == 2 * codes.count, "an added and a removed event per item: \(events.count) for \(codes.count) codes")
        let payloads = ["syncscan/test/ha/codes": codes, "syncscan/test/ha/stats": stats, "syncscan/test/ha/item_events": events]
        var node: [String: Any]?
        for (id, document) in documents {
            let device = document["device"] as? [String: Any]
            #expect(device?["model"] as? String == "syncscan" && device?["sw_version"] as? String == "0.1.0", "\(id): \(device ?? [:])")
            #expect((device?["identifiers"] as? [String])?.count == 1 && device?["name"] is String, "\(id): \(device ?? [:])")
            #expect(node == nil || NSDictionary(dictionary: node!) == NSDictionary(dictionary: device ?? [:]), "one device for all")
            node = device
            // The tag's schema has an event topic, no unique id and no availability; a sensor has all three.
            let topic = document[id == "scanner" ? "topic" : "state_topic"] as? String
            if id == "items" {
                // Home Assistant's event platform takes only a JSON object whose event_type is one of event_types.
                let types = document["event_types"] as? [String] ?? []
                #expect(types == ["added", "removed"], "\(document)")
                #expect(events.allSatisfy { types.contains($0["event_type"] as? String ?? "") && $0["item"] is Int }, "\(events)")
            }
            if id != "scanner" {
                #expect((document["unique_id"] as? String)?.hasSuffix("_stdin_\(id)") == true, "\(id): \(document)")
                #expect(document["availability_topic"] as? String == "syncscan/test/ha/status")
                #expect(document["payload_available"] as? String == "online" && document["payload_not_available"] as? String == "offline")
                #expect(document["json_attributes_topic"] == nil || document["json_attributes_topic"] as? String == topic)
            }
            // Every field the templates read is in every message on that topic.
            let received = try #require(topic.flatMap { payloads[$0] }, "\(id) names a topic syncscan publishes: \(topic ?? "none")")
            for template in ["value_template", "json_attributes_template"].compactMap({ document[$0] as? String }) {
                for path in requiredFields(template) {
                    #expect(received.allSatisfy { value(at: path, in: $0) != nil }, "\(id): \(path.joined(separator: ".")) in \(template)")
                }
            }
        }
        let read = documents.values.flatMap { d in ["value_template", "json_attributes_template"].compactMap { d[$0] as? String } }
        #expect(Set(read.flatMap(requiredFields).map { $0.joined(separator: ".") })
                    == ["data_b64", "symbology", "engine", "frame.seq", "time", "id", "frames_per_second", "dropped"])
        // A live pipe may drop a late frame, but every code that came is a tag id: its text.
        #expect(codes.allSatisfy { ($0["text"] as? String)?.hasPrefix("ha-") == true }, "\(codes.map { $0["text"] ?? "none" })")
        #expect(stats.allSatisfy { $0["frames_per_second"] is Double || $0["frames_per_second"] is Int }, "\(stats)")
        // Availability: online while streaming, the Will's (and a clean stop's) offline after.
        #expect(messages.filter { $0.topic == "syncscan/test/ha/status" }.map(\.payload).first == "online")
        #expect(try MosquittoSubscriber.retained(on: "syncscan/test/ha/status", broker: broker) == "offline")

        // A second run with discovery off empties the same topics; Home Assistant removes what they made.
        let short = try TemporaryFile(contents: try codeVideo(2), suffix: ".y4m")
        // The same source ("-", so the same node id), another topic prefix: the same config topics.
        let off = try SyncscanProcess.run(["run", "--source", "-", "--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/ha2"],
                                          stdinPath: short.path, environment: ["SYNCSCAN_MQTT_HOMEASSISTANT_DISCOVERY": "false"])
        #expect(off.status == 0, "stderr: \(off.stderr)")
        let removals = discovery.wait { messages in topics.allSatisfy { t in messages.contains { $0.topic == t && $0.payload.isEmpty } } }
        #expect(topics.allSatisfy { t in removals.contains { $0.topic == t && $0.payload.isEmpty } }, "\(removals.map(\.topic))")
        let left = try MosquittoSubscriber.retained(on: "homeassistant/#", broker: broker)
        #expect(left == nil, "no retained config left: \(left ?? "")")
    }

    /// Discovery set to false: no config appears, only the empty payloads that remove earlier ones;
    /// not set at all: nothing under the discovery prefix (an MQTT user without Home Assistant
    /// gets no messages there). The runs end before the broker's marker is published, so a
    /// message of theirs would arrive before it.
    @Test(arguments: ["false", nil])
    func discoveryOffPublishesNoConfig(setting: String?) throws {
        let broker = try MosquittoBroker()
        let discovery = try MosquittoSubscriber(broker: broker, topic: "homeassistant/#")
        let video = try TemporaryFile(contents: try codeVideo(2), suffix: ".y4m")
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--mqtt-url", broker.url],
                                          environment: setting.map { ["SYNCSCAN_MQTT_HOMEASSISTANT_DISCOVERY": $0] } ?? [:])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let marker = try ExternalTool.run("mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "homeassistant/marker", "-m", "end"])
        #expect(marker.status == 0, "\(marker.describe())")
        let messages = discovery.wait { $0.contains { $0.topic == "homeassistant/marker" } }.filter { $0.topic != "homeassistant/marker" }
        if setting == nil {
            #expect(messages.isEmpty, "\(messages)")
        } else {
            // The scan's 5 configs, the read results' 9 and the trigger's button.
            #expect(messages.count == 15 && messages.allSatisfy { $0.payload.isEmpty && $0.topic.hasSuffix("/config") }, "\(messages)")
        }
        let left = try MosquittoSubscriber.retained(on: "homeassistant/#", broker: broker)
        #expect(left == nil, "no retained config: \(left ?? "")")
    }
}
