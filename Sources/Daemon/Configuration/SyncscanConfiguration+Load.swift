import Capture
import Configuration
import Foundation
import Logging
import Media
import SystemPackage
import ZBar

extension SyncscanConfiguration {
    /// Loads and validates the configuration: `overrides` > `environment` > `file` > defaults.
    ///
    /// - Parameters:
    ///   - file: A YAML file path, or `nil` for none. A file with no document (empty, only
    ///     comments) is allowed and sets nothing.
    ///   - environment: The process environment (`ProcessInfo.processInfo.environment`). Only
    ///     `SYNCSCAN_*` variables are read; each names a key (`ConfigurationSchema.Key.environmentVariable`).
    ///     An unknown `SYNCSCAN_*` variable is an error, except `SYNCSCAN_CONFIG`, left to the CLI.
    ///   - overrides: Values from command-line flags, keyed by dotted key name (`"source"`,
    ///     `"symbologies"`, `"device.max_width"`), written as in the environment (`"qrcode,ean13"`,
    ///     `"true"`, `"1280"`).
    /// - Throws: `ConfigurationError` listing every problem, each naming the key and the file and
    ///   line, environment variable or flag it came from. Nothing else.
    public static func load(file: String?, environment: [String: String],
                            overrides: [String: String] = [:]) async throws -> SyncscanConfiguration {
        var problems: [ConfigurationError.Problem] = []

        // Overrides and environment reach swift-configuration as environment-style providers, so
        // both parse strings the same way; the `SYNCSCAN_` prefix is stripped for the provider.
        var overrideVariables: [String: String] = [:]
        for (name, value) in overrides.sorted(by: { $0.key < $1.key }) {
            guard let key = ConfigurationSchema.keysByName[name] else {
                problems.append(.init(origin: .commandLine(key: name), key: name, message: "unknown configuration key"))
                continue
            }
            overrideVariables[unprefixed(key.environmentVariable)] = value
        }
        var environmentVariables: [String: String] = [:]
        for (variable, value) in environment.sorted(by: { $0.key < $1.key })
        where variable.hasPrefix(ConfigurationSchema.environmentPrefix) {
            if ConfigurationSchema.reservedEnvironmentVariables.contains(variable) { continue }
            guard ConfigurationSchema.keysByEnvironmentVariable[variable] != nil else {
                let close = ConfigurationSchema.keys.map(\.environmentVariable).min { editDistance($0, variable) < editDistance($1, variable) }
                let hint = close.map { editDistance($0, variable) <= 2 ? " (did you mean \($0)?)" : "" } ?? ""
                problems.append(.init(origin: .environment(variable: variable), key: "",
                                      message: "unknown syncscan environment variable\(hint); see config/syncscan.yaml for the keys"))
                continue
            }
            environmentVariables[unprefixed(variable)] = value
        }

        var fileReport = YAMLConfigurationValidator.Report()
        if let file {
            do {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                fileReport = YAMLConfigurationValidator(path: file).validate(text)
                problems += fileReport.problems
            } catch {
                problems.append(.init(origin: .file(path: file, line: nil), key: "", message: "cannot read the configuration file: \(readFailure(file))"))
            }
        }
        // Keep going after problems found so far: every stage below reports what it finds, so one
        // run names every mistake. A key already named is not reported again by a later stage.

        var providers: [any ConfigProvider] = [
            EnvironmentVariablesProvider(environmentVariables: overrideVariables),
            EnvironmentVariablesProvider(environmentVariables: environmentVariables),
        ]
        if let file, fileReport.hasDocument {
            do {
                providers.append(try await FileProvider<YAMLSnapshot>(filePath: FilePath(file)))
            } catch {
                guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
                throw ConfigurationError(.file(path: file, line: nil), key: "", "cannot load the configuration file: \(error)")
            }
        }
        let reader = ConfigReader(providers: providers)

        var values = RawValues(file: file, fileLines: fileReport.lines,
                               overrides: overrideVariables, environment: environmentVariables)
        for key in ConfigurationSchema.keys {
            do {
                if let value = try await fetch(key, from: reader) { values.values[key.name] = value }
            } catch {
                guard !problems.contains(where: { $0.key == key.name }) else { continue }
                let raw = values.rawString(for: key) ?? "?"
                problems.append(.init(origin: values.origin(of: key.name), key: key.name,
                                      message: "expected \(key.kind.expectation), found \"\(raw)\""))
            }
        }

        var builder = ConfigurationBuilder(values: values)
        let configuration = builder.build()
        problems += builder.problems.filter { new in !problems.contains { $0.key == new.key && !new.key.isEmpty } }
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return configuration
    }

    /// Checks a configuration file alone (no environment, no overrides), for `syncscan check-config FILE`.
    ///
    /// Returns the configuration the file gives, or every problem found in it.
    public static func checkConfig(path: String) async -> Result<SyncscanConfiguration, ConfigurationError> {
        do {
            return .success(try await load(file: path, environment: [:], overrides: [:]))
        } catch let error as ConfigurationError {
            return .failure(error)
        } catch {
            return .failure(ConfigurationError(.file(path: path, line: nil), key: "", "\(error)"))
        }
    }

