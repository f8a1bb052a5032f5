/// One control of a capture device as VIDIOC_QUERY_EXT_CTRL describes it, with its menu items.
///
/// `name` is the driver's (`Exposure Time, Absolute`); `configurationName` is how `v4l2-ctl -l`
/// prints it and how `device.controls` names it (`exposure_time_absolute`).
public struct V4L2ControlDescription: Sendable, Hashable {
    /// The control ID (`V4L2_CID_*`).
    public var id: UInt32
    public var name: String
    public var type: V4L2ControlType
    public var minimum: Int64
    public var maximum: Int64
    public var step: UInt64
    public var defaultValue: Int64
    public var flags: V4L2ControlFlags
    /// For a menu or integer menu: its valid items (indices the driver skips are absent).
    public var menu: [V4L2MenuItem]

    public init(id: UInt32, name: String, type: V4L2ControlType, minimum: Int64 = 0, maximum: Int64 = 0, step: UInt64 = 1,
                defaultValue: Int64 = 0, flags: V4L2ControlFlags = [], menu: [V4L2MenuItem] = []) {
        self.id = id
        self.name = name
        self.type = type
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.flags = flags
        self.menu = menu
    }

    /// The name as `v4l2-ctl` derives it: lower case, each run of other characters one `_`.
    public var configurationName: String { V4L2ControlDescription.configurationName(for: name) }

    /// `Focus, Automatic Continuous` → `focus_automatic_continuous`.
    public static func configurationName(for name: String) -> String {
        var result = ""
        var pendingSeparator = false
        for scalar in name.unicodeScalars {
            if scalar.properties.isAlphabetic && scalar.isASCII || ("0"..."9").contains(scalar) {
                if pendingSeparator { result += "_" }
                pendingSeparator = false
                result += String(scalar).lowercased()
            } else if !result.isEmpty {
                pendingSeparator = true
            }
        }
        return result
    }

    /// Whether a value can be set: not read-only, not disabled, a type with a value.
    public var isSettable: Bool {
        !flags.contains(.readOnly) && !flags.contains(.disabled) && type.hasValue
    }
}

/// `v4l2_ctrl_type` for the controls a camera is tuned with; other types are kept by number.
public enum V4L2ControlType: Sendable, Hashable, CustomStringConvertible {
    case integer, boolean, menu, button, integer64, controlClass, string, bitmask, integerMenu
    case other(UInt32)

    /// From `V4L2_CTRL_TYPE_*`.
    public init(rawValue: UInt32) {
        switch rawValue {
        case 1: self = .integer
        case 2: self = .boolean
        case 3: self = .menu
        case 4: self = .button
        case 5: self = .integer64
        case 6: self = .controlClass
        case 7: self = .string
        case 8: self = .bitmask
        case 9: self = .integerMenu
        default: self = .other(rawValue)
        }
    }

    public var rawValue: UInt32 {
        switch self {
        case .integer: 1
        case .boolean: 2
        case .menu: 3
        case .button: 4
        case .integer64: 5
        case .controlClass: 6
        case .string: 7
        case .bitmask: 8
        case .integerMenu: 9
        case .other(let value): value
        }
    }

    /// As `v4l2-ctl -l` names it: `int`, `bool`, `menu`, `intmenu`, `int64`, `button`, …
    public var description: String {
        switch self {
        case .integer: "int"
        case .boolean: "bool"
        case .menu: "menu"
        case .button: "button"
        case .integer64: "int64"
        case .controlClass: "class"
        case .string: "str"
        case .bitmask: "bitmask"
        case .integerMenu: "intmenu"
        case .other(let value): "type \(value)"
        }
    }

    /// A type whose value is one integer (what syncscan reads and sets).
    public var hasValue: Bool {
        switch self {
        case .integer, .boolean, .menu, .integer64, .bitmask, .integerMenu: true
        default: false
        }
    }
}

/// `V4L2_CTRL_FLAG_*`.
public struct V4L2ControlFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let disabled = V4L2ControlFlags(rawValue: 0x0001)
    public static let grabbed = V4L2ControlFlags(rawValue: 0x0002)
    public static let readOnly = V4L2ControlFlags(rawValue: 0x0004)
    public static let update = V4L2ControlFlags(rawValue: 0x0008)
    public static let inactive = V4L2ControlFlags(rawValue: 0x0010)
    public static let slider = V4L2ControlFlags(rawValue: 0x0020)
    public static let writeOnly = V4L2ControlFlags(rawValue: 0x0040)
    public static let volatile = V4L2ControlFlags(rawValue: 0x0080)

    /// The flags a user needs to know of, as `v4l2-ctl` prints them.
    public var names: [String] {
        [(Self.disabled, "disabled"), (.grabbed, "grabbed"), (.readOnly, "read-only"), (.inactive, "inactive"),
         (.writeOnly, "write-only"), (.volatile, "volatile")].filter { contains($0.0) }.map(\.1)
    }
}

/// One item of a menu control (VIDIOC_QUERYMENU): a name, or for an integer menu a number.
public struct V4L2MenuItem: Sendable, Hashable {
    public var index: Int64
    /// The item's name (menu), or `nil` for an integer menu.
    public var name: String?
    /// The item's value (integer menu), or `nil` for a menu.
    public var value: Int64?

    public init(index: Int64, name: String? = nil, value: Int64? = nil) {
        self.index = index
        self.name = name
        self.value = value
    }
}
