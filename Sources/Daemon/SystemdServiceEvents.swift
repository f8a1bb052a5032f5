import Foundation
import SystemCalls

/// Turns the scan service's events into sd_notify messages.
///
/// READY=1 when the source streams (again after a reload), STOPPING=1 once, RELOADING=1 on SIGHUP,
/// STATUS= whenever the scan service reports what it does (until STOPPING=1).
/// Watchdog pings ride on delivered frames, at most every quarter of the timeout, so the pings
/// stop when capture stalls and systemd restarts the service; while a lost camera is waited
/// for (`sourceMissing()`, up to `device.missing_timeout`) they keep going without frames; while
/// a scan is stuck (`scanStuck(true)`) there are none, so systemd restarts the unit.
public final class SystemdServiceEvents: ServiceEvents {
    private let notifier: SystemdNotifier
    private let pingEvery: Duration?
    private let state = LockedValue(State())
    private let now: @Sendable () -> ContinuousClock.Instant

    private struct State {
        var lastPing: ContinuousClock.Instant?
        var stopping = false
        var scanStuck = false
    }

    /// - Parameter now: the clock pings are spaced by (tests give their own).
    public init(notifier: SystemdNotifier, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.notifier = notifier
        self.now = now
        // Twice as often as systemd asks, so one late frame does not miss the deadline.
        self.pingEvery = notifier.watchdogPingInterval.map { $0 / 2 }
    }

    public func streaming() {
        _ = notifier.ready()
        ping(force: true)
    }

    public func frameDelivered() { ping(force: false) }

    public func sourceMissing() { ping(force: false) }

    public func scanStuck(_ stuck: Bool) { state.withLock { $0.scanStuck = stuck } }

    /// With `WatchdogSec=` (`$WATCHDOG_USEC`) systemd restarts the unit once the pings stop.
    public var restartsWhenStuck: Bool { pingEvery != nil }

    /// Under systemd (`$NOTIFY_SOCKET`), which kills a unit whose stop outlasts `TimeoutStopSec=`.
    public var stopsAreTimed: Bool { notifier.isEnabled }

    public func reloading() { _ = notifier.reloading() }

    public func reloaded() { _ = notifier.ready() }

    public func stopping() {
        let first = state.withLock { s in
            defer { s.stopping = true }
            return !s.stopping
        }
        if first { _ = notifier.stopping() }
    }

    public func status(_ text: String) {
        guard !state.withLock({ $0.stopping }) else { return }
        _ = notifier.status(text)
    }

    private func ping(force: Bool) {
        guard let pingEvery else { return }
        let now = self.now()
        let due = state.withLock { s -> Bool in
            guard !s.stopping, !s.scanStuck else { return false }
            if !force, let last = s.lastPing, now - last < pingEvery { return false }
            s.lastPing = now
            return true
        }
        if due { _ = notifier.watchdog() }
    }
}
