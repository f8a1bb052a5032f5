import Configuration
import SystemCalls

/// One reading of the configuration, shared by every scoped `ConfigurationKeyReader`: the
/// providers, the keys read, and each problem noted with where it came from.
///
/// Providers, highest precedence first: the command line (`InMemoryProvider`), `SYNCSCAN_*`
/// environment variables (`EnvironmentVariablesProvider` under `prefixKeys(with: "syncscan")`)
/// and the YAML file (`ConfigurationFileProvider`). An `AccessReporter` records every key read
/// (by its full dotted name, whatever reader scoped it) and which provider answered it, so the
/// code that reads the keys is the schema: a file key or `SYNCSCAN_*` variable that no code read
/// is unknown (`finish()`).
final class KeyReadingSession {
    static let environmentPrefix = "SYNCSCAN_"
    /// `SYNCSCAN_*` variables that are not keys (read by the CLI).
    static let reservedVariables: Set<String> = ["SYNCSCAN_CONFIG"]

    let reader: ConfigReader
    let accesses = KeyAccessRecorder()
    private let providerOrigins: [String: ProviderOrigin]
    let file: ConfigurationFileLayout?
    let environment: [String: String]
    private let overrideKeys: [String]
    private(set) var problems: [ConfigurationError.Problem] = []

    enum ProviderOrigin { case commandLine, environment, file }

