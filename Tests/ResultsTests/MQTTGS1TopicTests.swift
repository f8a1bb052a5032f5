import Capture
import Decoders
import Foundation
import Media
import MQTT
import Testing
import TestSupport
@testable import Results

private let gs = "\u{1D}"

/// A code as a decoder gives it: `text`'s bytes, with `identifier` (`]C1` GS1-128, `]Q1` plain QR).
private func code(_ text: String, identifier: String, seq: UInt64 = 1) -> DeliveredCode {
    let frame = FrameInfo(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 33_333_333), width: 64, height: 64, format: .grey)
    return DeliveredCode(code: MachineReadableCodeObject(symbology: identifier.hasPrefix("]C") ? .code128 : .qrcode, data: Array(text.utf8),
                                                         text: text, quality: 1, orientation: .up, corners: [], frame: frame, pass: .zxingFast,
                                                         symbologyIdentifier: identifier))
}

@Suite(.offThePool) struct MQTTGS1TopicTests {
    @Test func aValueIsOneTopicLevelWithoutWildcards() {
        #expect(MQTTGS1Topic.level("09506000134352") == "09506000134352")
        #expect(MQTTGS1Topic.level("A/B+C#1%") == "A%2FB%2BC%231%25")
        #expect(MQTTGS1Topic.level("a b\u{1}") == "a%20b%01")
        let topic = MQTTGS1Topic(prefix: "site/dock1", ai: "10")
        #expect(topic.topic(for: code("0109506000134352" + "10A/B+C", identifier: "]C1").code) == "site/dock1/gs1/10/A%2FB%2BC")
        #expect(topic.topic(for: code("0109506000134352", identifier: "]C1").code) == nil, "no element of the AI")
        #expect(topic.topic(for: code("0109506000134353" + "10X", identifier: "]C1").code) == nil, "at fault (check digit): not routed")
        #expect(topic.topic(for: code("0109506000134352" + "10X", identifier: "]C0").code) == nil, "not GS1 (Code 128 without FNC1)")
    }

    /// A real broker: with `topic_by_ai` 01, each GS1 code with a GTIN (GS1-128, a Digital Link
    /// in a QR code) arrives on its GTIN's topic and not on `codes`; a plain QR code and a GS1 code
    /// at fault arrive on `codes`; one message per code, every code counted as published.
    @Test func eachGTINsCodesArriveOnItsOwnTopic() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker, topic: "syncscan/test/gs1r/#")
        let handler = try startedMQTTHandler(broker, source: "y4m:test") { ($0.topicPrefix, $0.topicByAI) = ("syncscan/test/gs1r", "01") }
        #expect(waitUntil { handler.isConnected }, "connected")
        var codes = [code("0109506000134352" + "17201225" + "10ABC" + gs + "21S1", identifier: "]C1", seq: 1),
                     code("https://id.gs1.org/01/9506000134352/10/XYZ", identifier: "]Q1", seq: 2),
                     code("plain text", identifier: "]Q1", seq: 3),
                     code("0109506000134353", identifier: "]C1", seq: 4),
                     code("00106141411234567897", identifier: "]C1", seq: 5)]
        for i in codes.indices { try handler.handle(&codes[i]) }
        let messages = subscriber.wait { $0.count { $0.topic.hasPrefix("syncscan/test/gs1r/") && !$0.topic.hasSuffix("/status") } >= 5 }
            .filter { !$0.topic.hasSuffix("/status") }
        try handler.finish()
        let gtinTopic = "syncscan/test/gs1r/gs1/01/09506000134352"
        #expect(messages.map(\.topic) == [gtinTopic, gtinTopic, "syncscan/test/gs1r/codes", "syncscan/test/gs1r/codes", "syncscan/test/gs1r/codes"],
                "\(messages)")
        #expect(messages.first?.payload.contains("\"gs1\":{\"hri\":\"(01)09506000134352(17)201225(10)ABC(21)S1\"") == true)
        #expect(messages[1].payload.contains("XYZ") && messages[2].payload.contains("plain text"))
        #expect(messages[3].payload.contains("\"gs1_error\""), "the code at fault is on codes with its fault")
        #expect(counter(handler, "mqtt_published") == 5, "one message per code, each counted")
    }
}
