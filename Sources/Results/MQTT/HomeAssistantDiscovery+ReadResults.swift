import MQTT

/// The read results' entities (published in `trigger.mode: triggered`) and the trigger's button (with `mqtt.trigger`).
///
/// Home Assistant reads them from topics the scan publishes: the counters from `<prefix>/stats`
/// (a field each, 0 while a stats message has none), the "No read" binary sensor from the
/// `read_result` messages on `<prefix>/results` (on after a `no_read`, off after any other
/// result), and the last no-read's picture from the retained JPEG on `<prefix>/no_read/image`
/// (Home Assistant's MQTT image with `image_topic`). The button publishes `press` to
/// `<prefix>/trigger` (`MQTTTriggerInput`).
extension HomeAssistantDiscovery {
    /// A counter of the stats: its field (the object id too), its name, its unit, and whether it is diagnostic.
    public struct ReadCounter: Sendable, Hashable {
        public var field: String
        public var name: String
        public var unit: String
        public var diagnostic: Bool
    }

    /// The read results' and the triggers' counters in `<prefix>/stats`.
    public static let readCounters = [
        ReadCounter(field: "reads_good", name: "Good reads", unit: "reads", diagnostic: false),
        ReadCounter(field: "reads_no_read", name: "No-reads", unit: "reads", diagnostic: false),
        ReadCounter(field: "reads_multiple", name: "Multiple reads", unit: "reads", diagnostic: false),
        ReadCounter(field: "reads_mismatch", name: "Mismatched reads", unit: "reads", diagnostic: false),
        ReadCounter(field: "triggers", name: "Triggers", unit: "triggers", diagnostic: false),
        ReadCounter(field: "triggers_dropped", name: "Triggers dropped", unit: "triggers", diagnostic: true),
        ReadCounter(field: "triggers_ignored", name: "Triggers ignored", unit: "triggers", diagnostic: true),
    ]

    /// The payload the button publishes, a press (`MQTTTriggerInput`).
    public static let buttonPayload = "press"

    /// The counters' sensors, the "No read" binary sensor, the no-read picture.
    public var readResultConfigs: [Config] {
        let (stats, results) = (topicPrefix + "/stats", topicPrefix + "/results")
        let counters = Self.readCounters.map { counter in
            // A count since the start: Home Assistant's total_increasing takes its reset at a restart.
            sensor(counter.field, name: counter.name, [
                ("state_topic", .string(stats)), ("value_template", .string("{{ value_json.\(counter.field) | default(0) }}")),
                ("unit_of_measurement", .string(counter.unit)), ("state_class", .string("total_increasing")),
            ] + (counter.diagnostic ? [("entity_category", .string("diagnostic"))] : []))
        }
        let attributes = "{{ {'result': value_json.result, 'window': value_json.window, 'trigger': value_json.trigger, "
            + "'snapshot': value_json.snapshot | default(none)} | tojson }}"
        return counters + [
            entity("binary_sensor", "no_read", name: "No read", [
                ("state_topic", .string(results)),
                ("value_template", .string("{{ 'ON' if value_json.result == 'no_read' else 'OFF' }}")),
                ("payload_on", .string("ON")), ("payload_off", .string("OFF")), ("device_class", .string("problem")),
                ("json_attributes_topic", .string(results)), ("json_attributes_template", .string(attributes)),
            ]),
            entity("image", "no_read_image", name: "Last no-read", [
                ("image_topic", .string(topicPrefix + "/no_read/image")), ("content_type", .string("image/jpeg")),
            ]),
        ]
    }

    /// The button that presses the trigger (published with `mqtt.trigger`, emptied without).
    public var triggerButton: Config {
        entity("button", "trigger", name: "Trigger", [
            ("command_topic", .string(topicPrefix + "/trigger")), ("payload_press", .string(Self.buttonPayload)),
            ("qos", .int(1)), ("retain", .bool(false)), ("icon", .string("mdi:barcode-scan")),
        ])
    }
}
