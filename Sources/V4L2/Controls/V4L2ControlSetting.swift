import SystemCalls
import SystemPackage

/// One `device.controls` entry: a control's name and the value to set, as the configuration gives them.
///
/// The name is the one `v4l2-ctl -l` prints (`focus_absolute`), or a name used before Linux
/// 5.16 (`focus_auto`, `exposure_auto`, `exposure_absolute`, `white_balance_temperature_auto`,
/// `exposure_auto_priority`), matched to the camera's control by ID. The value is a number, `true`
/// or `false`, or a menu item by its name (`manual_mode`, `Manual Mode`) or index.
public struct V4L2ControlSetting: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Standard controls by name, current and older, with their ID and value type: what
    /// `check-config` can judge without a camera.
    public static let standardControls: [String: (id: UInt32, type: V4L2ControlType)] = [
        "brightness": (0x0098_0900, .integer), "contrast": (0x0098_0901, .integer), "saturation": (0x0098_0902, .integer),
        "hue": (0x0098_0903, .integer), "white_balance_automatic": (0x0098_090c, .boolean),
        "white_balance_temperature_auto": (0x0098_090c, .boolean), "gamma": (0x0098_0910, .integer),
        "gain_automatic": (0x0098_0912, .boolean), "gain": (0x0098_0913, .integer),
        "power_line_frequency": (0x0098_0918, .menu), "white_balance_temperature": (0x0098_091a, .integer),
        "sharpness": (0x0098_091b, .integer), "backlight_compensation": (0x0098_091c, .integer),
        "auto_exposure": (0x009a_0901, .menu), "exposure_auto": (0x009a_0901, .menu),
        "exposure_time_absolute": (0x009a_0902, .integer), "exposure_absolute": (0x009a_0902, .integer),
        "exposure_dynamic_framerate": (0x009a_0903, .boolean), "exposure_auto_priority": (0x009a_0903, .boolean),
        "pan_absolute": (0x009a_0908, .integer), "tilt_absolute": (0x009a_0909, .integer),
        "focus_absolute": (0x009a_090a, .integer), "focus_relative": (0x009a_090b, .integer),
        "focus_automatic_continuous": (0x009a_090c, .boolean), "focus_auto": (0x009a_090c, .boolean),
        "zoom_absolute": (0x009a_090d, .integer),
    ]

    /// Automatic modes, set before every other control: while one is on, a UVC camera refuses
    /// the manual values it governs with EACCES (white balance, gain, hue, exposure, focus).
    static let automaticModes: Set<UInt32> = [0x0098_090c, 0x0098_0912, 0x0098_0919, 0x009a_0901, 0x009a_090c]

    /// What is wrong with the value for a standard control's type, or `nil` (also for a name
    /// that is not standard: the camera decides at run).
    public var typeProblem: String? {
        guard let (_, type) = Self.standardControls[name] else {
            return name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) && !name.isEmpty
                ? nil : "not a control name: names are lower case letters, digits and _ as `v4l2-ctl -l` prints them"
        }
        switch type {
        case .boolean where Self.boolean(value) == nil: return "expected true or false, found \"\(value)\""
        case .integer where Int64(value) == nil: return "expected an integer, found \"\(value)\""
        default: return nil
        }
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "1", "on", "yes": true
        case "false", "0", "off", "no": false
        default: nil
        }
    }

    /// The camera's control this names: by the name `v4l2-ctl` prints, else by a standard name's ID.
    func control(in controls: [V4L2ControlDescription]) -> V4L2ControlDescription? {
        controls.first { $0.configurationName == name }
            ?? Self.standardControls[name].flatMap { standard in controls.first { $0.id == standard.id } }
    }

    /// The integer to set on `control`, or why the value does not fit it (what it offers).
    func resolvedValue(for control: V4L2ControlDescription) -> Result<Int64, V4L2ControlError.Reason> {
        switch control.type {
        case .boolean:
            guard let flag = Self.boolean(value) else { return .failure(.badValue("expected true or false")) }
            return .success(flag ? 1 : 0)
        case .menu, .integerMenu:
            let items = control.menu
            let offered = items.map { item in
                "\(item.name.map(V4L2ControlDescription.configurationName(for:)) ?? String(item.value ?? item.index)) (\(item.index))"
            }
            if let number = Int64(value), let item = items.first(where: { $0.index == number }) { return .success(item.index) }
            if let item = items.first(where: { item in item.name.map { $0.lowercased() == value.lowercased()
                    || V4L2ControlDescription.configurationName(for: $0) == V4L2ControlDescription.configurationName(for: value) } ?? false }) {
                return .success(item.index)
            }
            return .failure(.badValue("not an item of its menu (items: \(offered.joined(separator: ", ")))"))
        default:
            guard let number = Int64(value) else { return .failure(.badValue("expected an integer")) }
            guard number >= control.minimum && number <= control.maximum else {
                return .failure(.badValue("out of range: the camera takes \(control.minimum) to \(control.maximum)"
                                          + (control.step > 1 ? " in steps of \(control.step)" : "")))
            }
            return .success(number)
        }
    }
}

