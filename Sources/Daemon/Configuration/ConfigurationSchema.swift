import ZBar

/// Every configuration key syncscan knows, with its value type and its environment variable.
///
/// Keys are dotted paths into the YAML file (`device.max_width`, `zbar.qrcode.min-length`).
/// The environment variable of a key is `SYNCSCAN_` plus the key upper-cased with every `.`
/// and `-` turned into `_` (`SYNCSCAN_DEVICE_MAX_WIDTH`, `SYNCSCAN_ZBAR_QRCODE_MIN_LENGTH`),
/// which is how swift-configuration's `EnvironmentVariablesProvider` names keys.
public enum ConfigurationSchema {
    /// What a key holds.
    public enum ValueKind: Sendable, Hashable {
        case string, int, double, bool
        /// A list of symbology names, or the single word `all`.
        case symbologyList

        /// The phrase an error uses: `expected an integer`.
        var expectation: String {
            switch self {
            case .string: "a string"
            case .int: "an integer"
            case .double: "a number"
            case .bool: "true or false"
            case .symbologyList: "a list of symbology names or \"all\""
            }
        }
    }

    /// One key: its dotted path and what it holds.
    public struct Key: Sendable, Hashable {
        public let path: [String]
        public let kind: ValueKind
        /// The dotted form, as written in error messages and in `overrides:`.
        public var name: String { path.joined(separator: ".") }
        /// The environment variable that sets it.
        public var environmentVariable: String {
            ConfigurationSchema.environmentPrefix + path.map {
                String($0.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
            }.joined(separator: "_")
        }
    }

    /// The prefix of every syncscan environment variable.
    public static let environmentPrefix = "SYNCSCAN_"

    /// Environment variables with the prefix that are not keys but are allowed (read by the CLI).
    public static let reservedEnvironmentVariables: Set<String> = ["SYNCSCAN_CONFIG"]

    /// The zbar settings each symbology takes under `zbar.<symbology>` (zbarcam `-S` names).
    public static let symbologySettings: [(name: String, kind: ValueKind)] = [
        ("enable", .bool), ("min-length", .int), ("max-length", .int),
    ]

    /// All keys, in the order of the example file.
    public static let keys: [Key] = {
        var keys: [Key] = [
            Key(path: ["source"], kind: .string),
            Key(path: ["device", "width"], kind: .int),
            Key(path: ["device", "height"], kind: .int),
            Key(path: ["device", "fps"], kind: .double),
            Key(path: ["device", "fourcc"], kind: .string),
            Key(path: ["device", "max_width"], kind: .int),
            Key(path: ["device", "max_height"], kind: .int),
            Key(path: ["device", "buffers"], kind: .int),
            Key(path: ["always_discard_late_video_frames"], kind: .bool),
            Key(path: ["scanning_threads"], kind: .int),
            Key(path: ["symbologies"], kind: .symbologyList),
            Key(path: ["zbar", "test-inverted"], kind: .bool),
            Key(path: ["zbar", "x-density"], kind: .int),
            Key(path: ["zbar", "y-density"], kind: .int),
        ]
        for symbology in Symbology.allCases {
            for setting in symbologySettings {
                keys.append(Key(path: ["zbar", symbology.rawValue, setting.name], kind: setting.kind))
            }
        }
        keys += [
            Key(path: ["rect_of_interest", "x"], kind: .double),
            Key(path: ["rect_of_interest", "y"], kind: .double),
            Key(path: ["rect_of_interest", "width"], kind: .double),
            Key(path: ["rect_of_interest", "height"], kind: .double),
            Key(path: ["duplicate_suppression", "enabled"], kind: .bool),
            Key(path: ["duplicate_suppression", "window_seconds"], kind: .double),
            Key(path: ["stats_interval_seconds"], kind: .double),
            Key(path: ["log_level"], kind: .string),
            Key(path: ["output", "queue_lines"], kind: .int),
        ]
        return keys
    }()

    /// The keys by dotted name.
    public static let keysByName: [String: Key] = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) })

    /// The keys by environment variable.
    static let keysByEnvironmentVariable: [String: Key] =
        Dictionary(uniqueKeysWithValues: keys.map { ($0.environmentVariable, $0) })

    /// The tree of keys, for walking a YAML file.
    indirect enum Node {
        case leaf(Key)
        case mapping([String: Node])
    }

    static let tree: Node = {
        func insert(_ key: Key, at depth: Int, into node: inout [String: Node]) {
            let component = key.path[depth]
            if depth == key.path.count - 1 {
                node[component] = .leaf(key)
                return
            }
            var children: [String: Node] = [:]
            if case .mapping(let existing)? = node[component] { children = existing }
            insert(key, at: depth + 1, into: &children)
            node[component] = .mapping(children)
        }
        var root: [String: Node] = [:]
        for key in keys { insert(key, at: 0, into: &root) }
        return .mapping(root)
    }()

    /// The child names of a mapping in example-file order, for "known: …" lists.
    static func knownChildren(of prefix: [String]) -> [String] {
        var seen: Set<String> = [], ordered: [String] = []
        for key in keys where key.path.count > prefix.count && Array(key.path.prefix(prefix.count)) == prefix {
            let child = key.path[prefix.count]
            if seen.insert(child).inserted { ordered.append(child) }
        }
        return ordered
    }
}
