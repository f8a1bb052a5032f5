import MQTT

/// The Home Assistant MQTT discovery configs of one source: a device with a `tag` scanner, three
/// sensors and an `event` entity for items; in `trigger.mode: triggered` the read results'
/// counters, a "No read" binary sensor and the last no-read's picture (`readResultConfigs`); and
/// with `mqtt.trigger` a button that presses the trigger. Each a retained JSON document on
/// `<discovery prefix>/<component>/<node id>/<object id>/config`.
///
/// Home Assistant reads from the topics the MQTT handler already publishes: the tag scanner and
/// the "last code" sensor from `<prefix>/codes` (the tag id and the state are the code's `text`,
/// else its `data_b64`; the sensor's attributes are its symbology, engine, bytes, frame, time,
/// snapshot and id), the "frames per second" and "dropped frames" sensors from `<prefix>/stats`,
/// and the "Items" event from `<prefix>/item_events` (an `added` event at an item's first reading,
/// a `removed` one when it leaves; the message's other fields are the event's attributes).
/// The sensors and the event are available while `<prefix>/status` says `online` (the Will says `offline`); the
/// `tag` schema has no availability and no unique id. The node id, the device's identifier and
/// the unique ids come from the host and source names alone, so they stay the same across
/// restarts and topic prefix changes, and a run with discovery off empties the same topics.
/// A value: it builds the documents and publishes nothing.
public struct HomeAssistantDiscovery: Sendable, Hashable {
    /// One discovery config.
    public struct Config: Sendable, Hashable {
        /// `tag`, `sensor` or `event`.
        public var component: String
        public var objectID: String
        /// `<discovery prefix>/<component>/<node id>/<object id>/config`.
        public var topic: String
        /// The JSON document.
        public var payload: [UInt8]
    }

    /// Home Assistant's discovery prefix (`mqtt.homeassistant.prefix`).
    public var discoveryPrefix: String
    /// The handler's topic prefix (`<prefix>/codes`, `<prefix>/status`, `<prefix>/stats`, `<prefix>/item_events`).
    public var topicPrefix: String
    public var hostname: String
    /// `SourceName.of` the source URI.
    public var sourceName: String
    /// syncscan's version (`syncscan --version`), the device's `sw_version`.
    public var softwareVersion: String

    public init(discoveryPrefix: String, topicPrefix: String, hostname: String, sourceName: String, softwareVersion: String) {
        (self.discoveryPrefix, self.topicPrefix, self.hostname) = (discoveryPrefix, topicPrefix, hostname)
        (self.sourceName, self.softwareVersion) = (sourceName, softwareVersion)
    }

