import Configuration
import Yams

/// A value of the configuration file as the provider answers it: a scalar, or a list of them.
///
/// Each scalar keeps its text and what Yams makes of it as an integer, a number and a boolean
/// (`Int.construct(from:)` and the others, as swift-configuration's `YAMLSnapshot` converts),
/// worked out once from the node `ConfigurationFileLayout` composed, so the value is `Sendable`.
enum ConfigurationFileValue: Sendable, Equatable {
    struct Scalar: Sendable, Equatable {
        let string: String
        let int: Int?
        let double: Double?
        let bool: Bool?

        init(_ scalar: Node.Scalar) {
            (string, int, double, bool) = (scalar.string, Int.construct(from: scalar), Double.construct(from: scalar), Bool.construct(from: scalar))
        }
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
