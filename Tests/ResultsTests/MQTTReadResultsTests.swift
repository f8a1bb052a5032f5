import Capture
import Foundation
import Media
import MQTT
import Testing
import TestSupport
@testable import Results

/// A read window's result on MQTT, against a real Mosquitto.
@Suite(.serialized, .offThePool) struct MQTTReadResultsTests {
    /// `<prefix>/results` gets the stdout read_result object with an id; a no_read's JPEG goes,
    /// retained, to `<prefix>/no_read/image`, byte for byte; a good result sends no image.
    @Test func resultsArePublishedAndANoReadsJPEGIsRetained() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker, topic: "reader/results")
        let handler = try startedMQTTHandler(broker) { $0.topicPrefix = "reader" }
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x0A, 0x0D, 0x0A, 0x00, 0xFF, 0xD9]  // bytes a text line would mangle
        let frame = { (seq: UInt64) in ItemFrame(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 100_000_000)) }
        var noRead = ReadResult(kind: .noRead, window: 1, trigger: "mqtt", opened: frame(1), closed: frame(4), codes: 0, framesScanned: 4)
        noRead.jpeg = jpeg
        noRead.snapshot = "/var/lib/syncscan/no_read-x-w000001.jpg"
        var good = ReadResult(kind: .good, window: 2, trigger: "sigusr1", opened: frame(9), closed: frame(12), codes: 1, items: [3],
                              framesScanned: 4)
        try handler.readResult(&noRead)
        try handler.readResult(&good)
        let messages = subscriber.wait { $0.count >= 2 }
        try handler.finish()

        let objects = try messages.map { try #require(JSONSerialization.jsonObject(with: Data($0.payload.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["result"] as? String } == ["no_read", "good"])
        #expect(objects.map { $0["window"] as? Int } == [1, 2] && objects[1]["items"] as? [Int] == [3])
        #expect(objects[0]["snapshot"] as? String == "/var/lib/syncscan/no_read-x-w000001.jpg")
        #expect(objects.allSatisfy { ($0["id"] as? String)?.hasSuffix("-window-\($0["window"] as? Int ?? 0)") == true })

        let image = try ExternalTool.run("mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "reader/no_read/image",
                                                          "-C", "1", "-W", "30", "-N"])
        #expect(image.status == 0 && image.stdout == jpeg, "the retained image is the JPEG: \(image.describe())")
    }
}
