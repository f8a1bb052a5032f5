import Capture
import Foundation
import Media
import MQTT
import Testing
import TestSupport
@testable import Results

private let fixedTime = WallClockTime(secondsSince1970: 1_795_000_000, milliseconds: 7)

private func removedItem(_ id: UInt64, text: String?, data: [UInt8]? = nil) -> RemovedItem {
    RemovedItem(id: id, symbology: .qrcode, data: data ?? Array((text ?? "").utf8), text: text,
                first: ItemFrame(sequenceNumber: 3, presentationTime: MediaTime(nanoseconds: 300_000_000)),
                last: ItemFrame(sequenceNumber: 9, presentationTime: MediaTime(nanoseconds: 900_000_000)),
                framesPresent: 7, framesRead: 5, corners: [PixelPoint(x: 1, y: 2), PixelPoint(x: 30, y: 2), PixelPoint(x: 30, y: 40)])
}

private func parse(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], "\(String(decoding: bytes, as: UTF8.self))")
}

@Suite(.offThePool) struct MQTTItemMessagesTests {
    @Test func anItemsMessageIsTheStdoutItemRemovedObjectPlusItsID() throws {
        let item = removedItem(12, text: "parcel \"7\"\n")
        let line = JSONLineEncoder().encode(removed: item, source: "y4m:-", time: fixedTime)
        let message = MQTTItemMessages.removed(item, id: MQTTItemMessages.id(run: "ab12", item: item.id), source: "y4m:-", time: fixedTime)
        #expect(!message.contains(UInt8(ascii: "\n")), "one message, no newline")
        #expect(Array(message.prefix(line.count - 2)) == Array(line.dropLast(2)), "the stdout object's bytes, field for field, then the id")
        var object = try parse(message)
        #expect(object["id"] as? String == "ab12-item-12")
        #expect(object["type"] as? String == "item_removed" && object["item"] as? Int == 12 && object["text"] as? String == "parcel \"7\"\n")
        object["id"] = nil
        #expect(NSDictionary(dictionary: object) == NSDictionary(dictionary: try parse(Array(line.dropLast()))))
    }

    @Test func eventsSayAddedOrRemovedWithTheItemAndItsPayload() throws {
        let frame = FrameInfo(sequenceNumber: 3, presentationTime: MediaTime(nanoseconds: 300_000_000), width: 64, height: 64, format: .yuyv)
        let code = MachineReadableCodeObject(symbology: .qrcode, data: Array("label-1".utf8), text: "label-1", quality: 1, orientation: .up,
                                             corners: [], frame: frame, pass: .zbar)
        let added = try parse(MQTTItemMessages.added(code, item: 4, id: "ab12-3-0"))
        #expect(added["event_type"] as? String == "added" && added["item"] as? Int == 4 && added["id"] as? String == "ab12-3-0")
        #expect(added["symbology"] as? String == "qrcode" && added["text"] as? String == "label-1" && added["data_b64"] as? String == "bGFiZWwtMQ==")

        // A binary payload has no text, only its bytes.
        let removed = try parse(MQTTItemMessages.removedEvent(removedItem(4, text: nil, data: [0, 255]), id: "ab12-item-4"))
        #expect(removed["event_type"] as? String == "removed" && removed["item"] as? Int == 4 && removed["id"] as? String == "ab12-item-4")
        #expect(removed["text"] == nil && removed["data_b64"] as? String == "AP8=")
        #expect(removed["dwell"] as? Double == 0.6 && removed["frames_present"] as? Int == 7 && removed["frames_read"] as? Int == 5)
        #expect(removed["read_rate"] as? Double == 0.714)
        // Home Assistant's event entity accepts only the types its config lists.
        #expect(Set([added, removed].compactMap { $0["event_type"] as? String }) == Set(HomeAssistantDiscovery.itemEventTypes))
    }

