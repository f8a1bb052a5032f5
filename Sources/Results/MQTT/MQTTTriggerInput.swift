import Capture
import Logging
import MQTT
import SystemCalls

/// The MQTT handler's trigger input (`mqtt.trigger`): messages on `<prefix>/trigger` press and
/// release the scan's `TriggerSwitch` (origin `mqtt`).
///
/// A payload, with ASCII spaces and line ends around it ignored and letters in any case: `press`,
/// `1`, `on` presses; `release`, `0`, `off` releases. An empty payload (zero bytes: what clears a
/// retained message, `mosquitto_pub -r -n`, and what the broker then hands every subscriber) is
/// neither, retained or not: counted with the rejected, logged at debug level. Anything else, a
/// payload over `maxPayloadBytes`, and a retained message (the broker would hand it over again at
/// every subscribe, pressing at each reconnect) are rejected: counted and each kind logged once a
/// run, never once per message. It runs on the handler's thread inside the connection's loop,
/// where the switch's `press` and `release` only record the pull (bounded, never blocking).
struct MQTTTriggerInput {
    /// What a message on the trigger topic asks for.
    enum Command: Equatable {
        case press, release
        /// An empty payload: no command, logged at debug level only.
        case empty
        /// Not a command: why, the kind logged once.
        case rejected(kind: String)
    }

    /// Longer payloads are no command.
    static let maxPayloadBytes = 64

    /// `<prefix>/trigger`.
    let topic: String
    let triggers: TriggerSwitch
    let logger: Logger
    private var logged: Set<String> = []

    init(topic: String, triggers: TriggerSwitch, logger: Logger) {
        (self.topic, self.triggers, self.logger) = (topic, triggers, logger)
    }

    /// The command `message` carries.
    static func command(_ message: MQTTConnection.Received) -> Command {
        if message.length == 0 { return .empty }
        if message.retained { return .rejected(kind: "retained") }
        guard message.length <= maxPayloadBytes else { return .rejected(kind: "too long") }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let bytes = message.payload.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        switch String(decoding: bytes, as: UTF8.self).lowercased() {
        case "press", "1", "on": return .press
        case "release", "0", "off": return .release
        default: return .rejected(kind: "unknown")
        }
    }

    /// Presses or releases for `message` when it is on the trigger topic; whether it was no
    /// command (rejected, logged the first time of its kind; or empty, logged at debug level).
    mutating func receive(_ message: MQTTConnection.Received) -> Bool {
        guard message.topic == topic else { return false }
        switch Self.command(message) {
        case .press: triggers.press(origin: "mqtt")
        case .release: triggers.release(origin: "mqtt")
        case .empty:
            logger.debug("MQTT trigger message with an empty payload ignored (as when a retained trigger is cleared): it neither presses nor releases",
                         metadata: ["topic": "\(LogText.untrusted(topic))", "retained": "\(message.retained)"])
            return true
        case .rejected(let kind):
            if logged.insert(kind).inserted {
                logger.warning("MQTT trigger message ignored: \(Self.reason(kind)); further ones are counted in mqtt_triggers_rejected, not logged",
                               metadata: ["topic": "\(LogText.untrusted(topic))", "payload": "\(Self.shownPayload(message))",
                                          "bytes": "\(message.length)"])
            }
            return true
        }
        return false
    }

    /// Why a kind of message is no command, and what to send instead.
    static func reason(_ kind: String) -> String {
        switch kind {
        case "retained":
            return "it is retained (it would press at every reconnect): publish triggers without retain, and clear it with an empty retained message"
        case "too long": return "its payload is over \(maxPayloadBytes) bytes: send press, 1 or on to press; release, 0 or off to release"
        default: return "its payload is not a command: send press, 1 or on to press; release, 0 or off to release"
        }
    }

    /// The payload's first 32 bytes as the log shows untrusted bytes (`LogText`).
    static func shownPayload(_ message: MQTTConnection.Received) -> String {
        LogText.untrusted(bytes: message.payload, length: message.length, limit: 32)
    }
}
