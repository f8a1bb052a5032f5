import Configuration

/// The configuration file's values, from the bytes `ConfigurationFileLayout` read (within its
/// size limit): swift-configuration's `YAMLSnapshot` over them, without reading the file again.
///
/// `FileProvider<YAMLSnapshot>(filePath:)` would read the file a second time, whole and without a
/// limit; this provider answers as it does, from the snapshot.
struct YAMLFileBytesProvider: ConfigProvider {
    private let yaml: YAMLSnapshot

    /// Parses `bytes` (`YAMLSnapshot.init(data:providerName:parsingOptions:)`).
    /// - Throws: what the snapshot throws for YAML it cannot take (a document that is not a mapping).
    init(bytes: [UInt8]) throws {
        yaml = try YAMLSnapshot(data: bytes.span.bytes, providerName: "FileProvider<YAMLSnapshot>", parsingOptions: .default)
    }

    var providerName: String { yaml.providerName }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try yaml.value(forKey: key, type: type)
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

    func snapshot() -> any ConfigSnapshot { yaml }
}
