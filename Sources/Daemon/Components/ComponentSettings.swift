import ConfigurationKeys
import Media

/// The typed name of one component's settings in a configuration (`SyncscanConfiguration[key]`),
/// with the value a configuration that never read them has.
public struct SettingsKey<Value: Sendable & Hashable>: Sendable {
    /// Unique among the registered components' keys: the component's key prefix, or its name.
    public let name: String
    public let defaultValue: Value
    public init(_ name: String, default defaultValue: Value) { (self.name, self.defaultValue) = (name, defaultValue) }
}

/// The settings every registered component read, by `SettingsKey`, their types hidden
/// (`OpaqueSettings`): what lets `SyncscanConfiguration` hold them without importing a component.
///
/// A value equal to its key's default is not stored, so two configurations with the same
/// settings are equal however they were made.
public struct ComponentSettingsStore: Sendable, Hashable {
    private(set) var values: [String: OpaqueSettings] = [:]

    public init() {}

    public subscript<Value>(key: SettingsKey<Value>) -> Value {
        get { values[key.name]?.value(as: Value.self) ?? key.defaultValue }
        set { values[key.name] = newValue == key.defaultValue ? nil : OpaqueSettings(newValue) }
    }

    /// The settings stored under `name`, opaque (a decoder library's, for its reader).
    func opaque(_ name: String) -> OpaqueSettings? { values[name] }
}

/// How a reload reaches a component's settings, as its descriptor says; the service acts on it
/// (`PipelineOptions.needsRestart`, `SyncscanConfiguration.startOnlyChanges`), no list by hand.
public enum SettingsReload: Sendable, Equatable {
    /// Applied to the running part (a decoder library's settings, the webhook's, the live view's).
    case inPlace
    /// The capture session restarts with the source reopened (an input's settings).
    case restartsSession
    /// Read only at start: a reload that changes them says a restart of the service applies them.
    case restartsService(why: String)
}

/// One component's settings: its key prefix, how it reads them from the reader scoped to it (and
/// checks them, every problem named with its key: `check-config`), how a reload reaches them,
/// and what of them `/status` shows.
public struct SettingsSection: Sendable {
    /// The prefix its keys are under (`webhook`: `webhook.url`); `nil`: top-level keys.
    public let prefix: String?
    /// Its `SettingsKey`'s name.
    public let name: String
    public let reload: SettingsReload
    let read: @Sendable (ConfigurationKeyReader, inout ComponentSettingsStore) -> Void
    /// The settings as far as a restart is concerned (what is applied in place left out).
    let restartRelevant: @Sendable (ComponentSettingsStore) -> OpaqueSettings
    let describe: @Sendable (ComponentSettingsStore) -> [(name: String, value: String)]

    /// - Parameters:
    ///   - read: reads the settings from the reader scoped to `prefix` (top-level without one),
    ///     reporting each problem through `ConfigurationKeyReader.problem`.
    ///   - appliedInPlace: clears the part a reload applies in place without the restart
    ///     `reload` says (a camera's `device.controls`); `nil`: none.
    ///   - describe: the settings' fields `/status` shows (never a secret).
    public init<Value>(_ key: SettingsKey<Value>, prefix: String?, reload: SettingsReload,
                       read: @escaping @Sendable (ConfigurationKeyReader) -> Value,
                       appliedInPlace: (@Sendable (inout Value) -> Void)? = nil,
                       describe: @escaping @Sendable (Value) -> [(name: String, value: String)] = { _ in [] }) {
        (self.prefix, self.name, self.reload) = (prefix, key.name, reload)
        self.read = { keys, store in store[key] = read(prefix.map { keys.scoped(to: $0) } ?? keys) }
        self.restartRelevant = { store in
            var value = store[key]
            appliedInPlace?(&value)
            return OpaqueSettings(value)
        }
        self.describe = { store in describe(store[key]) }
    }

    /// How its keys are named in messages: `webhook.*`.
    public var keys: String { prefix.map { "\($0).*" } ?? name }

    /// Whether `new` changes what a restart applies.
    func changed(from old: ComponentSettingsStore, to new: ComponentSettingsStore) -> Bool {
        restartRelevant(old) != restartRelevant(new)
    }
}
