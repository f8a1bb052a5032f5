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

    public init(url: MQTTBrokerURL) { self.url = url }

    /// `video0` for `/dev/video0`, `dock` for `y4m:/data/dock.y4m`, `stdin` for `-`: the last
    /// path component without its extension, for topics and client ids.
    public static func sourceName(_ uri: String) -> String {
        var path = uri
        for scheme in ["v4l2:", "y4m:"] where path.hasPrefix(scheme) { path = String(path.dropFirst(scheme.count)) }
        if path == "-" || path.isEmpty { return "stdin" }
        var name = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        let cleaned = String(name.map { $0 == "+" || $0 == "#" || $0 == "/" ? "_" : $0 })
        return cleaned.isEmpty ? "stdin" : cleaned
    }
}
