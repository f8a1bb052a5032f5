import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `poll(2)` waits for on one descriptor (its `events`) or reported for it (its `revents`).
public struct PollEvents: OptionSet, Sendable, Hashable {
    public var rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// POLLIN: there is data to read (or, on a pipe whose writer closed, the end of it).
    public static let input = PollEvents(rawValue: Int16(POLLIN))
    /// POLLOUT: writing will not block (a socket's send buffer has room, a connect finished).
    public static let output = PollEvents(rawValue: Int16(POLLOUT))
    /// POLLHUP: the other end hung up (a pipe's writer closed, a device went away).
    public static let hangUp = PollEvents(rawValue: Int16(POLLHUP))
    /// POLLERR: an error condition (an unplugged camera, a device that is not streaming).
    public static let error = PollEvents(rawValue: Int16(POLLERR))
    /// POLLNVAL: the descriptor is not open.
    public static let invalid = PollEvents(rawValue: Int16(POLLNVAL))
}

/// Descriptors waited on together with `poll(2)`, which swift-system does not wrap.
///
/// Owns its `pollfd` array: allocated once in `init`, freed in `deinit`, so a wait allocates
/// nothing. The descriptors stay owned by the caller. Used by one thread at a time.
public final class PollSet {
    private let entries: UnsafeMutableBufferPointer<pollfd>

    /// Waits for POLLIN on each of `descriptors`, in this order.
    public init(_ descriptors: [FileDescriptor]) {
        entries = .allocate(capacity: descriptors.count)
        for (index, descriptor) in descriptors.enumerated() {
            entries.initializeElement(at: index, to: pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0))
        }
    }

    /// `count` entries, each left out until `watch` sets it.
    public init(count: Int) {
        entries = .allocate(capacity: count)
        entries.initialize(repeating: pollfd(fd: -1, events: 0, revents: 0))
    }

    deinit { entries.deallocate() }

    /// Waits for `events` on `descriptor` at `index` from the next `wait` on; `nil` leaves the
    /// entry out (`poll` skips a negative descriptor).
    public func watch(_ descriptor: FileDescriptor?, for events: PollEvents, at index: Int) {
        entries[index] = pollfd(fd: descriptor?.rawValue ?? -1, events: events.rawValue, revents: 0)
    }

    /// `poll(2)` until a descriptor is ready, hangs up or fails, or `timeout` passes (`nil`:
    /// no limit). EINTR is retried. `false` when the timeout passed with nothing to report.
    public func wait(timeout: Duration? = nil) -> Result<Bool, Errno> {
        let milliseconds = timeout.map(\.pollMilliseconds) ?? -1
        for index in entries.indices { entries[index].revents = 0 }
        return valueOrErrno { system_poll(entries.baseAddress!, entries.count, milliseconds) }.map { $0 > 0 }
    }

    /// What the last `wait` reported for the descriptor at `index` (empty: nothing).
    public func events(at index: Int) -> PollEvents {
        PollEvents(rawValue: entries[index].revents)
    }
}

/// `poll(fds, count, timeout)`.
func system_poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeout: CInt) -> CInt {
    poll(fds, nfds_t(count), timeout)
}

extension Duration {
    /// Whole milliseconds, rounded up, clamped to what `poll` takes (negative → 0).
    public var pollMilliseconds: CInt {
        let (seconds, attoseconds) = components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return CInt(clamping: ms)
    }
}
