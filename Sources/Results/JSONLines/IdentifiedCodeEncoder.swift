import Capture
import Media

/// A code's stdout JSON object plus `"id": "<prefix>-<frame seq>-<index>"` (the index counts the
/// codes of one frame), without the newline: the message MQTT and the webhook send, the id the
/// same on every retry so a receiver can drop a repeated delivery. Owned by one handler's `handle`.
struct IdentifiedCodeEncoder {
    let prefix: String
    private let encoder = JSONLineEncoder()
    /// Frame of the last code encoded and the codes of it so far.
    private var lastFrame: (sequence: UInt64, index: Int)?

    init(prefix: String) { self.prefix = prefix }

    /// The id of `code` and its object (through the encoder's own field list).
    mutating func encode(_ code: DeliveredCode, source: String, time: WallClockTime) -> (id: String, payload: [UInt8]) {
        let frame = code.code.frame.sequenceNumber
        let index = lastFrame.map { $0.sequence == frame ? $0.index + 1 : 0 } ?? 0
        lastFrame = (frame, index)
        let id = "\(prefix)-\(frame)-\(index)"
        var payload = encoder.encode(code, source: source, time: time, extra: [(name: "id", value: id)])
        payload.removeLast()
        return (id, payload)
    }
}
