#if canImport(Glibc)
import Glibc
#endif
import Media
import SystemCalls

/// One capture node as `syncscan devices` shows it (Codable for `--json`).
public struct V4L2DeviceDescription: Codable, Sendable, Hashable {
    public var path: String
    public var card: String?
    public var driver: String?
    public var busInfo: String?
    public var formats: [Format]
    /// Its controls, as `device.controls` names them.
    public var controls: [Control] = []
    /// Why the node could not be described (e.g. permission denied); `nil` when it could.
    public var error: String?
    /// The mode `syncscan run` would choose with the configuration given, and why.
    public var chosen: ChosenMode?
    /// Why no mode fits the configuration (`run` would stop naming it); `nil` when one does.
    public var chosenProblem: String?

    /// The mode `run` chooses (`CaptureModeSelection`) and what it beat.
    public struct ChosenMode: Codable, Sendable, Hashable {
        public var fourcc: FourCC
        public var width: Int
        public var height: Int
        /// The rate whose interval `run` sets with VIDIOC_S_PARM; `nil` when the driver enumerates none.
        public var framesPerSecond: Double?
        /// `1280x720 MJPG at 30 fps; YUYV gives 10 fps at this size`, then the settings it followed.
        public var why: String
    }

    public struct Format: Codable, Sendable, Hashable {
        public var fourcc: FourCC
        public var description: String
        public var compressed: Bool
        /// Offered by libv4l2 converting from a native format.
        public var emulated: Bool
        public var sizes: [Size]
    }

    public struct Size: Codable, Sendable, Hashable {
        /// `discrete`, `stepwise` or `continuous`.
        public var kind: String
        /// The size, or for a range its largest.
        public var width: Int
        public var height: Int
        /// For a range: its smallest size and steps.
        public var minimumWidth: Int?
        public var minimumHeight: Int?
        public var stepWidth: Int?
        public var stepHeight: Int?
        /// At `width`x`height`.
        public var intervals: [Interval]
    }

    public struct Interval: Codable, Sendable, Hashable {
        /// `discrete` or `stepwise`.
        public var kind: String
        /// Seconds per frame (the shortest for a range).
        public var interval: V4L2Fraction
        public var framesPerSecond: Double
        /// For a range: the longest interval.
        public var maximumInterval: V4L2Fraction?
        public var minimumFramesPerSecond: Double?
    }

    /// One control (VIDIOC_QUERY_EXT_CTRL, VIDIOC_QUERYMENU, its value by VIDIOC_G_EXT_CTRLS).
    public struct Control: Codable, Sendable, Hashable {
        /// As `v4l2-ctl -l` prints it and `device.controls` takes it.
        public var name: String
        public var id: UInt32
        /// `int`, `bool`, `menu`, `intmenu`, `int64`, `button`, `bitmask`, …
        public var type: String
        public var minimum: Int64
        public var maximum: Int64
        public var step: UInt64
        public var `default`: Int64
        /// The current value; `nil` for one that cannot be read (write-only, a button).
        public var value: Int64?
        public var menu: [MenuItem]
        /// `inactive`, `read-only`, `disabled`, `write-only`, `volatile`, `grabbed`.
        public var flags: [String]

        public struct MenuItem: Codable, Sendable, Hashable {
            public var index: Int64
            /// The item's name as `device.controls` takes it (a menu), or its number (an integer menu).
            public var name: String?
            public var value: Int64?
        }

        init(_ control: V4L2ControlDescription, value: Int64?) {
            name = control.configurationName
            id = control.id
            type = control.type.description
            minimum = control.minimum
            maximum = control.maximum
            step = control.step
            self.default = control.defaultValue
            self.value = value
            menu = control.menu.map { MenuItem(index: $0.index, name: $0.name.map(V4L2ControlDescription.configurationName(for:)), value: $0.value) }
            flags = control.flags.names
        }
    }

