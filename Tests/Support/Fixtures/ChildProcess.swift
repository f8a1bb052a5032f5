import Foundation
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module
/// does not export; looked up once with `dlsym`.
private let spawnCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()

/// A program started with `posix_spawnp` and an empty signal mask, waited for with `waitpid`:
/// every child process of the tests (tools, the daemon under test, brokers).
///
/// Not Foundation's `Process`: its exit monitoring (a SIGCHLD source on a dispatch queue) lost
/// exits when dozens of tests spawned children at once, leaving `waitUntilExit` waiting on a
/// zombie for good. Here each child is reaped by `waitpid` on its own pid.
///
/// Swift Testing runs tests on threads that block most signals, and a spawned child inherits
/// the mask: a child that does not unblock SIGTERM itself would never see it. Here
/// `POSIX_SPAWN_SETSIGMASK` clears the mask and `POSIX_SPAWN_SETSIGDEF` resets SIGTERM, SIGINT,
/// SIGHUP and SIGPIPE to their defaults. Descriptors 0, 1 and 2 come from `stdin`, `stdout`
/// and `stderr`; no other open descriptor is inherited, so a test's
/// pipe end is never kept open by a child. Killed with SIGKILL and reaped when released, if
/// still running.
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard descriptors comes from.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A file: read for stdin; for stdout and stderr created if missing and appended to.
        case file(String)
        /// A descriptor of the test's, duplicated into the child (the test still owns it).
        case descriptor(Int32)
    }

    public let pid: pid_t
    private let status = LockedValue<Int32?>(nil)

    /// Starts `arguments[0]` (looked up on `PATH`) with `arguments`; `environment` is added to
    /// the test process's own; `directory`: the child's working directory (through `env -C`).
    public init(_ arguments: [String], stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null,
                environment: [String: String] = [:], directory: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream, flags) in [(Int32(0), stdin, O_RDONLY), (1, stdout, O_WRONLY | O_CREAT | O_APPEND),
                                         (2, stderr, O_WRONLY | O_CREAT | O_APPEND)] {
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o644)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }
        // Nothing else: an inherited pipe end (a test's stdin pipe to syncscan) would keep the pipe
        // open, and a test reading it to its end would wait for good. Every descriptor from 3 up is
        // closed in the child itself, so one that another test opens while this one spawns is
        // closed too; a list read from /proc/self/fd beforehand would miss it.
        guard let addCloseFrom = spawnCloseFrom else {
            throw FixtureError.toolFailed("glibc has no posix_spawn_file_actions_addclosefrom_np (2.34 or later needed)")
        }
        addCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = directory.map { ["env", "-C", $0] + arguments } ?? arguments
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        var envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var child: pid_t = 0
        let rc = posix_spawnp(&child, arguments[0], &actions, &attributes, &argv, &envp)
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
        status.withLock { status in
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
        status.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            status = raw
            return raw
        }
    }

    /// Waits at most `timeout` for the program to exit (polling `waitpid` every 10 ms); past it
    /// the program is killed (SIGKILL) and `nil` returned.
    public func wait(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if isRunning {
            kill(pid, SIGKILL)
            wait()
            return nil
        }
        return wait()
    }

    /// The exit code, or nil when a signal ended the program (after `wait`).
    public var exitCode: Int32? {
        let raw = wait()
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : nil
    }

    /// The exit code of a raw `waitpid` status, or 128 + the signal that ended the program (as a shell reports it).
    public static func exitStatus(_ raw: Int32) -> Int32 {
        raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
    }
}