    private static func unprefixed(_ variable: String) -> String {
        String(variable.dropFirst(ConfigurationSchema.environmentPrefix.count))
    }

    private static func readFailure(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        if fd >= 0 {
            close(fd)
            return "not valid UTF-8 text"
        }
        return String(cString: strerror(errno))
    }

    /// One key's value from the providers, `nil` when none sets it.
    private static func fetch(_ key: ConfigurationSchema.Key, from reader: ConfigReader) async throws -> RawValue? {
        let configKey = ConfigKey(key.path)
        switch key.kind {
        case .string: return try await reader.fetchString(forKey: configKey).map(RawValue.string)
        case .int: return try await reader.fetchInt(forKey: configKey).map(RawValue.int)
        case .double: return try await reader.fetchDouble(forKey: configKey).map(RawValue.double)
        case .bool: return try await reader.fetchBool(forKey: configKey).map(RawValue.bool)
        case .symbologyList:
            // A comma-separated string (environment, flag, `symbologies: all` in YAML) or a YAML list.
            do {
                return try await reader.fetchString(forKey: configKey).map {
                    RawValue.list($0.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
                }
            } catch {
                return try await reader.fetchStringArray(forKey: configKey).map(RawValue.list)
            }
        }
    }
}

/// A value as read, before range checks.
enum RawValue: Hashable {
    case string(String), int(Int), double(Double), bool(Bool), list([String])
}

/// The values read and where each came from.
struct RawValues {
    var file: String?
    var fileLines: [String: Int]
    /// Overrides and environment, with the `SYNCSCAN_` prefix stripped (as the providers see them).
    var overrides: [String: String]
    var environment: [String: String]
    var values: [String: RawValue] = [:]

    init(file: String?, fileLines: [String: Int], overrides: [String: String], environment: [String: String]) {
        self.file = file
        self.fileLines = fileLines
        self.overrides = overrides
        self.environment = environment
    }

    private func unprefixedVariable(_ name: String) -> String? {
        ConfigurationSchema.keysByName[name].map { String($0.environmentVariable.dropFirst(ConfigurationSchema.environmentPrefix.count)) }
    }

    /// Where the value of `name` (a key, or `symbologies[i]`) comes from, by the same precedence as the reader.
    func origin(of name: String) -> ConfigurationOrigin {
        let keyName = name.split(separator: "[").first.map(String.init) ?? name
        if let variable = unprefixedVariable(keyName) {
            if overrides[variable] != nil { return .commandLine(key: keyName) }
            if environment[variable] != nil { return .environment(variable: ConfigurationSchema.environmentPrefix + variable) }
        }
        if let file, let line = fileLines[name] ?? fileLines[keyName] { return .file(path: file, line: line) }
        return .builtInDefault
    }

    /// The text given for a key by an override or the environment (for "found …" messages).
    func rawString(for key: ConfigurationSchema.Key) -> String? {
        guard let variable = unprefixedVariable(key.name) else { return nil }
        return overrides[variable] ?? environment[variable]
    }
}

/// Turns raw values into a `SyncscanConfiguration`, collecting a problem for each value out of range.
struct ConfigurationBuilder {
    let values: RawValues
    var problems: [ConfigurationError.Problem] = []

    init(values: RawValues) { self.values = values }

    private mutating func problem(_ name: String, _ message: String) {
        problems.append(.init(origin: values.origin(of: name), key: name, message: message))
    }

    private func string(_ name: String) -> String? {
        if case .string(let v)? = values.values[name] { return v }
        return nil
    }

    private func bool(_ name: String) -> Bool? {
        if case .bool(let v)? = values.values[name] { return v }
        return nil
    }

    private mutating func int(_ name: String, in range: ClosedRange<Int>, _ meaning: String = "") -> Int? {
        guard case .int(let v)? = values.values[name] else { return nil }
        guard range.contains(v) else {
            problem(name, "\(v) is out of range: must be \(describe(range))\(meaning)")
            return nil
        }
        return v
    }

    private mutating func double(_ name: String, in range: ClosedRange<Double>, lowerOpen: Bool = false, _ meaning: String = "") -> Double? {
        guard case .double(let v)? = values.values[name] else { return nil }
        guard v.isFinite, range.contains(v), !(lowerOpen && v == range.lowerBound) else {
            let lower = lowerOpen ? "greater than \(format(range.lowerBound))" : "at least \(format(range.lowerBound))"
            problem(name, "\(format(v)) is out of range: must be \(lower) and at most \(format(range.upperBound))\(meaning)")
            return nil
        }
        return v
    }

    private func describe(_ range: ClosedRange<Int>) -> String {
        range.upperBound == Int.max ? "at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
    }

