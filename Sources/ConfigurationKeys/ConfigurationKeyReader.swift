import Configuration
import Foundation
import Media
import SystemCalls
import SystemPackage

/// Reads the configuration keys under one prefix (`mqtt`, `device`, or none at the top), noting
/// each problem with its full key and where it came from, and going on.
///
/// A component's settings read their own keys by their names relative to the prefix (`qos`),
/// through `ConfigReader.scoped(to:)`; problems and unknown-key detection use the full key
/// (`mqtt.qos`), so every message still names it with its file and line, variable or flag.
/// Every view shares one `KeyReadingSession`: problems noted through any of them are reported
/// together when the reading ends.
public struct ConfigurationKeyReader {
    private let session: KeyReadingSession
    private let reader: ConfigReader
    /// The dotted prefix of the keys this reader reads (`mqtt.homeassistant`); empty at the top.
    public let prefix: String

    init(session: KeyReadingSession) { (self.session, reader, prefix) = (session, session.reader, "") }

    private init(session: KeyReadingSession, reader: ConfigReader, prefix: String) {
        (self.session, self.reader, self.prefix) = (session, reader, prefix)
    }

    /// A reader of the keys under `name` (`keys.scoped(to: "mqtt")` reads `mqtt.qos` as `qos`).
    public func scoped(to name: String) -> ConfigurationKeyReader {
        ConfigurationKeyReader(session: session, reader: reader.scoped(to: ConfigKey(name)), prefix: fullKey(name))
    }

    /// The full dotted key of `key`, for messages that name another key: `fullKey("height")` → `device.height`.
    public func fullKey(_ key: String) -> String { prefix.isEmpty ? key : prefix + "." + key }

    /// systemd's `$STATE_DIRECTORY` (its first directory) for a unit with `StateDirectory=`; `nil` elsewhere.
    public var systemdStateDirectory: String? {
        session.environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)
    }

    /// Notes a problem with `key` (relative, or `key[i]` for a list element): reported with the other problems.
    public func problem(_ key: String, _ message: String) { session.problem(fullKey(key), message) }

    /// Notes a problem with `key` at `origin` (where the key's own is unknown: a mapping); `nil`: the key's.
    func problem(_ key: String, _ message: String, origin: ConfigurationOrigin?) { session.problem(fullKey(key), message, origin: origin) }

    /// Reads `key` with `get`; a value that does not convert is a problem naming what was found
    /// (never the value of a secret).
    private func value<T>(_ key: String, _ expected: String, isSecret: Bool = false, _ get: (ConfigReader, ConfigKey) -> T?) -> T? {
        let value = get(reader, ConfigKey(key))
        let key = fullKey(key)
        guard session.accesses.access(key)?.failed == true else { return value }
        var found = "found a mapping"
        switch (session.origin(of: key), session.file?.leaves[key]) {
        case (.environment, _) where isSecret, (_, .scalar?) where isSecret: found = "found a value that is not \(expected)"
        case (.environment(let variable), _): found = "found \(Self.shown(session.environment[variable] ?? ""))"
        case (_, .null?): found = "has no value; give \(expected) or remove the key to use the default"
        case (_, .scalar(let text, let quoted)?): found = "found \(Self.shown(text))" + (quoted && expected != "a string" ? " (remove the quotes)" : "")
        case (_, .list?): found = "found a list"
        default: break
        }
        session.problem(key, found.hasPrefix("has no") ? found : "expected \(expected), \(found)")
        return nil
    }

    /// A string; with `isSecret` (passwords, tokens, URLs that may hold credentials) its value is never shown.
    /// One over `maximumValueBytes` is a problem.
    public func string(_ key: String, _ expected: String = "a string", isSecret: Bool = false) -> String? {
        guard let text = value(key, expected, isSecret: isSecret, { $0.string(forKey: $1, isSecret: isSecret) }) else { return nil }
        return isWithinLengthLimit(key, text, isSecret: isSecret) ? text : nil
    }

    /// The path of a file read later (a secret, a certificate); one that names something other than
    /// a regular file (a FIFO, a device, a directory), which would never be read, is a problem.
    public func filePath(_ key: String, _ expected: String = "a file path") -> String? {
        guard let path = string(key, expected) else { return nil }
        if let kind = BoundedFileRead.nonRegularKind(at: path) { problem(key, "\(path) is \(kind), not a regular file: name a regular file") }
        return path
    }

    public func bool(_ key: String) -> Bool? { value(key, "true or false") { $0.bool(forKey: $1) } }

    /// An integer in `range`; `meaning` follows the range in the problem: ` (JPEG quality)`.
    public func int(_ key: String, in range: ClosedRange<Int>, _ meaning: String = "") -> Int? {
        guard let v = value(key, "an integer", { $0.int(forKey: $1) }) else { return nil }
        if range.contains(v) { return v }
        problem(key, "\(v) is out of range: must be from \(range.lowerBound) to \(range.upperBound)\(meaning)")
        return nil
    }

    /// A number in `range`; with `lowerOpen` the lower bound itself is refused.
    public func double(_ key: String, in range: ClosedRange<Double>, lowerOpen: Bool = false, _ meaning: String = "") -> Double? {
        guard let v = value(key, "a number", { $0.double(forKey: $1) }) else { return nil }
        if v.isFinite, range.contains(v), !(lowerOpen && v == range.lowerBound) { return v }
        let decimal = { DecimalText.string($0, fractionDigits: 6) }
        problem(key, "\(decimal(v)) is out of range: must be \(lowerOpen ? "greater than" : "at least") \(decimal(range.lowerBound))"
                + " and at most \(decimal(range.upperBound))\(meaning)")
        return nil
    }

    /// One of `T`'s cases by its raw value, any case: `log_level: Debug`, `device.fourcc: yuyv`.
    public func choice<T: CaseIterable & RawRepresentable<String>>(_ key: String, _ what: String) -> T? {
        choice(key, what, among: Array(T.allCases), named: \.rawValue)
    }

    /// One of `cases` by its name, any case: `engine: hybrid` (the engines are values, not an enum).
    public func choice<T>(_ key: String, _ what: String, among cases: [T], named name: (T) -> String) -> T? {
        guard let text = string(key) else { return nil }
        if let v = cases.first(where: { name($0).lowercased() == text.lowercased() }) { return v }
        problem(key, "unknown \(what) \(Self.shown(text)) (known: \(cases.map(name).joined(separator: ", ")))")
        return nil
    }

    /// A list: a YAML list, or a comma-separated string (environment, flag, YAML scalar). The
    /// string, or an element of the YAML list, over `maximumValueBytes` is a problem, and so is a
    /// list of more than `maximumListEntries`.
    public func list(_ key: String, of expected: String, isSecret: Bool = false) -> [String]? {
        if let text = reader.string(forKey: ConfigKey(key), isSecret: isSecret) {
            guard isWithinLengthLimit(key, text, isSecret: isSecret) else { return nil }
            let elements = text.split(separator: ",", omittingEmptySubsequences: false)
            guard isWithinEntryLimit(key, elements.count) else { return nil }
            return elements.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        guard let elements = value(key, expected, isSecret: isSecret, { $0.stringArray(forKey: $1, isSecret: isSecret) }),
              isWithinEntryLimit(key, elements.count) else { return nil }
        let within = elements.indices.map { isWithinLengthLimit("\(key)[\($0)]", elements[$0], isSecret: isSecret) }
        return within.allSatisfy { $0 } ? elements.map { $0.trimmingCharacters(in: .whitespaces) } : nil
    }

    /// The entries of a mapping whose keys are the user's (`device.controls`), from the file only,
    /// in file order: each child's name and its value as text. Each is read through the reader,
    /// so none is reported unknown; a child holding a list or a mapping is a problem, and so are
    /// more than `maximumListEntries` (none is then read).
    public func entries(of key: String) -> [(name: String, value: String)] {
        guard let file = session.file else { return [] }
        let prefix = fullKey(key) + "."
        let children = file.leafOrder.filter { $0.hasPrefix(prefix) }
        guard isWithinEntryLimit(key, children.count, origin: file.origin(of: fullKey(key))) else {
            children.forEach { _ = reader.string(forKey: ConfigKey(key + "." + $0.dropFirst(prefix.count))) }
            return []
        }
        var entries: [(name: String, value: String)] = []
        for child in children {
            let name = String(child.dropFirst(prefix.count))
            guard !name.contains("."), case .scalar? = file.leaves[child] else {
                _ = reader.string(forKey: ConfigKey(key + "." + name))
                problem(key + "." + name, "expected a value (a number, true or false, or a menu item's name)")
                continue
            }
            if let value = string(key + "." + name) { entries.append((name, value)) }
        }
        return entries
    }
}

