import CEvdev
import SystemCalls
import SystemPackage

/// An input device node (`/dev/input/eventN`, or a `/dev/input/by-id/…` link to one) open for
/// reading its events: owns the descriptor and the libevdev description, frees both in `deinit`.
///
/// Not thread-safe: one thread opens it, waits on `descriptor` (poll) and reads.
public final class InputDevice {
    /// The path it was opened by.
    public let path: String
    /// The non-blocking descriptor, for `PollSet`.
    public let descriptor: FileDescriptor
    /// The device's name (`libevdev_get_name`).
    public let name: String
    private let description: OpaquePointer

    /// Opens `path` read-only, non-blocking, close-on-exec (`open(2)`), and reads its
    /// description (`libevdev_new_from_fd`).
    /// - Throws: `IOError` naming the node and what to do (ENOENT, EACCES, not an evdev node).
    public init(path: String) throws(IOError) {
        self.path = path
        switch Result(catchingErrno: { try FileDescriptor.open(path, .readOnly, options: [.closeOnExec, .nonBlocking]) }) {
        case .success(let file): descriptor = file
        case .failure(let errno): throw Self.error("open", path, errno)
        }
        switch EvdevCalls.new(from: descriptor) {
        case .success(let made): description = made
        case .failure(let errno):
            try? descriptor.close()
            throw Self.error("libevdev_new_from_fd", path, errno)
        }
        name = system_evdev_get_name(description).map { String(cString: $0) } ?? ""
    }

    deinit {
        system_evdev_free(description)
        try? descriptor.close()
    }

    /// Whether the device has `key` (`libevdev_has_event_code` for EV_KEY).
    public func has(_ key: KeyCode) -> Bool {
        system_evdev_has_event_code(description, UInt32(EV_KEY), UInt32(key.rawValue)) == 1
    }

    /// The events waiting, oldest first, until none is left (`libevdev_next_event` until EAGAIN);
    /// after a SYN_DROPPED (the reader fell behind) the resync's events are left out.
    /// - Throws: `IOError`, `code` `.disconnected` when the device went away (ENODEV).
    public func readEvents() throws(IOError) -> [InputEvent] {
        var events: [InputEvent] = []
        while true {
            switch EvdevCalls.nextEvent(description) {
            case .success(let event?): events.append(event)
            case .success(nil): return events
            case .failure(let errno): throw Self.error("libevdev_next_event", path, errno)
            }
        }
    }

    /// What `call` failing on `path` with `errno` means, and what to do.
    static func error(_ call: String, _ path: String, _ errno: Errno) -> IOError {
        let what: String
        switch errno {
        case .noSuchFileOrDirectory: what = "no such input device: check trigger.key.device (ls /dev/input/by-id/)"
        case .operationNotSupportedByDevice, .noSuchAddressOrDevice: what = "the input device went away (unplugged)"
        case .permissionDenied, .notPermitted:
            what = "permission denied: run syncscan in the input group (as a service: the keyboard drop-in of docs/service.md, "
                + "DeviceAllow=char-input r and SupplementaryGroups=input)"
        case .inappropriateIOCTLForDevice, .invalidArgument: what = "not an evdev input device (/dev/input/eventN)"
        default: what = "cannot read it"
        }
        return IOError(call: call, message: "\(path): \(what)", errno: errno)
    }
}
