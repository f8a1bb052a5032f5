/// Where a configuration value came from, so an error can point at it.
public enum ConfigurationOrigin: Sendable, Hashable, CustomStringConvertible {
    /// A YAML file, with the 1-based line of the value when known.
    case file(path: String, line: Int?)
    /// An environment variable such as `SYNCSCAN_SOURCE`.
    case environment(variable: String)
    /// A command-line flag (`overrides:` of `SyncscanConfiguration.load`), by its key.
    case commandLine(key: String)
    /// The built-in default (only an inconsistency between values can blame it).
    case builtInDefault

    /// The prefix of an error line: `config/x.yaml:12`, `environment SYNCSCAN_SOURCE`, ….
    public var description: String {
        switch self {
        case .file(let path, let line?): "\(path):\(line)"
        case .file(let path, nil): path
        case .environment(let variable): "environment \(variable)"
        case .commandLine(let key): "command line (\(key))"
        case .builtInDefault: "default"
        }
    }

    var line: Int? { if case .file(_, let line) = self { line } else { nil } }
}

/// The configuration cannot be used: every problem found, each naming its key and where it came from.
///
/// The CLI prints `description` (one problem per line) to stderr and exits with `exitCode` (2).
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One wrong key: `config/x.yaml:12: symbologies[1]: unknown symbology "qr" (known: …)`.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var origin: ConfigurationOrigin
        /// The key in dotted form, with `[i]` for list elements; empty for a whole-file problem.
        public var key: String
        public var message: String

        public init(origin: ConfigurationOrigin, key: String, message: String) { (self.origin, self.key, self.message) = (origin, key, message) }

        public var description: String { key.isEmpty ? "\(origin): \(message)" : "\(origin): \(key): \(message)" }
    }

    /// The process exit status for a configuration error (as for a usage error).
    public static let exitCode: Int32 = 2
    public var exitCode: Int32 { Self.exitCode }
    /// Every problem found, in file order where there is one.
    public var problems: [Problem]

    public init(problems: [Problem]) { self.problems = problems }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