    /// No broker: codes go to the spool (counted as spooled), items' messages do not: they are
    /// dropped at exit and counted apart, so the codes' counters still add up.
    @Test(arguments: [true, false])
    func itemsMessagesAreNeitherSpooledNorCountedAsCodes(spooling: Bool) throws {
        let spool = try TemporaryDirectory()
        var settings = MQTTSettings(url: try MQTTBrokerURL(parsing: "mqtt://127.0.0.1:\(try MosquittoBroker.freePort())"))
        settings.homeAssistantDiscovery = true
        if spooling { settings.spoolDirectory = spool.path }
        let logs = LogRecorder()
        let handler = MQTTResultsHandler(settings: settings, source: "/dev/video0", hostname: "test", password: nil, softwareVersion: "0",
                                         logger: logs.logger, overflow: .drop)
        handler.drainTimeoutSeconds = 0.2
        handler.start()
        for seq in UInt64(1)...3 {
            try handOver(item: seq, to: handler)
        }
        try handler.finish()
        // 3 codes; 3 `items` messages and 6 events (an added and a removed per item).
        #expect(counter(handler, "mqtt_published") == 0 && counter(handler, "mqtt_queued") == 0)
        #expect(counter(handler, "mqtt_spooled") == (spooling ? 3 : 0) && counter(handler, "mqtt_dropped") == (spooling ? 0 : 3))
        #expect(counter(handler, "mqtt_items_dropped") == 9)
        #expect(logs.contains("MQTT item messages not delivered at exit"))
    }

    /// A file source (`.wait`) with a connected broker loses nothing: `handle` and `itemRemoved`
    /// wait while the memory queue holds `queue_messages` messages of any kind, so items' messages
    /// never push a code (or one another) out of a queue of two.
    @Test func waitingForRoomCountsItemsMessagesSoNoCodeIsPushedOut() throws {
        let broker = try MosquittoBroker()
        let handler = try startedMQTTHandler(broker, source: "/dev/video0") { ($0.queueMessages, $0.homeAssistantDiscovery) = (2, true) }
        #expect(waitUntil { handler.isConnected }, "connected")
        for seq in UInt64(1)...100 {
            try handOver(item: seq, to: handler)
        }
        try handler.finish()
        #expect(counter(handler, "mqtt_published") == 100 && counter(handler, "mqtt_dropped") == 0)
        #expect(counter(handler, "mqtt_items_dropped") == 0)
    }
}

/// Item `seq`'s first reading (a code `item seq`), then its removal, handed to `handler`.
private func handOver(item seq: UInt64, to handler: MQTTResultsHandler) throws {
    let frame = GreyFrame(width: 16, height: 16).videoFrame(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 100_000_000))
    var code = DeliveredCode(code: MachineReadableCodeObject(symbology: .qrcode, data: Array("item \(seq)".utf8), text: "item \(seq)",
                                                             quality: 1, orientation: .up, corners: [], frame: frame.info, pass: .zbar))
    code.item = seq
    try handler.handle(&code)
    try handler.itemRemoved(removedItem(seq, text: "item \(seq)"))
}

@Suite(.offThePool) struct MQTTMismatchTests {
    /// A code that did not match `match.*` goes to `<prefix>/mismatch` too, after its `codes`
    /// message, with the same object (its `"match":false` and id); a matching code and one with no
    /// match configured only to `codes`.
    @Test func aMismatchingCodeIsPublishedAgainOnTheMismatchTopic() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker, topic: "scan/#")
        let handler = try startedMQTTHandler(broker, source: "/dev/video0") { $0.topicPrefix = "scan" }
        for (seq, match) in [(UInt64(1), Bool?.some(true)), (2, false), (3, nil)] {
            let frame = GreyFrame(width: 16, height: 16).videoFrame(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 100_000_000))
            var code = DeliveredCode(code: MachineReadableCodeObject(symbology: .qrcode, data: Array("SN-\(seq)".utf8), text: "SN-\(seq)",
                                                                     quality: 1, orientation: .up, corners: [], frame: frame.info, pass: .zbar))
            code.match = match
            try handler.handle(&code)
        }
        let messages = subscriber.wait { $0.count { $0.topic == "scan/codes" } == 3 && $0.contains { $0.topic == "scan/mismatch" } }
        try handler.finish()
        let codes = messages.filter { $0.topic == "scan/codes" }.map(\.payload)
        let mismatches = messages.filter { $0.topic == "scan/mismatch" }.map(\.payload)
        #expect(codes.count == 3 && codes[0].contains(#""match":true"#) && codes[1].contains(#""match":false"#) && !codes[2].contains("match"),
                "\(codes)")
        #expect(mismatches == [codes[1]], "the code's own message, id and all: \(mismatches)")
        #expect(counter(handler, "mqtt_published") == 3 && counter(handler, "mqtt_items_dropped") == 0)
    }
}