    public init(path: String, card: String? = nil, driver: String? = nil, busInfo: String? = nil,
                formats: [Format] = [], error: String? = nil) {
        self.path = path
        self.card = card
        self.driver = driver
        self.busInfo = busInfo
        self.formats = formats
        self.error = error
    }

    /// A `v4l2-ctl --list-formats-ext`-like rendering.
    public var text: String {
        var lines = ["\(path): " + (error.map { "unavailable: \($0)" }
            ?? "\(card ?? "?") (driver \(driver ?? "?"), bus \(busInfo ?? "?"))")]
        if let chosen { lines.append("\trun chooses (marked *): \(chosen.why)") }
        if let chosenProblem { lines.append("\trun cannot start: \(chosenProblem)") }
        for (index, format) in formats.enumerated() {
            var flags: [String] = []
            if format.compressed { flags.append("compressed") }
            if format.emulated { flags.append("emulated") }
            lines.append("\t[\(index)]: '\(format.fourcc)' (\(format.description)\(flags.isEmpty ? "" : ", " + flags.joined(separator: ", ")))")
            for size in format.sizes {
                let mark = chosen.map { $0.fourcc == format.fourcc && (size.kind == "discrete" ? ($0.width, $0.height) == (size.width, size.height)
                    : ((size.minimumWidth ?? 0)...size.width).contains($0.width)) } == true ? " *" : ""
                if size.kind == "discrete" {
                    lines.append("\t\tSize: Discrete \(size.width)x\(size.height)\(mark)")
                } else {
                    lines.append("\t\tSize: \(size.kind.capitalized) \(size.minimumWidth ?? 0)x\(size.minimumHeight ?? 0) - \(size.width)x\(size.height)"
                                 + " with step \(size.stepWidth ?? 1)/\(size.stepHeight ?? 1)\(mark)")
                }
                for interval in size.intervals {
                    if let maximum = interval.maximumInterval, let slowest = interval.minimumFramesPerSecond {
                        lines.append("\t\t\tInterval: Stepwise \(seconds(interval.interval))s - \(seconds(maximum))s"
                                     + " (\(fps(slowest))-\(fps(interval.framesPerSecond)) fps)")
                    } else {
                        lines.append("\t\t\tInterval: Discrete \(seconds(interval.interval))s (\(fps(interval.framesPerSecond)) fps)")
                    }
                }
            }
        }
        if !controls.isEmpty { lines.append("\tControls (device.controls):") }
        for control in controls {
            var line = "\t\t\(control.name) (\(control.type))"
            if control.type == "int" || control.type == "int64" {
                line += " min=\(control.minimum) max=\(control.maximum) step=\(control.step)"
            }
            line += " default=\(control.default)" + (control.value.map { " value=\($0)" } ?? "")
            if !control.flags.isEmpty { line += " flags=\(control.flags.joined(separator: ","))" }
            lines.append(line)
            for item in control.menu { lines.append("\t\t\t\(item.index): \(item.name ?? item.value.map(String.init) ?? "")") }
        }
        return lines.joined(separator: "\n")
    }
}

private extension String {
    var capitalized: String { prefix(1).uppercased() + dropFirst() }
}

private func fixed3(_ value: Double) -> String { DecimalText.string(value, fractionDigits: 3, minimumFractionDigits: 3) }
private func seconds(_ f: V4L2Fraction) -> String { fixed3(f.denominator == 0 ? 0 : Double(f.numerator) / Double(f.denominator)) }
private func fps(_ value: Double) -> String { fixed3(value) }

/// The `/dev/video*` nodes in `directory`, in numeric order.
public func videoDevicePaths(in directory: String = "/dev") -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        var nameTuple = entry.pointee.d_name
        let name = withUnsafeBytes(of: &nameTuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasPrefix("video"), Int(name.dropFirst(5)) != nil { names.append(name) }
    }
    return names.sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }.map { directory + "/" + $0 }
}