    private func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    mutating func build() -> SyncscanConfiguration {
        var c = SyncscanConfiguration()

        if let source = string("source") {
            if source.trimmingCharacters(in: .whitespaces).isEmpty {
                problem("source", "is empty; give a device path (/dev/video0), a .y4m file, or - for stdin")
            } else {
                c.source = source
            }
        }

        // Device.
        c.device.width = int("device.width", in: 1...16384)
        c.device.height = int("device.height", in: 1...16384)
        if (values.values["device.width"] == nil) != (values.values["device.height"] == nil) {
            let given = values.values["device.width"] == nil ? "device.height" : "device.width"
            problem(given, "device.width and device.height must be given together")
        }
        c.device.fps = double("device.fps", in: 0...1000, lowerOpen: true)
        if let fourcc = string("device.fourcc") {
            if let format = PixelFormat(rawValue: fourcc.uppercased()) {
                c.device.fourcc = format
            } else {
                problem("device.fourcc", "unknown pixel format \"\(fourcc)\" (known: \(PixelFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
        }
        if let v = int("device.max_width", in: 1...16384) { c.device.maxWidth = v }
        if let v = int("device.max_height", in: 1...16384) { c.device.maxHeight = v }
        if let v = int("device.buffers", in: 1...32, " (V4L2 allows at most 32)") { c.device.buffers = v }

        c.alwaysDiscardLateVideoFrames = bool("always_discard_late_video_frames")
        if let v = int("scanning_threads", in: 1...64) { c.scanningThreads = v }

        // zbar.
        var symbologies = Symbology.defaults
        if case .list(let names)? = values.values["symbologies"] {
            switch SymbologyList.parse(names) {
            case .success(let set): symbologies = set
            case .failure(let failure):
                problem(failure.index.map { "symbologies[\($0)]" } ?? "symbologies", failure.message)
            }
        }
        var settings: [Symbology: ScannerConfiguration.SymbologySettings] = [:]
        for symbology in Symbology.allCases {
            let prefix = "zbar.\(symbology.rawValue)."
            if let enable = bool(prefix + "enable") {
                if enable { symbologies.insert(symbology) } else { symbologies.remove(symbology) }
            }
            let minLength = int(prefix + "min-length", in: 0...100_000)
            let maxLength = int(prefix + "max-length", in: 0...100_000)
            if let minLength, let maxLength, minLength > maxLength {
                problem(prefix + "min-length", "\(minLength) is greater than \(prefix)max-length \(maxLength)")
            }
            if minLength != nil || maxLength != nil {
                settings[symbology] = .init(minLength: minLength, maxLength: maxLength)
            }
        }
        if symbologies.isEmpty {
            problem("symbologies", "no symbology is left enabled (zbar.<name>.enable: false removed them all)")
        }
        c.scanner.symbologies = symbologies
        c.scanner.settings = settings
        if let v = bool("zbar.test-inverted") { c.scanner.testInverted = v }
        if let v = int("zbar.x-density", in: 0...100, " (0 skips columns, 1 scans every column)") { c.scanner.xDensity = v }
        if let v = int("zbar.y-density", in: 0...100, " (0 skips rows, 1 scans every row)") { c.scanner.yDensity = v }
        if c.scanner.xDensity == 0 && c.scanner.yDensity == 0 {
            problem("zbar.x-density", "zbar.x-density and zbar.y-density are both 0, so nothing would be scanned")
        }

        // Rect of interest: missing edges default to the rest of the frame.
        let x = double("rect_of_interest.x", in: 0...1) ?? 0
        let y = double("rect_of_interest.y", in: 0...1) ?? 0
        let width = double("rect_of_interest.width", in: 0...1, lowerOpen: true) ?? (1 - x)
        let height = double("rect_of_interest.height", in: 0...1, lowerOpen: true) ?? (1 - y)
        let slack = 1e-9
        if width <= 0 { problem("rect_of_interest.x", "leaves no width: x must be less than 1") }
        if height <= 0 { problem("rect_of_interest.y", "leaves no height: y must be less than 1") }
        if x + width > 1 + slack {
            problem(values.values["rect_of_interest.width"] != nil ? "rect_of_interest.width" : "rect_of_interest.x",
                    "x + width = \(format(x + width)) goes past the right edge (must be at most 1)")
        }
        if y + height > 1 + slack {
            problem(values.values["rect_of_interest.height"] != nil ? "rect_of_interest.height" : "rect_of_interest.y",
                    "y + height = \(format(y + height)) goes past the bottom edge (must be at most 1)")
        }
        c.rectOfInterest = NormalizedRect(x: x, y: y, width: min(width, 1 - x), height: min(height, 1 - y))

        if let v = bool("duplicate_suppression.enabled") { c.duplicateSuppression.enabled = v }
        if let v = double("duplicate_suppression.window_seconds", in: 0...86_400) { c.duplicateSuppression.windowSeconds = v }
        if let v = double("stats_interval_seconds", in: 0...86_400, " (0 turns statistics off)") { c.statsIntervalSeconds = v }
        if let level = string("log_level") {
            if let v = Logger.Level(rawValue: level.lowercased()) {
                c.logLevel = v
            } else {
                problem("log_level", "unknown log level \"\(level)\" (known: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
        }
        if let v = int("output.queue_lines", in: 1...1_048_576) { c.output.queueLines = v }
        return c
    }
}
