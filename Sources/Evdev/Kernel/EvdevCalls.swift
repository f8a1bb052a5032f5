import CEvdev
import SystemCalls
import SystemPackage

/// The middle layer: each libevdev call as a `Result`, its negative errno an `Errno`
/// (`valueOrNegativeErrno`, which retries EINTR). The typed API (`VirtualKeyboard`,
/// `InputDevice`) names the call and what to do in an `IOError`.
enum EvdevCalls {
    /// `libevdev_new`; ENOMEM when it returns NULL.
    static func new() -> Result<OpaquePointer, Errno> {
        system_evdev_new().map { .success($0) } ?? .failure(.noMemory)
    }

    /// `libevdev_new_from_fd`: the description of the device open on `fd`.
    static func new(from fd: FileDescriptor) -> Result<OpaquePointer, Errno> {
        var dev: OpaquePointer?
        return valueOrNegativeErrno { system_evdev_new_from_fd(fd.rawValue, &dev) }.flatMap { _ in
            dev.map { .success($0) } ?? .failure(.noMemory)
        }
    }

    /// `libevdev_enable_event_type`.
    static func enable(_ dev: OpaquePointer, type: UInt32) -> Result<Void, Errno> {
        // It returns -1, not an errno, for a type it does not know.
        system_evdev_enable_event_type(dev, type) == 0 ? .success(()) : .failure(.invalidArgument)
    }

    /// `libevdev_enable_event_code` (no extra data: keys).
    static func enable(_ dev: OpaquePointer, type: UInt32, code: UInt32) -> Result<Void, Errno> {
        system_evdev_enable_event_code(dev, type, code) == 0 ? .success(()) : .failure(.invalidArgument)
    }

    /// `libevdev_next_event` in normal mode: an event, `nil` when none is waiting (EAGAIN), or
    /// the errno (ENODEV: the device went away). After a SYN_DROPPED the events of the resync
    /// are read and discarded (`libevdev_next_event` with LIBEVDEV_READ_FLAG_SYNC): the reader
    /// lost events, and a key's state is its next event's.
    static func nextEvent(_ dev: OpaquePointer) -> Result<InputEvent?, Errno> {
        var type: UInt32 = 0, code: UInt32 = 0, value: CInt = 0
        switch valueOrNegativeErrno({ system_evdev_next_event(dev, &type, &code, &value) }) {
        case .failure(.resourceTemporarilyUnavailable): return .success(nil)
        case .failure(let errno): return .failure(errno)
        case .success(1):  // LIBEVDEV_READ_STATUS_SYNC
            while case .success(1) = valueOrNegativeErrno({ system_evdev_next_sync_event(dev) }) {}
            return .success(InputEvent(type: UInt16(truncatingIfNeeded: type), code: UInt16(truncatingIfNeeded: code), value: value))
        case .success:
            return .success(InputEvent(type: UInt16(truncatingIfNeeded: type), code: UInt16(truncatingIfNeeded: code), value: value))
        }
    }

    /// `libevdev_uinput_create_from_device` through `fd` (an open /dev/uinput).
    static func createUInput(like dev: OpaquePointer, through fd: FileDescriptor) -> Result<OpaquePointer, Errno> {
        var uinput: OpaquePointer?
        return valueOrNegativeErrno { system_uinput_create(dev, fd.rawValue, &uinput) }.flatMap { _ in
            uinput.map { .success($0) } ?? .failure(.noMemory)
        }
    }

    /// `libevdev_uinput_write_event`.
    static func write(_ uinput: OpaquePointer, type: UInt32, code: UInt32, value: CInt) -> Result<Void, Errno> {
        valueOrNegativeErrno { system_uinput_write_event(uinput, type, code, value) }.map { _ in () }
    }
}

/// One event of an input device: its type (`EV_KEY`), code (`KEY_F12`) and value (a key's 1
/// press, 0 release, 2 autorepeat).
public struct InputEvent: Sendable, Hashable {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(type: UInt16, code: UInt16, value: Int32) { (self.type, self.code, self.value) = (type, code, value) }

    /// A key or button event (`EV_KEY`).
    public var isKey: Bool { type == UInt16(EV_KEY) }
}
