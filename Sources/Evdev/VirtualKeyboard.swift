import CEvdev
import SystemCalls
import SystemPackage

/// A keyboard made through uinput: owns the open `/dev/uinput`, the libevdev description it
/// was made from and the uinput device, and frees all three in `deinit` (the device disappears
/// from `/dev/input` then).
///
/// Not thread-safe: one thread makes it and types on it.
public final class VirtualKeyboard {
    /// The name programs see (`/proc/bus/input/devices`, `libinput list-devices`).
    public let name: String
    /// Its `/dev/input/eventN` node, when libevdev could tell (`libevdev_uinput_get_devnode`).
    public let devicePath: String?
    private let uinputFile: FileDescriptor
    private let description: OpaquePointer
    private let uinput: OpaquePointer

    /// Makes a keyboard named `name` with `keys` through `uinputPath`: `open(2)` of the node
    /// write-only, `libevdev_new`, `libevdev_enable_event_code` for each key,
    /// `libevdev_uinput_create_from_device`.
    /// - Throws: `IOError` naming the node and what to do: ENOENT (no uinput module), EACCES
    ///   (no permission: the service's drop-in), or the failed call.
    public init(name: String, keys: [KeyCode], uinputPath: String = "/dev/uinput") throws(IOError) {
        self.name = name
        let file: FileDescriptor
        switch Result(catchingErrno: { try FileDescriptor.open(uinputPath, .writeOnly, options: [.closeOnExec, .nonBlocking]) }) {
        case .success(let opened): file = opened
        case .failure(let errno): throw Self.openError(uinputPath, name: name, errno: errno)
        }
        let description: OpaquePointer
        switch EvdevCalls.new() {
        case .success(let made): description = made
        case .failure(let errno):
            try? file.close()
            throw IOError(call: "libevdev_new", message: "cannot describe the virtual keyboard '\(name)'", errno: errno)
        }
        system_evdev_set_name(description, name)
        var failure: (call: String, errno: Errno)?
        if case .failure(let errno) = EvdevCalls.enable(description, type: UInt32(EV_KEY)) { failure = ("libevdev_enable_event_type", errno) }
        for key in keys where failure == nil {
            if case .failure(let errno) = EvdevCalls.enable(description, type: UInt32(EV_KEY), code: UInt32(key.rawValue)) {
                failure = ("libevdev_enable_event_code \(key)", errno)
            }
        }
        if let failure {
            system_evdev_free(description)
            try? file.close()
            throw IOError(call: failure.call, message: "cannot describe the virtual keyboard '\(name)'", errno: failure.errno)
        }
        switch EvdevCalls.createUInput(like: description, through: file) {
        case .success(let device): uinput = device
        case .failure(let errno):
            system_evdev_free(description)
            try? file.close()
            throw IOError(call: "libevdev_uinput_create_from_device",
                          message: "\(uinputPath): the kernel refused the virtual keyboard '\(name)'; check the kernel log (dmesg)", errno: errno)
        }
        (self.uinputFile, self.description) = (file, description)
        devicePath = system_uinput_devnode(uinput).map { String(cString: $0) }
    }

    deinit {
        system_uinput_destroy(uinput)
        system_evdev_free(description)
        try? uinputFile.close()
    }

    /// Types `strokes` in order: for each, Shift down when it needs it, the key down and up, Shift
    /// up, each step followed by a SYN_REPORT (`libevdev_uinput_write_event`, which writes
    /// `struct input_event` to `/dev/uinput`).
    /// - Throws: `IOError` for the first failed write; the keys already typed stay typed, and
    ///   no key is left held down.
    public func type(_ strokes: [KeyStroke]) throws(IOError) {
        for stroke in strokes {
            var steps: [(KeyCode, Int32)] = [(stroke.key, 1), (stroke.key, 0)]
            if stroke.shift { steps = [(USKeymap.shiftKey, 1)] + steps + [(USKeymap.shiftKey, 0)] }
            for (key, value) in steps {
                if case .failure(let errno) = emit(key, value) {
                    // Let go of what this stroke may have pressed before saying why.
                    _ = emit(stroke.key, 0)
                    if stroke.shift { _ = emit(USKeymap.shiftKey, 0) }
                    throw IOError(call: "libevdev_uinput_write_event",
                                  message: "\(devicePath ?? name): cannot type on the virtual keyboard", errno: errno)
                }
            }
        }
    }

    private func emit(_ key: KeyCode, _ value: Int32) -> Result<Void, Errno> {
        EvdevCalls.write(uinput, type: UInt32(EV_KEY), code: UInt32(key.rawValue), value: value).flatMap {
            EvdevCalls.write(uinput, type: UInt32(EV_SYN), code: UInt32(SYN_REPORT), value: 0)
        }
    }

    /// What opening the uinput node with `errno` means, and what to do.
    static func openError(_ path: String, name: String, errno: Errno) -> IOError {
        let what: String
        switch errno {
        case .noSuchFileOrDirectory, .noSuchAddressOrDevice, .operationNotSupportedByDevice:
            what = "no such device: load the uinput module (modprobe uinput; list it in /etc/modules-load.d/ to keep it)"
        case .permissionDenied, .notPermitted:
            what = "permission denied: run syncscan with write access to \(path) (as a service: the keyboard drop-in of docs/service.md, "
                + "DeviceAllow=\(path) rw, and a udev rule giving its group write access)"
        default:
            what = "cannot open it"
        }
        return IOError(call: "open", message: "\(path): cannot create the virtual keyboard '\(name)': \(what)", errno: errno)
    }
}
