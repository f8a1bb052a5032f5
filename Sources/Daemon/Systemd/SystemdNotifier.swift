#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import Media
import SystemCalls
import SystemPackage

/// Tells systemd how the service is doing, over `$NOTIFY_SOCKET` (the `sd_notify` protocol).
///
/// Each call sends one datagram of newline-separated `KEY=value` lines to the socket systemd
/// gave in `$NOTIFY_SOCKET` (a path, or `@name` for an abstract socket), without libsystemd.
/// Without a socket (not started by systemd, `Type=simple`) every call does nothing. A socket
/// that is gone, refuses or is full never stops the service: the first failure is logged at
/// debug level, later ones are not, and the call returns `false`.
///
/// Thread-safe, and never blocks (`MSG_DONTWAIT`), so the capture thread may call it. The
/// datagram socket is opened on first use and closed in `deinit`.
public final class SystemdNotifier: Sendable {
    /// Where notifications go; `nil` when `$NOTIFY_SOCKET` is unset or unusable.
    public let address: NotifySocketAddress?
    /// The watchdog timeout systemd enforces (`$WATCHDOG_USEC`, when `$WATCHDOG_PID` is unset or
    /// this process); `nil` when the unit has no `WatchdogSec=`. Send `watchdog()` at least
    /// every half of it (`watchdogPingInterval`).
    public let watchdogTimeout: Duration?
    private let logger: Logger
    private let state = LockedValue(State())

    private struct State {
        var socket: FileDescriptor?
        var failureLogged = false
    }

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    ///
    /// - Parameters:
    ///   - environment: The process environment, e.g. `ProcessInfo.processInfo.environment`.
    ///   - processID: This process's id, compared with `WATCHDOG_PID` (defaults to `getpid()`).
    public init(environment: [String: String], processID: Int32 = getpid(), logger: Logger) {
        self.logger = logger
        let socketValue = environment["NOTIFY_SOCKET"] ?? ""
        self.address = NotifySocketAddress(socketValue)
        if address == nil, !socketValue.isEmpty {
            logger.debug("NOTIFY_SOCKET is not a path or @abstract name syncscan can use; systemd notifications are off",
                         metadata: ["NOTIFY_SOCKET": "\(LogText.untrusted(socketValue))"])
        }
        self.watchdogTimeout = Self.watchdogTimeout(environment: environment, processID: processID)
    }

    deinit {
        // `close(2)` is not retried: on Linux the descriptor is gone even when it reports EINTR.
        try? state.withLock { $0.socket }?.close()
    }

    /// Whether systemd listens for notifications.
    public var isEnabled: Bool { address != nil }

    /// How often to call `watchdog()`: half the timeout, as systemd recommends.
    public var watchdogPingInterval: Duration? { watchdogTimeout.map { $0 / 2 } }

    /// Startup is complete (`READY=1`); also sent after a reload has finished.
    @discardableResult
    public func ready(status text: String? = nil) -> Bool {
        send(["READY=1"] + (text.map { ["STATUS=" + Self.oneLine($0)] } ?? []))
    }

    /// The service is alive (`WATCHDOG=1`); systemd restarts it if these stop for `watchdogTimeout`.
    @discardableResult
    public func watchdog() -> Bool { send(["WATCHDOG=1"]) }

    /// Shutdown has begun (`STOPPING=1`).
    @discardableResult
    public func stopping() -> Bool { send(["STOPPING=1"]) }

    /// A reload has begun (`RELOADING=1` with `MONOTONIC_USEC=`, as `Type=notify-reload` requires);
    /// call `ready()` when it is done.
    @discardableResult
    public func reloading() -> Bool {
        send(["RELOADING=1", "MONOTONIC_USEC=\(MediaTime.monotonicNow().nanoseconds / 1_000)"])
    }

    /// A one-line status shown by `systemctl status` (`STATUS=`); newlines become spaces.
    @discardableResult
    public func status(_ text: String) -> Bool { send(["STATUS=" + Self.oneLine(text)]) }

    /// Sends `assignments` (`KEY=value`, no newlines in them) as one datagram.
    @discardableResult
    public func send(_ assignments: [String]) -> Bool {
        guard let address else { return false }
        let message = Array(assignments.joined(separator: "\n").utf8)
        let result: Result<Int, Errno> = state.withLock { state in
            let socket: FileDescriptor
            if let open = state.socket {
                socket = open
            } else {
                switch system_unixDatagramSocket() {
                case .success(let opened): socket = opened
                case .failure(let error): return .failure(error)
                }
                state.socket = socket
            }
            return system_sendDatagram(socket, message, to: address)
        }
        switch result {
        case .success:
            return true
        case .failure(let error):
            let firstFailure = state.withLock { state in
                defer { state.failureLogged = true }
                return !state.failureLogged
            }
            if firstFailure {
                logger.debug("cannot notify systemd; continuing without it (further failures are not logged)",
                             metadata: ["socket": "\(LogText.untrusted(address))", "call": "sendto", "errno": "\(error.rawValue) (\(error))",
                                        "message": "\(LogText.untrusted(assignments.joined(separator: " "), limit: LogText.errorLimit))"])
            }
            return false
        }
    }

    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    private static func watchdogTimeout(environment: [String: String], processID: Int32) -> Duration? {
        guard let usecText = environment["WATCHDOG_USEC"], let usec = UInt64(usecText), usec > 0,
              usec <= UInt64(Int64.max) else { return nil }
        if let pidText = environment["WATCHDOG_PID"] {
            // The watchdog is meant for another process (e.g. a wrapper that exec'd us with a
            // different pid): leave it alone, like sd_watchdog_enabled().
            guard let pid = Int32(pidText), pid == processID else { return nil }
        }
        return .microseconds(Int64(usec))
    }
}
