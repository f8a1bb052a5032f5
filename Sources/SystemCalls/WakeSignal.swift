import CSystemCalls
import SystemPackage

/// The one way to wake a thread blocked in `poll(2)`: an eventfd that the thread's `PollSet`
/// watches beside its real descriptors (a camera, a pipe, a broker's socket).
///
/// `signal()` may come from any thread and never blocks. Used two ways: as a latch (`stop()`
/// of a source: never drained, so every later poll returns at once) or as a doorbell (new work
/// for a worker: the woken thread calls `drain()` before it looks for the work, so the next poll
/// waits again). The descriptor is owned here and closed in `deinit`.
public final class WakeSignal: Sendable {
    /// The eventfd, for `PollSet` (readable while signalled).
    public let descriptor: FileDescriptor

    /// `eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)` through the CSystemCalls shim.
    public init() throws(IOError) {
        switch valueOrErrno({ csystemcalls_eventfd() }) {
        case .success(let fd): descriptor = FileDescriptor(rawValue: fd)
        case .failure(let errno):
            throw IOError(call: "eventfd", message: "cannot create a wake-up descriptor; "
                          + "raise the open files limit (LimitNOFILE= under systemd, ulimit -n otherwise)", errno: errno)
        }
    }

    deinit { try? descriptor.close() }

    /// Makes a poll on the descriptor return, now or at its next call: `write(2)` of an 8-byte
    /// 1 to the counter. A counter at its maximum (EAGAIN) is signalled already.
    public func signal() {
        _ = Result(catchingErrno: { try withUnsafeBytes(of: UInt64(1)) { try descriptor.write($0) } })
    }

    /// Resets the counter so the next poll waits again: `read(2)` of the 8-byte counter; EAGAIN
    /// means nothing was signalled.
    public func drain() {
        var counter: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &counter) { buffer in Result(catchingErrno: { try descriptor.read(into: buffer) }) }
    }
}