    /// `syncscan_<host>_<source>` in Home Assistant's node id characters (`[a-zA-Z0-9_-]`, others
    /// become `_`): the node id of the topics, the device's identifier and the unique ids' stem.
    public var nodeID: String {
        String("syncscan_\(hostname)_\(sourceName)".map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" })
    }

    /// The event types of the items' event entity, the `event_type` of `<prefix>/item_events` messages.
    public static let itemEventTypes = ["added", "removed"]

    /// Every config: the scan's (`scanConfigs`), the read results' (`readResultConfigs`), the trigger's button.
    public var configs: [Config] { scanConfigs + readResultConfigs + [triggerButton] }

    /// The tag scanner, then the sensors: last code, frames per second, dropped frames; then the items' event.
    public var scanConfigs: [Config] {
        let (codes, stats) = (topicPrefix + "/codes", topicPrefix + "/stats")
        // A code without text (binary) is known by its bytes; a state is at most 255 characters.
        let codeID = "value_json.text | default(value_json.data_b64)"
        let attributes = "{{ {'symbology': value_json.symbology, 'engine': value_json.engine, 'data_b64': value_json.data_b64, "
            + "'frame': value_json.frame.seq, 'time': value_json.time, 'snapshot': value_json.snapshot | default(none), "
            + "'id': value_json.id} | tojson }}"
        return [
            config("tag", "scanner", [("topic", .string(codes)), ("value_template", .string("{{ \(codeID) }}"))]),
            sensor("last_code", name: "Last code", [
                ("state_topic", .string(codes)), ("value_template", .string("{{ (\(codeID))[:255] }}")),
                ("json_attributes_topic", .string(codes)), ("json_attributes_template", .string(attributes)),
                ("icon", .string("mdi:barcode-scan")),
            ]),
            sensor("frames_per_second", name: "Frames per second", [
                ("state_topic", .string(stats)), ("value_template", .string("{{ value_json.frames_per_second }}")),
                ("unit_of_measurement", .string("fps")), ("state_class", .string("measurement")),
                ("entity_category", .string("diagnostic")),
            ]),
            // A count since the start: Home Assistant's total_increasing takes its reset at a restart.
            sensor("dropped", name: "Dropped frames", [
                ("state_topic", .string(stats)), ("value_template", .string("{{ value_json.dropped }}")),
                ("unit_of_measurement", .string("frames")), ("state_class", .string("total_increasing")),
                ("entity_category", .string("diagnostic")),
            ]),
            // Home Assistant's event platform: `event_type` picks the type, the other fields are attributes.
            entity("event", "items", name: "Items", [
                ("state_topic", .string(topicPrefix + "/item_events")), ("event_types", .strings(Self.itemEventTypes)),
                ("icon", .string("mdi:barcode-scan")),
            ]),
        ]
    }

    /// What to publish on every connect (retained, QoS 1): the configs when `enabled` (the read
    /// results' only with `readResults`, the trigger's button only with `trigger`, else emptied);
    /// when `false`, an empty payload on each of their topics, which makes Home Assistant remove
    /// what they made; when `nil` (discovery never mentioned), nothing.
    public func messages(enabled: Bool?, trigger: Bool = false, readResults: Bool = false) -> [MQTTConnection.Message] {
        guard let enabled else { return [] }
        let button = triggerButton.topic
        let results = Set(readResultConfigs.map(\.topic))
        return configs.map { config in
            let on = enabled && (config.topic != button || trigger) && (!results.contains(config.topic) || readResults)
            return MQTTConnection.Message(topic: config.topic, payload: on ? config.payload : [], qos: 1, retain: true)
        }
    }

    // MARK: - Documents

    /// A config document's value: a string, a number, a truth value, a list of strings, or an object with its fields in order.
    indirect enum Value {
        case string(String)
        case int(Int)
        case bool(Bool)
        case strings([String])
        case object([(String, Value)])

        func write(to buffer: inout JSONBuffer) {
            switch self {
            case .string(let s): buffer.string(s)
            case .int(let n): buffer.raw(String(n))
            case .bool(let b): buffer.raw(b ? "true" : "false")
            case .strings(let list):
                buffer.raw("[")
                for (i, s) in list.enumerated() { if i > 0 { buffer.raw(",") }; buffer.string(s) }
                buffer.raw("]")
            case .object(let fields):
                buffer.raw("{")
                for (i, (key, value)) in fields.enumerated() {
                    if i > 0 { buffer.raw(",") }
                    buffer.string(key)
                    buffer.raw(":")
                    value.write(to: &buffer)
                }
                buffer.raw("}")
            }
        }
    }

    /// The device every config names (Home Assistant groups the entities under it).
    private var device: Value {
        .object([("identifiers", .strings([nodeID])), ("name", .string("syncscan \(hostname) \(sourceName)")),
                 ("model", .string("syncscan")), ("sw_version", .string(softwareVersion))])
    }

    func sensor(_ objectID: String, name: String, _ fields: [(String, Value)]) -> Config {
        entity("sensor", objectID, name: name, fields)
    }

    /// A config with a name, a unique id and the status as availability (every schema but `tag`'s).
    func entity(_ component: String, _ objectID: String, name: String, _ fields: [(String, Value)]) -> Config {
        config(component, objectID, [("name", .string(name)), ("unique_id", .string("\(nodeID)_\(objectID)"))] + fields + [
            ("availability_topic", .string(topicPrefix + "/status")),
            ("payload_available", .string("online")), ("payload_not_available", .string("offline")),
        ])
    }

    private func config(_ component: String, _ objectID: String, _ fields: [(String, Value)]) -> Config {
        var buffer = JSONBuffer()
        Value.object(fields + [("device", device)]).write(to: &buffer)
        return Config(component: component, objectID: objectID,
                      topic: "\(discoveryPrefix)/\(component)/\(nodeID)/\(objectID)/config", payload: buffer.bytes)
    }
}
