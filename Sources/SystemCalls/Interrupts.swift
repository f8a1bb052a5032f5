import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The result of a system call, or the errno it set when it returned -1.
///
/// The one place in syncscan where EINTR is retried: every module's `system_*` wrappers
/// (V4L2 ioctls, `poll`, the sd_notify socket) go through it; swift-system retries EINTR in its
/// own calls (`FileDescriptor.open`, `read`, `write`).
/// - Parameter retryOnInterrupt: call again while the call fails with EINTR (not for `close`,
///   which on Linux has released the descriptor even then).
public func valueOrErrno<I: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> I) -> Result<I, Errno> {
    while true {
        let value = call()
        if value != -1 { return .success(value) }
        let error = Errno(rawValue: errno)
        if retryOnInterrupt && error == .interrupted { continue }
        return .failure(error)
    }
}

/// The result of a library call that reports failure as a negative errno in its return value
/// (libevdev's), or that errno.
///
/// EINTR (`-EINTR`) is retried here, as `valueOrErrno` retries it for system calls.
public func valueOrNegativeErrno(_ call: () -> CInt) -> Result<CInt, Errno> {
    while true {
        let value = call()
        if value >= 0 { return .success(value) }
        let error = Errno(rawValue: -value)
        if error == .interrupted { continue }
        return .failure(error)
    }
}
