import ConfigurationKeys
import Evdev

/// The key trigger (`trigger.key.*`): a key or button of an input device (a foot switch, a
/// button box that presents as a keyboard) presses and releases the trigger.
public struct KeyTriggerSettings: Sendable, Hashable {
    /// The evdev node: `/dev/input/eventN`, or a stable `/dev/input/by-id/…-event-kbd` link.
    public var device: String
    /// The key or button, by its kernel name.
    public var code: KeyCode

    public init(device: String, code: KeyCode) { (self.device, self.code) = (device, code) }

    /// The key a configuration without `trigger.key.code` listens for.
    public static let defaultCode = KeyCode(named: "KEY_F12")!
}

extension KeyTriggerSettings: ConfigurationSection {
    /// Reads `trigger.key.*` (given `keys.scoped(to: "trigger.key")`): `device` (a path under
    /// /dev/input) and `code` (`KEY_F12`, `BTN_0`: a name libevdev knows). `nil`: no `device`.
    public init?(reading keys: ConfigurationKeyReader) {
        var code = Self.defaultCode
        if let name = keys.string("code") {
            if let known = KeyCode(named: name) {
                code = known
            } else {
                keys.problem("code", "unknown key \"\(name)\": a kernel key or button name such as KEY_F12, KEY_ENTER or BTN_0 "
                             + "(evtest lists a device's keys)")
            }
        }
        guard let device = keys.string("device") else { return nil }
        guard device.hasPrefix("/") else {
            keys.problem("device", "must be an absolute path: /dev/input/eventN or /dev/input/by-id/…")
            return nil
        }
        self.init(device: device, code: code)
    }
}