    init(overrides: [String: ConfigValue], environment: [String: String], file: ConfigurationFileLayout?,
         fileProvider: (any ConfigProvider)?) {
        let commandLine = InMemoryProvider(name: "command line", values: .init(uniqueKeysWithValues: overrides.map { (.init(.init($0.key)), $0.value) }))
        let variables = EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "syncscan")
        var providers: [any ConfigProvider] = [commandLine, variables]
        var origins: [String: ProviderOrigin] = [commandLine.providerName: .commandLine, variables.providerName: .environment]
        if let fileProvider { (providers, origins[fileProvider.providerName]) = (providers + [fileProvider], .file) }
        reader = ConfigReader(providers: providers, accessReporter: accesses)
        providerOrigins = origins
        self.file = file
        self.environment = environment
        overrideKeys = overrides.keys.sorted()
        problems = file?.problems ?? []
    }

    /// The environment variable that sets `key`: `SYNCSCAN_` and the key upper-cased, `.` and `-` as `_`.
    static func variable(for key: String) -> String {
        environmentPrefix + String(key.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// Where the value of `key` (or `key[i]`) was read from; the default when no provider had it.
    func origin(of key: String) -> ConfigurationOrigin {
        let base = key.split(separator: "[").first.map(String.init) ?? key
        switch accesses.access(base).flatMap({ $0.provider }).flatMap({ providerOrigins[$0] }) {
        case .commandLine?: return .commandLine(key: base)
        case .environment?: return .environment(variable: Self.variable(for: base))
        case .file?: return file?.origin(of: key) ?? .builtInDefault
        case nil: return .builtInDefault
        }
    }

    /// Notes a problem with the full dotted `key`, at `origin` (`nil`: where its value came from).
    func problem(_ key: String, _ message: String, origin: ConfigurationOrigin? = nil) {
        problems.append(.init(origin: origin ?? self.origin(of: key), key: key, message: message))
    }

    /// Names every file key, `SYNCSCAN_*` variable and flag no code read; returns every problem, in file order.
    ///
    /// Linear in the keys: each key read, file key, variable and flag is looked up in sets made
    /// once, and each parent's known children are listed once.
    func finish() -> [ConfigurationError.Problem] {
        let order = accesses.keysInOrder()
        let read = Set(order), known = KnownKeys(order)
        var problemKeys = Set(problems.map(\.key))
        for key in file?.leafOrder ?? [] where !read.contains(key) {
            let parts = key.split(separator: ".").map(String.init), name = parts.last!
            let owners = (1..<parts.count).map { parts.prefix($0).joined(separator: ".") }
            if let owner = owners.first(where: read.contains) {  // a mapping where a value is read
                if problemKeys.insert(owner).inserted { problem(owner, "expected \(accesses.access(owner)!.type), found a mapping") }
            } else if let children = known.children[key] {
                problems.append(.init(origin: file!.origin(of: key), key: key, message: "expected a mapping with keys "
                                      + "\(children.joined(separator: ", ")), found \(file!.leaves[key] == .list ? "a list" : "a value")"))
            } else {
                let parent = owners.last ?? ""
                let close = known.closest(to: name, under: parent)
                problems.append(.init(origin: file!.origin(of: key), key: key, message: "unknown key \"\(name)\""
                                      + (close.map { " (did you mean \"\($0)\"?)" } ?? "") + " (known: \(known.listed(under: parent)))"))
            }
        }
        let variables = order.map(Self.variable(for:)), variableSet = Set(variables)
        for variable in environment.keys.sorted() where variable.hasPrefix(Self.environmentPrefix)
            && !Self.reservedVariables.contains(variable) && !variableSet.contains(variable) {
            let close = variables.first { isWithinEditDistance(2, $0, variable) }
            problems.append(.init(origin: .environment(variable: variable), key: "", message: "unknown syncscan environment variable"
                                  + (close.map { " (did you mean \($0)?)" } ?? "") + "; see config/syncscan.yaml for the keys"))
        }
        for key in overrideKeys where !read.contains(key) {
            problems.append(.init(origin: .commandLine(key: key), key: key, message: "unknown configuration key"))
        }
        return problems.enumerated().sorted { ($0.element.origin.line ?? .max, $0.offset) < ($1.element.origin.line ?? .max, $1.offset) }
            .map(\.element)
    }
}

/// The names the keys read give each mapping (`device`: `width, height, …`), in reading order,
/// made in one pass over them, for the unknown-key messages.
struct KnownKeys {
    /// A name under a mapping, lower-cased and as bytes for "did you mean".
    private struct Name {
        let name: String
        let lowercased: String
        let bytes: [UInt8]
    }

    /// The names directly under each mapping (`""`: the top), in reading order.
    private(set) var children: [String: [String]] = [:]
    private var names: [String: [Name]] = [:]
    private var listed: [String: String] = [:]

    init(_ keysInOrder: [String]) {
        var seen: Set<String> = []
        for key in keysInOrder {
            var parent = ""
            for part in key.split(separator: ".") {
                let path = parent.isEmpty ? String(part) : parent + "." + part
                if seen.insert(path).inserted { children[parent, default: []].append(String(part)) }
                parent = path
            }
        }
        names = children.mapValues { $0.map { Name(name: $0, lowercased: $0.lowercased(), bytes: Array($0.utf8)) } }
        listed = children.mapValues { $0.joined(separator: ", ") }
    }

    /// The names under `parent`, as a message lists them: `width, height, …` (empty: none).
    func listed(under parent: String) -> String { listed[parent] ?? "" }

    /// A name under `parent` that `name` may be a misspelling of: the same but for case, or at
    /// most 2 edits away.
    func closest(to name: String, under parent: String) -> String? {
        guard let candidates = names[parent] else { return nil }
        let lowercased = name.lowercased(), bytes = Array(name.utf8)
        return candidates.first { $0.lowercased == lowercased || isWithinEditDistance(2, $0.bytes, bytes) }?.name
    }
}

/// The `AccessReporter` that keeps, per key read, the order of first reading, what the read
/// expected, and the provider that answered (or failed to convert) the latest read.
final class KeyAccessRecorder: AccessReporter {
    /// `type` is what the read expected, as a problem names it: `an integer`.
    struct Access {
        let provider: String?
        let failed: Bool
        let type: String
    }

    private let state = LockedValue<(order: [String], accesses: [String: Access])>(([], [:]))

    func report(_ event: AccessEvent) {
        let key = event.metadata.key.components.joined(separator: ".")
        let answer = event.providerResults.last { if case .success(let lookup) = $0.result { lookup.value != nil } else { true } }
        let failed: Bool = if case .failure? = answer?.result { true } else { event.conversionError != nil }
        let types: [ConfigType: String] = [.int: "an integer", .double: "a number", .bool: "true or false", .stringArray: "a list"]
        state.withLock { state in
            if state.accesses[key] == nil { state.order.append(key) }
            state.accesses[key] = Access(provider: answer?.providerName, failed: failed, type: types[event.metadata.valueType] ?? "a string")
        }
    }

    func access(_ key: String) -> Access? { state.withLock { $0.accesses[key] } }
    func keysInOrder() -> [String] { state.withLock { $0.order } }
}

/// Whether `a` becomes `b` in at most `limit` edits (insert, delete, substitute), for "did you
/// mean" on short key names, compared by their UTF-8 bytes.
func isWithinEditDistance(_ limit: Int, _ a: String, _ b: String) -> Bool {
    isWithinEditDistance(limit, Array(a.utf8), Array(b.utf8))
}

/// Whether bytes `a` become `b` in at most `limit` edits: pairs whose lengths differ by more are
/// not compared, and the comparison stops at a row past the limit.
func isWithinEditDistance(_ limit: Int, _ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard abs(a.count - b.count) <= limit else { return false }
    var row = Array(0...b.count), next = row
    for (i, ca) in a.enumerated() {
        next[0] = i + 1
        var smallest = next[0]
        for (j, cb) in b.enumerated() {
            next[j + 1] = min(row[j + 1] + 1, next[j] + 1, row[j] + (ca == cb ? 0 : 1))
            smallest = min(smallest, next[j + 1])
        }
        guard smallest <= limit else { return false }
        swap(&row, &next)
    }
    return row[b.count] <= limit
}
