import CEvdev

/// A key or button of an input device by its kernel name (`KEY_F12`, `BTN_0`): what
/// `trigger.key.code` names.
public struct KeyCode: Sendable, Hashable, CustomStringConvertible {
    /// The kernel's code (linux/input-event-codes.h).
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The key named `name`, any case (`KEY_F12`, `key_f12`, `BTN_0`); `nil` when libevdev knows
    /// no such key (`libevdev_event_code_from_name` for EV_KEY).
    public init?(named name: String) {
        let code = system_evdev_event_code_from_name(UInt32(EV_KEY), name.uppercased())
        guard code >= 0 else { return nil }
        rawValue = UInt16(code)
    }

    /// The kernel's name (`KEY_F12`; `libevdev_event_code_get_name`), or the number.
    public var description: String {
        system_evdev_event_code_get_name(UInt32(EV_KEY), UInt32(rawValue)).map { String(cString: $0) } ?? "key \(rawValue)"
    }
}
