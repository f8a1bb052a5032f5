/// A component's settings with their type hidden, compared and hashed as that type.
///
/// How a configuration holds a plug-in's settings without naming its type, and how `Capture`
/// hands a decoder library its own settings (`DecoderRequest.options`) without knowing them.
public struct OpaqueSettings: Sendable, Hashable {
    public let value: any Sendable
    private let equals: @Sendable (any Sendable) -> Bool
    private let hash: @Sendable (inout Hasher) -> Void

    public init<T: Sendable & Hashable>(_ value: T) {
        self.value = value
        equals = { ($0 as? T) == value }
        hash = { hasher in
            hasher.combine(ObjectIdentifier(T.self))
            hasher.combine(value)
        }
    }

    /// The settings as `type`; `nil` when they are of another type.
    public func value<T>(as type: T.Type) -> T? { value as? T }

    public static func == (a: OpaqueSettings, b: OpaqueSettings) -> Bool { a.equals(b.value) }

    public func hash(into hasher: inout Hasher) { hash(&hasher) }
}
