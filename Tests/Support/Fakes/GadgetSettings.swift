import ConfigurationKeys

/// A component's settings read the way every component's are (`ConfigurationSection`), under
/// `gadget.*`: `speed` (1–10), `name`, a secret `token`, and `gadget.lamp.on`, one scope deeper.
public struct GadgetSettings: Sendable, Hashable, ConfigurationSection {
    public var speed = 5
    public var name: String?
    public var token: String?
    public var lampOn = false

    /// `nil`: no `gadget.name`, the gadget is off; every key is read all the same.
    public init?(reading keys: ConfigurationKeyReader) {
        if let v = keys.int("speed", in: 1...10, " (turns a second)") { speed = v }
        name = keys.string("name")
        token = keys.string("token", isSecret: true)
        if let v = keys.scoped(to: "lamp").bool("on") { lampOn = v }
        if token != nil && name == nil { keys.problem("token", "needs \(keys.fullKey("name")) too") }
        if name == nil { return nil }
    }
}
