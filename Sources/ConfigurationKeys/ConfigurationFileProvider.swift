import Configuration
import Yams

/// A value of the configuration file as the provider answers it: a scalar, or a list of them.
///
/// A scalar keeps its text, its tag as written (none, `!!str` for a quoted one, or an explicit
/// one) and its style, so that what it is as an integer, a number or a boolean is worked out only
/// when a key reads it: by Yams' `Int.construct(from:)` and the others, with Yams' default tag
/// resolution, as swift-configuration's `YAMLSnapshot` converts. The file is composed with
/// `Resolver.basic` (no tag resolved by pattern): resolving every key's and value's tag by Yams'
/// regular expressions took most of the time of a file of many keys.
enum ConfigurationFileValue: Sendable, Equatable {
    struct Scalar: Sendable, Equatable {
        let string: String
        private let tag: String
        private let style: UInt32

        init(_ scalar: Node.Scalar) { (string, tag, style) = (scalar.string, scalar.tag.description, scalar.style.rawValue) }

        /// Whether it is YAML's null: a plain `~`, `null`, `Null`, `NULL` or nothing, or tagged `!!null`
        /// (Yams' default rule).
        var isNull: Bool {
            tag == Tag.Name.null.rawValue || (tag == Tag.Name.implicit.rawValue && ["", "~", "null", "Null", "NULL"].contains(string))
        }

        /// The scalar again, its tag resolved by Yams' default resolver when it is read.
        private var node: Node.Scalar { Node.Scalar(string, Tag(Tag.Name(rawValue: tag)), Node.Scalar.Style(rawValue: style) ?? .any) }
        var int: Int? { Int.construct(from: node) }
        var double: Double? { Double.construct(from: node) }
        var bool: Bool? { Bool.construct(from: node) }
    }

    case scalar(Scalar)
    case list([Scalar])

    /// The value does not convert to the type read.
    struct Mismatch: Error, CustomStringConvertible {
        let key: String
        let type: ConfigType
        var description: String { "the value of \(key) is not \(type)" }
    }

    /// The value as `type`, as `YAMLSnapshot` gives it (base64 for bytes).
    /// - Throws: `Mismatch` when it does not convert.
    func configValue(as type: ConfigType, key: String) throws(Mismatch) -> ConfigValue {
        func required<T>(_ value: T?) throws(Mismatch) -> T {
            guard let value else { throw Mismatch(key: key, type: type) }
            return value
        }
        func each<T>(_ transform: (Scalar) -> T?) throws(Mismatch) -> [T] {
            guard case .list(let scalars) = self else { throw Mismatch(key: key, type: type) }
            var values: [T] = []
            values.reserveCapacity(scalars.count)
            for scalar in scalars { values.append(try required(transform(scalar))) }
            return values
        }
        let scalar: Scalar? = if case .scalar(let scalar) = self { scalar } else { nil }
        let content: ConfigContent
        switch type {
        case .string: content = .string(try required(scalar).string)
        case .int: content = .int(try required(scalar?.int))
        case .double: content = .double(try required(scalar?.double))
        case .bool: content = .bool(try required(scalar?.bool))
        case .bytes: content = .bytes(try required(scalar.flatMap { ConfigBytesFromBase64StringDecoder().decode($0.string) }))
        case .stringArray: content = .stringArray(try each(\.string))
        case .intArray: content = .intArray(try each(\.int))
        case .doubleArray: content = .doubleArray(try each(\.double))
        case .boolArray: content = .boolArray(try each(\.bool))
        case .byteChunkArray: content = .byteChunkArray(try each { ConfigBytesFromBase64StringDecoder().decode($0.string) })
        }
        return ConfigValue(content, isSecret: false)
    }
}

/// The configuration file's values, from `ConfigurationFileLayout`'s one pass over the file: no
/// second read of the file, no second parse of its text.
///
/// `FileProvider<YAMLSnapshot>(filePath:)` would read the file again, whole and without a limit,
/// and `YAMLSnapshot` takes time quadratic in the number of keys of a mapping; this provider
/// answers as they do, from a dictionary by dotted key.
struct ConfigurationFileProvider: ConfigProvider, ConfigSnapshot {
    private let values: [String: ConfigurationFileValue]

    init(values: [String: ConfigurationFileValue]) { self.values = values }

    var providerName: String { "configuration file" }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let encoded = key.components.joined(separator: ".")
        return LookupResult(encodedKey: encoded, value: try values[encoded]?.configValue(as: type, key: encoded))
    }

    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }

    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey, type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    func snapshot() -> any ConfigSnapshot { self }
}