/// A component's settings, read from the keys under its prefix: `MQTTSettings(reading: keys.scoped(to: "mqtt"))`.
///
/// The initializer is the schema of its keys: it reads every one of them (so each is known, even
/// when the component is off), with its default beside it, checks each value where it is read,
/// notes each problem on `keys` and goes on. It returns `nil` when the keys turn the component off
/// (no `mqtt.url`); settings that are always there implement it as a non-failable initializer.
public protocol ConfigurationSection {
    init?(reading keys: ConfigurationKeyReader)
}

extension ConfigurationKeyReader {
    /// Every key `read` reads with nothing set, by its full dotted name, in reading order: the schema files
    /// are checked against (a `ConfigurationSection` reads all its keys, on or off).
    ///
    /// Keys read only for the entries a file has (`entries(of:)`: `device.controls.NAME`) are not in it.
    public static func keys(readBy read: (ConfigurationKeyReader) -> Void) -> [String] {
        let session = KeyReadingSession(overrides: [:], environment: [:], file: nil, fileProvider: nil)
        read(ConfigurationKeyReader(session: session))
        return session.accesses.keysInOrder()
    }
}

extension ConfigurationKeyReader {
    /// Reads the configuration with `read`: `overrides` > `environment` > `file` > defaults.
    ///
    /// - Parameters:
    ///   - file: A YAML file path, or `nil`. A file with no document (empty, comments) sets nothing.
    ///   - environment: The process environment; `SYNCSCAN_*` variables are keys (`SYNCSCAN_CONFIG` aside).
    ///   - overrides: Typed values from command-line flags, by dotted key (`"device.max_width": 1920`).
    ///   - read: Reads every key through the top-level reader it is given.
    /// - Throws: `ConfigurationError` (and nothing else) naming every problem with its file and line, variable or
    ///   flag, unknown keys included (a file key, `SYNCSCAN_*` variable or flag that `read` did not read).
    public static func read<T>(file: String?, environment: [String: String], overrides: [String: ConfigValue],
                               _ read: (ConfigurationKeyReader) -> T) async throws -> T {
        let layout = file.map(ConfigurationFileLayout.init(reading:))
        let fileProvider = layout.flatMap { $0.hasDocument && $0.problems.isEmpty ? ConfigurationFileProvider(values: $0.values) : nil }
        let session = KeyReadingSession(overrides: overrides, environment: environment, file: layout, fileProvider: fileProvider)
        let value = read(ConfigurationKeyReader(session: session))
        let problems = session.finish()
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return value
    }
}
