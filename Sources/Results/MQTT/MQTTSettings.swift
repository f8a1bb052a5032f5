import ConfigurationKeys
import GS1
import MQTT

/// Where and how the MQTT handler publishes (`mqtt.*`).
public struct MQTTSettings: Sendable, Hashable {
    public var url: MQTTBrokerURL
    /// Topics are `<prefix>/codes`, `<prefix>/status`, `<prefix>/stats`; `nil`:
    /// `syncscan/<hostname>/<source name>`.
    public var topicPrefix: String?
    /// `nil`: `syncscan-<hostname>-<source name>`.
    public var clientID: String?
    public var qos = 1
    public var keepaliveSeconds = 30
    public var username: String?
    /// A file whose first line is the password (read at start).
    public var passwordFile: String?
    /// CA certificates verifying an `mqtts://` broker.
    public var caFile: String?
    /// Messages waiting in memory for the broker; past that codes go to the spool, or without one
    /// the oldest are dropped and counted.
    public var queueMessages = 10_000
    /// Where codes wait on disk once the memory queue is full, and across a restart; `nil`: no spool.
    /// The configuration reader makes systemd's `$STATE_DIRECTORY` the default.
    public var spoolDirectory: String?
    /// The spool's bound in bytes; past it the oldest codes are dropped and counted.
    public var spoolMaxBytes = 64 << 20
    /// Home Assistant MQTT discovery (`HomeAssistantDiscovery`): `true`, its configs are published
    /// on every connect; `false`, emptied (so Home Assistant removes the device); `nil` (not
    /// set), nothing is published under the discovery prefix.
    public var homeAssistantDiscovery: Bool?
    /// Home Assistant's discovery prefix (its MQTT integration's setting).
    public var homeAssistantPrefix = "homeassistant"
    /// `mqtt.trigger`: messages on `<prefix>/trigger` press and release the scan's trigger
    /// (`MQTTTriggerInput`), and Home Assistant's discovery adds a button that presses it.
    public var trigger = false
    /// A GS1 AI (`01`): a code with a valid element of it goes to `<prefix>/gs1/<ai>/<value>`
    /// instead of `<prefix>/codes` (`MQTTGS1Topic`); `nil`: every code to `<prefix>/codes`.
    public var topicByAI: String?

    public init(url: MQTTBrokerURL) { self.url = url }
}

extension MQTTSettings: ConfigurationSection {
    /// Reads `mqtt.*` (given `keys.scoped(to: "mqtt")`), Home Assistant's `mqtt.homeassistant.*`
    /// included; every key is read (so each is known) whether or not `mqtt.url` is set. `nil`: no `mqtt.url`.
    public init?(reading keys: ConfigurationKeyReader) {
        let urlText = keys.string("url", "mqtt://HOST:PORT or mqtts://HOST:PORT", isSecret: true)
        var url: MQTTBrokerURL?
        if let urlText {
            do { url = try MQTTBrokerURL(parsing: urlText) } catch { keys.problem("url", "\(error)") }
        }
        self.init(url: url ?? (try! MQTTBrokerURL(parsing: "mqtt://localhost")))
        if let v = keys.string("topic_prefix") {
            if Self.isTopicPrefix(v) { topicPrefix = v } else {
                keys.problem("topic_prefix", "\"\(v)\" is not a topic prefix: no leading or trailing /, no + or # wildcards (e.g. syncscan/dock1/video0)")
            }
        }
        if let v = keys.string("client_id") {
            if v.isEmpty || v.utf8.count > 65535 { keys.problem("client_id", "must be 1 to 65535 bytes; remove the key for syncscan-<hostname>-<source>") }
            else { clientID = v }
        }
        if let v = keys.int("qos", in: 0...2, " (MQTT QoS: 0 at most once, 1 at least once, 2 exactly once)") { qos = v }
        if let v = keys.int("keepalive_seconds", in: 5...65535) { keepaliveSeconds = v }
        username = keys.string("username")
        passwordFile = keys.filePath("password_file")
        if passwordFile != nil && username == nil { keys.problem("password_file", "needs \(keys.fullKey("username")) too") }
        caFile = keys.filePath("ca_file")
        if let v = keys.int("queue_messages", in: 1...10_000_000) { queueMessages = v }
        // "" turns the spool off; the default is the unit's state directory (systemd's $STATE_DIRECTORY).
        let spool = keys.string("spool_directory", "a directory path, or \"\" for none") ?? keys.systemdStateDirectory
        spoolDirectory = spool?.isEmpty == false ? spool : nil
        if let v = keys.int("spool_max_bytes", in: 4096...(1 << 40)) { spoolMaxBytes = v }
        if let v = keys.bool("trigger") { trigger = v }
        readHomeAssistant(keys.scoped(to: "homeassistant"))
        if let ai = keys.string("topic_by_ai", "a GS1 Application Identifier (01)") {
            if GS1.isApplicationIdentifier(ai) { topicByAI = ai } else {
                keys.problem("topic_by_ai", "\"\(ai)\" is not a GS1 Application Identifier (2 to 4 digits: 01 the GTIN, 00 the SSCC, 10 the batch)")
            }
        }
        if let url, url.tls, caFile == nil {
            keys.problem("url", "mqtts:// needs \(keys.fullKey("ca_file")) (the CA certificates that verify the broker)")
        }
        if url == nil { return nil }
    }

    /// `mqtt.homeassistant.*`: Home Assistant's MQTT discovery.
    private mutating func readHomeAssistant(_ keys: ConfigurationKeyReader) {
        if let v = keys.bool("discovery") { homeAssistantDiscovery = v }
        if let v = keys.string("prefix") {
            if Self.isTopicPrefix(v) { homeAssistantPrefix = v } else {
                keys.problem("prefix", "\"\(v)\" is not a discovery prefix: no leading or trailing /, no + or # wildcards (Home Assistant's default is homeassistant)")
            }
        }
    }

    /// Not empty, no leading or trailing `/`, no `+` or `#` wildcard.
    private static func isTopicPrefix(_ text: String) -> Bool {
        !(text.isEmpty || text.hasSuffix("/") || text.hasPrefix("/") || text.contains("+") || text.contains("#"))
    }
}