/// A control that could not be set, naming it, the value and what the camera offers.
public struct V4L2ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Error, Sendable, Hashable {
        /// The camera has no control of that name.
        case unknown(offered: [String])
        case badValue(String)
        case readOnly
        case inactive
        /// The ioctl failed.
        case failed(call: String, errno: Errno)
    }

    public var device: String
    public var control: String
    public var value: String
    public var reason: Reason

    public var description: String {
        let what = "\(device): control \(control)=\(value)"
        switch reason {
        case .unknown(let offered):
            return "\(what): the camera has no such control (it has: \(offered.joined(separator: ", ")); `syncscan devices` lists them)"
        case .badValue(let text): return "\(what): \(text)"
        case .readOnly: return "\(what): the control is read-only"
        case .inactive: return "\(what): the control is inactive (an automatic mode or another control governs it): set that first"
        case .failed(let call, .permissionDenied):
            return "\(what): refused while its automatic mode is on (\(call): EACCES): set the automatic mode off in device.controls too"
        case .failed(let call, let errno):
            return "\(what): \(call) failed: \(errno) (\(errno.rawValue)): check the value with `v4l2-ctl -l`"
        }
    }

    /// What a log line keys repeated failures by: the control and the kind of failure.
    public var cause: String {
        switch reason {
        case .unknown: "\(control) unknown"
        case .badValue: "\(control) value"
        case .readOnly: "\(control) read-only"
        case .inactive: "\(control) inactive"
        case .failed(let call, let errno): "\(control) \(call) \(errno.rawValue)"
        }
    }
}

extension V4L2Device {
    /// Every control with a value (VIDIOC_QUERY_EXT_CTRL with `V4L2_CTRL_FLAG_NEXT_CTRL` until
    /// EINVAL; class headings left out), with menu items (VIDIOC_QUERYMENU). None for a driver
    /// without controls (ENOTTY).
    public func controls() throws(IOError) -> [V4L2ControlDescription] {
        var controls: [V4L2ControlDescription] = []
        var last: UInt32 = 0
        while controls.count < 1024 {
            switch kernel.queryNextControl(descriptor, after: last) {
            case .success(var control):
                last = control.id
                guard control.type != .controlClass else { continue }
                if control.type == .menu || control.type == .integerMenu, control.maximum >= control.minimum,
                   control.maximum - control.minimum < 256 {
                    control.menu = (control.minimum...control.maximum).compactMap { index in
                        try? kernel.queryMenuItem(descriptor, control: control.id, index: index, type: control.type).get()
                    }
                }
                controls.append(control)
            case .failure(.invalidArgument), .failure(.inappropriateIOCTLForDevice):
                return controls
            case .failure(let errno):
                throw IOError.v4l2(call: "VIDIOC_QUERY_EXT_CTRL", device: path, errno: errno)
            }
        }
        return controls
    }

    /// A control's current value (VIDIOC_G_EXT_CTRLS); `nil` for a write-only or valueless one, or when it cannot be read.
    public func value(of control: V4L2ControlDescription) -> Int64? {
        guard control.type.hasValue, !control.flags.contains(.writeOnly) else { return nil }
        return try? kernel.getControl(descriptor, id: control.id, type: control.type).get()
    }

    /// Sets `settings` on the camera (VIDIOC_S_EXT_CTRLS, one control each), automatic modes
    /// first; every setting is tried, and each that failed is returned.
    ///
    /// `controls` is the camera's list (`controls()`), passed in so one listing serves both.
    public func apply(_ settings: [V4L2ControlSetting], controls: [V4L2ControlDescription]) -> [V4L2ControlError] {
        let resolved = settings.map { setting in (setting, setting.control(in: controls)) }
        let ordered = resolved.enumerated().sorted { a, b in
            let (autoA, autoB) = (a.element.1.map { V4L2ControlSetting.automaticModes.contains($0.id) } ?? false,
                                  b.element.1.map { V4L2ControlSetting.automaticModes.contains($0.id) } ?? false)
            return autoA != autoB ? autoA : a.offset < b.offset
        }.map(\.element)
        var errors: [V4L2ControlError] = []
        for (setting, control) in ordered {
            func fail(_ reason: V4L2ControlError.Reason) {
                errors.append(V4L2ControlError(device: path, control: setting.name, value: setting.value, reason: reason))
            }
            guard let control else {
                fail(.unknown(offered: controls.filter(\.isSettable).map(\.configurationName)))
                continue
            }
            if control.flags.contains(.readOnly) || !control.type.hasValue { fail(.readOnly); continue }
            switch setting.resolvedValue(for: control) {
            case .failure(let reason): fail(reason)
            case .success(let value):
                if case .failure(let errno) = kernel.setControl(descriptor, id: control.id, type: control.type, value: value) {
                    fail(control.flags.contains(.inactive) && errno != .permissionDenied ? .inactive
                         : .failed(call: "VIDIOC_S_EXT_CTRLS", errno: errno))
                }
            }
        }
        return errors
    }
}
