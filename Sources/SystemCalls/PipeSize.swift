import CSystemCalls
import SystemPackage

/// Asks the kernel for `descriptor`'s pipe to hold at least `bytes` (`fcntl(F_SETPIPE_SZ)`):
/// the capacity it set, or the errno (`EPERM` above `/proc/sys/fs/pipe-max-size` for a process
/// without `CAP_SYS_RESOURCE`, `EBADF`/`EINVAL` for a descriptor that is no pipe). EINTR is retried.
///
/// A reader of large records through a pipe (a Y4M frame) does fewer, larger reads when the pipe
/// holds a whole record: a writer that writes one in a single call wakes it once, not once per
/// default 64 KiB.
public func system_setPipeSize(_ descriptor: FileDescriptor, bytes: Int) -> Result<Int, Errno> {
    valueOrErrno { csystemcalls_set_pipe_size(descriptor.rawValue, Int32(clamping: bytes)) }.map(Int.init)
}

/// The largest pipe capacity an unprivileged process may ask for (`/proc/sys/fs/pipe-max-size`,
/// read with `BoundedFileRead`); `nil` when it cannot be read or holds no number.
public func system_pipeMaximumSize() -> Int? {
    guard let bytes = try? BoundedFileRead.bytes(of: "/proc/sys/fs/pipe-max-size", limit: 64) else { return nil }
    return Int(String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self))
}
