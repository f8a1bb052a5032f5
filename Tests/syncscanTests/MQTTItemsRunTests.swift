import Foundation
import TestSupport
import Testing

/// 60 frames 320x240 at 10 fps: "label-A" in frames 0..<6, nothing for 20 frames (2 s, longer
/// than the items' 1 s grace), "label-A" again in 26..<32 (another item: the same label back after
/// a gap), nothing, "label-B" in 42..<48, nothing to the end. Three items: A, A, B.
private func itemFrames() throws -> [GreyFrame] {
    let (a, b) = (try ModuleMatrix.qrCode("label-A"), try ModuleMatrix.qrCode("label-B"))
    return (0..<60).map { i in
        var f = GreyFrame(width: 320, height: 240)
        switch i {
        case 0..<6, 26..<32: f.draw(a, x: 40, y: 40, moduleSize: 4)
        case 42..<48: f.draw(b, x: 120, y: 60, moduleSize: 4)
        default: break
        }
        return f
    }
}

private func object(_ text: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
}

@Suite(.serialized, .offThePool) struct MQTTItemsRunTests {
    /// Each item is one `PREFIX/items` message (its stdout `item_removed` line plus an id) and,
    /// with Home Assistant discovery, an `added` and a `removed` event on the topic the discovered
    /// event entity reads; the code counters add up as before (items' messages are not codes).
    @Test func eachItemIsOneItemsMessageAndAnAddedAndRemovedEventWhileTheCodeCountersAddUp() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker, topic: "syncscan/test/items/#")
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try itemFrames()), suffix: ".y4m")
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/items"],
                                          environment: ["SYNCSCAN_MQTT_HOMEASSISTANT_DISCOVERY": "true"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = run.jsonLines.compactMap { $0 }
        let codeLines = lines.filter { $0["type"] as? String == "code" }
        let removedLines = lines.filter { $0["type"] as? String == "item_removed" }
        #expect(codeLines.compactMap { $0["text"] as? String } == ["label-A", "label-A", "label-B"], "one code line per item: \(codeLines)")
        #expect(removedLines.count == 3, "\(removedLines)")
        let itemIDs = codeLines.compactMap { $0["item"] as? Int }
        #expect(itemIDs.count == 3 && Set(itemIDs).count == 3, "three items: \(itemIDs)")

        let prefix = "syncscan/test/items"
        let messages = subscriber.wait { messages in
            messages.count { $0.topic == prefix + "/items" } >= 3 && messages.count { $0.topic == prefix + "/item_events" } >= 6
        }
        let codes = messages.filter { $0.topic == prefix + "/codes" }.compactMap { object($0.payload) }
        let items = messages.filter { $0.topic == prefix + "/items" }.compactMap { object($0.payload) }
        let events = messages.filter { $0.topic == prefix + "/item_events" }.compactMap { object($0.payload) }
        #expect(codes.count == 3 && items.count == 3 && events.count == 6,
                "codes \(codes.count), items \(items.count), events \(events.count): \(messages.map(\.topic))")

        // PREFIX/items: the stdout item_removed object, field for field but the wall-clock time, plus "<run>-item-<item>".
        let run0 = ((codes.first?["id"] as? String) ?? "").split(separator: "-").first.map(String.init) ?? "none"
        for (line, item) in zip(removedLines, items) {
            for key in Set(line.keys).union(item.keys) where key != "time" && key != "id" {
                #expect((line[key] as? NSObject) == (item[key] as? NSObject), "field \(key): \(line[key] ?? "missing") vs \(item[key] ?? "missing")")
            }
            #expect(item["id"] as? String == "\(run0)-item-\(item["item"] as? Int ?? -1)", "\(item)")
        }
        #expect(Set(items.compactMap { $0["item"] as? Int }) == Set(itemIDs))

        // PREFIX/item_events: per item, "added" (with its code message's id) before "removed" (with its items message's).
        for (code, line) in zip(codes, codeLines) {
            let item = line["item"] as? Int ?? -1
            let mine = events.filter { $0["item"] as? Int == item }
            #expect(mine.map { $0["event_type"] as? String ?? "" } == ["added", "removed"], "item \(item): \(mine)")
            #expect(mine.allSatisfy { $0["text"] as? String == line["text"] as? String && $0["symbology"] as? String == "qrcode" }, "\(mine)")
            #expect(mine.first?["id"] as? String == code["id"] as? String && code["item"] as? Int == item)
            #expect(mine.last?["id"] as? String == "\(run0)-item-\(item)")
        }

        // The discovered event entity reads that topic and knows those event types (retained for Home Assistant).
        let nodeTopic = try #require(try MosquittoSubscriber.retained(on: "homeassistant/event/+/items/config", broker: broker).flatMap(object))
        #expect(nodeTopic["state_topic"] as? String == prefix + "/item_events")
        #expect(Set(events.compactMap { $0["event_type"] as? String }).isSubset(of: Set(nodeTopic["event_types"] as? [String] ?? [])))

        // Codes only in the code counters: emitted = published + queued + spooled + dropped; no item message dropped.
        let summary = try summaryCounts(run.stderr)
        #expect(summary["codes_emitted"] == 3 && summary["mqtt_published"] == 3, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("mqtt_published=3 mqtt_queued=0 mqtt_spooled=0 mqtt_dropped=0 mqtt_items_dropped=0"), "stderr: \(run.stderr)")
    }

    /// Without Home Assistant discovery, items' messages are on `PREFIX/items` only: no event topic.
    @Test func withoutDiscoveryThereAreNoItemEvents() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker, topic: "syncscan/test/plain/#")
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try itemFrames()), suffix: ".y4m")
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/plain"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let marker = try ExternalTool.run("mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "syncscan/test/plain/marker", "-m", "end"])
        #expect(marker.status == 0, "\(marker.describe())")
        let messages = subscriber.wait { $0.contains { $0.topic == "syncscan/test/plain/marker" } }
        #expect(messages.count { $0.topic == "syncscan/test/plain/items" } == 3, "\(messages.map(\.topic))")
        #expect(!messages.contains { $0.topic.hasSuffix("/item_events") }, "\(messages.map(\.topic))")
    }
}
