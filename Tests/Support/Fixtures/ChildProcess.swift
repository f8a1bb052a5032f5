import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program started with `posix_spawnp` and an empty signal mask, for servers and clients that a
/// test stops with a signal (mosquitto, mosquitto_sub).
///
/// Swift Testing runs tests on threads that block most signals, and Foundation's `Process` passes
/// that mask on: a child that does not unblock SIGTERM itself never sees `terminate()`, and
/// waiting for it hangs. Here `POSIX_SPAWN_SETSIGMASK` clears the mask and `POSIX_SPAWN_SETSIGDEF`
/// resets SIGTERM, SIGINT and SIGHUP to their defaults. stdin is `/dev/null`; stdout and stderr
/// go to the files given (or `/dev/null`); no other descriptor is inherited. Killed with SIGKILL and reaped when released, if still running.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `arguments[0]` (looked up on `PATH`) with `arguments`.
    public init(_ arguments: [String], stdout: String = "/dev/null", stderr: String = "/dev/null") throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        // Nothing else: an inherited pipe end (a test's stdin pipe to syncscan) would keep the pipe open.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for fd in open where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let rc = posix_spawnp(&child, arguments[0], &actions, &attributes, &argv, environ)
        guard rc == 0 else {
            throw FixtureError.toolFailed("cannot start `\(arguments.joined(separator: " "))`: \(String(cString: strerror(rc)))")
        }
        pid = child
    }

    deinit {
        if isRunning { kill(pid, SIGKILL) }
        _ = wait()
    }

    /// Whether the program has not exited yet (`waitpid` with `WNOHANG`).
    public var isRunning: Bool {
        lock.withLock {
            guard status == nil else { return false }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            return status == nil
        }
    }

    /// Sends `signal` unless the program has exited.
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits for the program to exit; its raw `waitpid` status.
    @discardableResult
    public func wait() -> Int32 {
        lock.withLock {
            if let status { return status }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            status = raw
            return raw
        }
    }

    /// The exit code, or nil when a signal ended the program (after `wait`).
    public var exitCode: Int32? {
        let raw = wait()
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : nil
    }
}
