import MQTT
import Outbox

extension MQTTConnection.Message {
    /// The message an outbox message is published as: its key is the topic.
    init(_ message: OutboxMessage) {
        self.init(topic: message.key, payload: message.payload, qos: message.qos, retain: message.retain)
    }
}

extension OutboxMessage {
    /// `message` on its way through the outbox as `kind`: its topic is the key.
    init(_ message: MQTTConnection.Message, kind: Kind) {
        self.init(key: message.topic, payload: message.payload, kind: kind, qos: message.qos, retain: message.retain)
    }
}
