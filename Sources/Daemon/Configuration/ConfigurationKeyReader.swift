import Configuration
import Media
import SystemCalls

/// Reads configuration keys through one `ConfigReader`, noting each problem with where it came from.
///
/// Providers, highest precedence first: the command line (`InMemoryProvider`), `SYNCSCAN_*`
/// environment variables (`EnvironmentVariablesProvider` under `prefixKeys(with: "syncscan")`)
/// and the YAML file (`FileProvider<YAMLSnapshot>`). An `AccessReporter` records every key read
/// and which provider answered it, so the code that reads the keys is the schema: a file key or
/// `SYNCSCAN_*` variable that no code read is unknown (`finish()`).
struct ConfigurationKeyReader {
    static let environmentPrefix = "SYNCSCAN_"
    /// `SYNCSCAN_*` variables that are not keys (read by the CLI).
    static let reservedVariables: Set<String> = ["SYNCSCAN_CONFIG"]

    private let reader: ConfigReader
    private let accesses = KeyAccessRecorder()
    private let providerOrigins: [String: ProviderOrigin]
    private let file: ConfigurationFileLayout?
    private let environment: [String: String]
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

    /// systemd's `$STATE_DIRECTORY` (its first directory) for a unit with `StateDirectory=`; `nil` elsewhere.
    var systemdStateDirectory: String? {
        environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)
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

    mutating func problem(_ key: String, _ message: String) {
        problems.append(.init(origin: origin(of: key), key: key, message: message))
    }

    /// Reads `key` with `get`; a value that does not convert is a problem naming what was found.
    private mutating func value<T>(_ key: String, _ expected: String, _ get: (ConfigReader, ConfigKey) -> T?) -> T? {
        let value = get(reader, ConfigKey(key))
        guard accesses.access(key)?.failed == true else { return value }
        var found = "found a mapping"
        switch (origin(of: key), file?.leaves[key]) {
        case (.environment(let variable), _): found = "found \"\(environment[variable] ?? "")\""
        case (_, .null?): found = "has no value; give \(expected) or remove the key to use the default"
        case (_, .scalar(let text, let quoted)?): found = "found \"\(text)\"" + (quoted && expected != "a string" ? " (remove the quotes)" : "")
        case (_, .list?): found = "found a list"
        default: break
        }
        problem(key, found.hasPrefix("has no") ? found : "expected \(expected), \(found)")
        return nil
    }

    mutating func string(_ key: String, _ expected: String = "a string") -> String? { value(key, expected) { $0.string(forKey: $1) } }
    mutating func bool(_ key: String) -> Bool? { value(key, "true or false") { $0.bool(forKey: $1) } }

    mutating func int(_ key: String, in range: ClosedRange<Int>, _ meaning: String = "") -> Int? {
        guard let v = value(key, "an integer", { $0.int(forKey: $1) }) else { return nil }
        if range.contains(v) { return v }
        problem(key, "\(v) is out of range: must be from \(range.lowerBound) to \(range.upperBound)\(meaning)")
        return nil
    }

    /// A number in `range`; with `lowerOpen` the lower bound itself is refused.
    mutating func double(_ key: String, in range: ClosedRange<Double>, lowerOpen: Bool = false, _ meaning: String = "") -> Double? {
        guard let v = value(key, "a number", { $0.double(forKey: $1) }) else { return nil }
        if v.isFinite, range.contains(v), !(lowerOpen && v == range.lowerBound) { return v }
        let decimal = { DecimalText.string($0, fractionDigits: 6) }
        problem(key, "\(decimal(v)) is out of range: must be \(lowerOpen ? "greater than" : "at least") \(decimal(range.lowerBound))"
                + " and at most \(decimal(range.upperBound))\(meaning)")
        return nil
    }

    /// One of `T`'s cases by its raw value, any case: `log_level: Debug`, `device.fourcc: yuyv`.
    mutating func choice<T: CaseIterable & RawRepresentable<String>>(_ key: String, _ what: String) -> T? {
        choice(key, what, among: Array(T.allCases), named: \.rawValue)
    }

    /// One of `cases` by its name, any case: `engine: hybrid` (the engines are values, not an enum).
    mutating func choice<T>(_ key: String, _ what: String, among cases: [T], named name: (T) -> String) -> T? {
        guard let text = string(key) else { return nil }
        if let v = cases.first(where: { name($0).lowercased() == text.lowercased() }) { return v }
        problem(key, "unknown \(what) \"\(text)\" (known: \(cases.map(name).joined(separator: ", ")))")
        return nil
    }

