import ConfigurationKeys

/// The keyboard wedge (`keyboard.*`): each code typed on a virtual keyboard, as a USB scanner
/// types into the program that has the focus.
public struct KeyboardSettings: Sendable, Hashable {
    /// What is typed after each code.
    public enum Suffix: String, Sendable, Hashable, CaseIterable {
        case enter, tab, none
    }

    /// Which readings are typed.
    public enum What: String, Sendable, Hashable, CaseIterable {
        /// Every code emitted (each new item; each reading with duplicate suppression off).
        case codes
        /// The codes of `good` read windows only (`trigger.mode: triggered`), typed when the
        /// window closes; a `no_read` or `multiple` window types nothing.
        case results
    }

    /// The keyboard layout codes are typed with.
    public enum Layout: String, Sendable, Hashable, CaseIterable {
        /// A US keyboard: printable ASCII, Shift where needed.
        case us
    }

    /// The name the virtual keyboard shows to programs (`/proc/bus/input/devices`).
    public var deviceName = "syncscan keyboard"
    public var suffix = Suffix.enter
    public var what = What.codes
    public var layout = Layout.us
    /// Codes that may wait to be typed; more are dropped (`keyboard_dropped`), never waited for.
    public var queueCodes = 64
    /// The uinput node (not a key: tests point it elsewhere).
    public var uinputPath = "/dev/uinput"

    public init() {}
}

extension KeyboardSettings: ConfigurationSection {
    /// Reads `keyboard.*` (given `keys.scoped(to: "keyboard")`); every key is read whether or not
    /// the wedge is on. `nil`: `keyboard.enabled` is not true.
    public init?(reading keys: ConfigurationKeyReader) {
        self.init()
        let enabled = keys.bool("enabled") ?? false
        if let name = keys.string("device_name") {
            // uinput takes a name of at most UINPUT_MAX_NAME_SIZE (80) bytes, NUL included.
            if name.isEmpty || name.utf8.count > 79 || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                keys.problem("device_name", "must be 1 to 79 bytes without control characters (uinput's limit)")
            } else {
                deviceName = name
            }
        }
        if let v: Suffix = keys.choice("suffix", "suffix") { suffix = v }
        if let v: What = keys.choice("what", "choice") { what = v }
        if let v: Layout = keys.choice("layout", "keyboard layout") { layout = v }
        guard enabled else { return nil }
    }
}
