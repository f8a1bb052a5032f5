import Capture
import Foundation
import Media

/// The payloads an item makes on MQTT: its `item_removed` object on `<prefix>/items`, and the
/// small `added` and `removed` events Home Assistant's event entity reads on `<prefix>/item_events`
/// (`HomeAssistantDiscovery`: the entity takes `event_type` and keeps the other fields as the
/// event's attributes).
enum MQTTItemMessages {
    /// `<run>-item-<item>`: an item message's `id`, the same on every resend (the item's id is unique in the run).
    static func id(run: String, item: UInt64) -> String { "\(run)-item-\(item)" }

    /// The stdout `item_removed` object (`JSONLineEncoder.encode(removed:source:time:)`) without
    /// the newline, plus `"id"` as its last field.
    static func removed(_ item: RemovedItem, id: String, source: String, time: WallClockTime) -> [UInt8] {
        var bytes = JSONLineEncoder().encode(removed: item, source: source, time: time)
        bytes.removeLast(2)  // `}\n`
        bytes += Array(",\"id\":".utf8) + JSONLineEncoder.quoted(id) + [UInt8(ascii: "}")]
        return bytes
    }

    /// `{"event_type":"added","item":…,"symbology":…,"text":…,"data_b64":…,"id":…}`: an item's
    /// first reading, `id` its code message's.
    static func added(_ code: MachineReadableCodeObject, item: UInt64, id: String) -> [UInt8] {
        var out = JSONBuffer()
        out.raw("{\"event_type\":\"added\",\"item\":\(item)")
        payload(&out, symbology: code.symbology, text: code.text, data: code.data)
        out.raw(",\"id\":")
        out.string(id)
        out.raw("}")
        return out.bytes
    }

    /// `{"event_type":"removed","item":…,"symbology":…,"text":…,"data_b64":…,"dwell":…,
    /// "frames_present":…,"frames_read":…,"read_rate":…,"id":…}`, `id` its `items` message's.
    static func removedEvent(_ item: RemovedItem, id: String) -> [UInt8] {
        var out = JSONBuffer()
        out.raw("{\"event_type\":\"removed\",\"item\":\(item.id)")
        payload(&out, symbology: item.symbology, text: item.text, data: item.data)
        out.raw(",\"dwell\":\(item.dwell),\"frames_present\":\(item.framesPresent),\"frames_read\":\(item.framesRead)")
        out.raw(",\"read_rate\":" + DecimalText.string(item.readRate, fractionDigits: 3))
        out.raw(",\"id\":")
        out.string(id)
        out.raw("}")
        return out.bytes
    }

    /// `,"symbology":…,"text":…,"data_b64":…` (`text` only when the payload has one), as code lines write them.
    private static func payload(_ out: inout JSONBuffer, symbology: Symbology, text: String?, data: [UInt8]) {
        out.raw(",\"symbology\":")
        out.string(symbology.rawValue)
        if let text {
            out.raw(",\"text\":")
            out.string(text)
        }
        out.raw(",\"data_b64\":\"")
        out.raw(Data(data).base64EncodedString())
        out.raw("\"")
    }
}