    /// A list: a YAML list, or a comma-separated string (environment, flag, YAML scalar).
    mutating func list(_ key: String, of expected: String) -> [String]? {
        if let text = reader.string(forKey: ConfigKey(key)) {
            return text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return value(key, expected) { $0.stringArray(forKey: $1) }?.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The entries of a mapping whose keys are the user's (`device.controls`), from the file only,
    /// in file order: each child's name and its value as text. Each is read through the reader,
    /// so none is reported unknown; a child holding a list or a mapping is a problem.
    mutating func entries(of key: String) -> [(name: String, value: String)] {
        guard let file else { return [] }
        let prefix = key + "."
        let children = file.leaves.keys.filter { $0.hasPrefix(prefix) }
            .sorted { (file.lines[$0] ?? 0, $0) < (file.lines[$1] ?? 0, $1) }
        var entries: [(name: String, value: String)] = []
        for child in children {
            let name = String(child.dropFirst(prefix.count))
            guard !name.contains("."), case .scalar? = file.leaves[child] else {
                _ = reader.string(forKey: ConfigKey(child))
                problem(child, "expected a value (a number, true or false, or a menu item's name)")
                continue
            }
            if let value = string(child) { entries.append((name, value)) }
        }
        return entries
    }

    /// Names every file key, `SYNCSCAN_*` variable and flag no code read; returns every problem, in file order.
    mutating func finish() -> [ConfigurationError.Problem] {
        let read = accesses.keysInOrder()
        for key in file?.leaves.keys.sorted() ?? [] where !read.contains(key) {
            let parts = key.split(separator: ".").map(String.init), name = parts.last!
            let owners = (1..<parts.count).map { parts.prefix($0).joined(separator: ".") }
            if let owner = owners.first(where: read.contains) {  // a mapping where a value is read
                if !problems.contains(where: { $0.key == owner }) { problem(owner, "expected \(accesses.access(owner)!.type), found a mapping") }
            } else if read.contains(where: { $0.hasPrefix(key + ".") }) {
                problems.append(.init(origin: file!.origin(of: key), key: key, message: "expected a mapping with keys "
                                      + "\(children(of: key, in: read)), found \(file!.leaves[key] == .list ? "a list" : "a value")"))
            } else {
                let known = children(of: owners.last ?? "", in: read)
                let close = known.split(separator: ", ").first { $0.lowercased() == name.lowercased() || editDistance(String($0), name) <= 2 }
                problems.append(.init(origin: file!.origin(of: key), key: key, message: "unknown key \"\(name)\""
                                      + (close.map { " (did you mean \"\($0)\"?)" } ?? "") + " (known: \(known))"))
            }
        }
        let variables = read.map(Self.variable(for:))
        for variable in environment.keys.sorted() where variable.hasPrefix(Self.environmentPrefix)
            && !Self.reservedVariables.contains(variable) && !variables.contains(variable) {
            let close = variables.first { editDistance($0, variable) <= 2 }
            problems.append(.init(origin: .environment(variable: variable), key: "", message: "unknown syncscan environment variable"
                                  + (close.map { " (did you mean \($0)?)" } ?? "") + "; see config/syncscan.yaml for the keys"))
        }
        for key in overrideKeys where !read.contains(key) {
            problems.append(.init(origin: .commandLine(key: key), key: key, message: "unknown configuration key"))
        }
        return problems.enumerated().sorted { ($0.element.origin.line ?? .max, $0.offset) < ($1.element.origin.line ?? .max, $1.offset) }
            .map(\.element)
    }

    /// The names directly under `parent` among the keys read, in reading order: `width, height, …`.
    private func children(of parent: String, in read: [String]) -> String {
        var seen: Set<String> = []
        return read.compactMap { key -> String? in
            guard parent.isEmpty || key.hasPrefix(parent + ".") else { return nil }
            let child = String(key.dropFirst(parent.isEmpty ? 0 : parent.count + 1).prefix { $0 != "." })
            return seen.insert(child).inserted ? child : nil
        }.joined(separator: ", ")
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

/// Edits (insert, delete, substitute) from `a` to `b`, for "did you mean" on short key names.
func editDistance(_ a: String, _ b: String) -> Int {
    var row = Array(0...b.count)
    for (i, ca) in a.enumerated() {
        var next = [i + 1]
        for (j, cb) in b.enumerated() { next.append(min(row[j + 1] + 1, next[j] + 1, row[j] + (ca == cb ? 0 : 1))) }
        row = next
    }
    return row[b.count]
}