/// Describes every video capture node among `paths` (default: `/dev/video*`): card, driver,
/// bus, formats with sizes and frame rates, controls with their values (VIDIOC_QUERYCAP,
/// ENUM_FMT, ENUM_FRAMESIZES, ENUM_FRAMEINTERVALS, QUERY_EXT_CTRL, QUERYMENU, G_EXT_CTRLS), and the
/// mode `run` would choose with `configuration` (`chosen`; `decodesMJPEG`: as `run` does, with
/// TurboJPEG). Nodes that are not streaming capture devices (metadata, output) are left out; nodes
/// that cannot be opened or queried are listed with `error` set.
public func listCaptureDevices(paths: [String]? = nil, kernel: any V4L2Kernel = SystemV4L2Kernel(),
                               configuration: V4L2CaptureSource.Configuration = .init(), decodesMJPEG: Bool = true) -> [V4L2DeviceDescription] {
    (paths ?? videoDevicePaths()).compactMap { path -> V4L2DeviceDescription? in
        do throws(IOError) {
            let device = try V4L2Device(path: path, kernel: kernel)
            let capability = try device.capability()
            let node = capability.nodeCapabilities
            guard node.contains(.videoCapture), node.contains(.streaming) else { return nil }
            var formats: [V4L2DeviceDescription.Format] = []
            for format in try device.formats() {
                var sizes: [V4L2DeviceDescription.Size] = []
                for size in try device.frameSizes(for: format.fourcc) {
                    var entry: V4L2DeviceDescription.Size
                    switch size {
                    case .discrete(let w, let h):
                        entry = .init(kind: "discrete", width: w, height: h, intervals: [])
                    case .stepwise(let minW, let maxW, let stepW, let minH, let maxH, let stepH, let continuous):
                        entry = .init(kind: continuous ? "continuous" : "stepwise", width: maxW, height: maxH,
                                      minimumWidth: minW, minimumHeight: minH, stepWidth: stepW, stepHeight: stepH, intervals: [])
                    }
                    entry.intervals = try device.frameIntervals(for: format.fourcc, width: entry.width, height: entry.height).map {
                        switch $0 {
                        case .discrete(let f):
                            .init(kind: "discrete", interval: f, framesPerSecond: f.framesPerSecond)
                        case .stepwise(let minimum, let maximum, _):
                            .init(kind: "stepwise", interval: minimum, framesPerSecond: minimum.framesPerSecond,
                                  maximumInterval: maximum, minimumFramesPerSecond: maximum.framesPerSecond)
                        }
                    }
                    sizes.append(entry)
                }
                formats.append(.init(fourcc: format.fourcc, description: format.description, compressed: format.isCompressed,
                                     emulated: format.isEmulated, sizes: sizes))
            }
            var description = V4L2DeviceDescription(path: path, card: capability.card, driver: capability.driver,
                                                    busInfo: capability.busInfo, formats: formats)
            description.controls = try device.controls().map { V4L2DeviceDescription.Control($0, value: device.value(of: $0)) }
            let request = configuration.modeRequest(decodesMJPEG: decodesMJPEG)
            switch CaptureModeSelection.choose(from: try device.captureModes(for: request), request: request) {
            case .success(let choice):
                let rate = choice.interval?.framesPerSecond
                description.chosen = .init(fourcc: choice.mode.fourcc, width: choice.mode.width, height: choice.mode.height,
                                           framesPerSecond: rate, why: choice.summary + " (" + request.settingsText + ")")
            case .failure(let problem):
                description.chosenProblem = problem.description
            }
            return description
        } catch {
            if error.code == .notFound || error.code == .notSupported { return nil }
            // The listing names the node already; the message starts with it too.
            let reason = error.description.hasPrefix(path + ": ") ? String(error.description.dropFirst(path.count + 2)) : error.description
            return V4L2DeviceDescription(path: path, error: reason)
        }
    }
}

/// The text rendering of a device list; says so when there is none.
public func renderDeviceList(_ devices: [V4L2DeviceDescription]) -> String {
    devices.isEmpty ? "no video capture devices found (/dev/video*)" : devices.map(\.text).joined(separator: "\n\n")
}
