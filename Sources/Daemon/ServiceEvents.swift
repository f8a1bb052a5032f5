/// What the scan service tells its supervisor (systemd's sd_notify, or nothing).
public protocol ServiceEvents: Sendable {
    /// The source is open and streaming (READY=1).
    func streaming()
    /// A frame went through the whole pipeline; drives the watchdog, so a stalled capture stops pinging.
    func frameDelivered()
    /// A configuration reload started (RELOADING=1) / finished (READY=1).
    func reloading()
    func reloaded()
    /// Shutdown has begun (STOPPING=1).
    func stopping()
    /// What the service is doing now, one line (STATUS=), e.g. `scanning v4l2:/dev/video0: frames=1234 codes=5 dropped=2`.
    func status(_ text: String)
    /// The source's device is gone and being waited for: the service is alive though no frames
    /// flow (drives the watchdog then, up to `device.missing_timeout`).
    func sourceMissing()
    /// Whether a scan is stuck now (past `scan_timeout_seconds`): while it is, the watchdog pings stop.
    func scanStuck(_ stuck: Bool)
    /// Whether the supervisor restarts the service when its liveness pings stop (systemd's
    /// `WatchdogSec=`); without that, a stuck scan ends the run.
    var restartsWhenStuck: Bool { get }
    /// Whether a service manager runs the service and kills it when a stop takes too long
    /// (systemd's `TimeoutStopSec=`): then `shutdown_timeout_seconds` has a default limit.
    var stopsAreTimed: Bool { get }
}

extension ServiceEvents {
    public func status(_ text: String) {}
    public func sourceMissing() {}
    public func scanStuck(_ stuck: Bool) {}
    public var restartsWhenStuck: Bool { false }
    public var stopsAreTimed: Bool { false }
}

/// No supervisor: every event is ignored.
public struct NoServiceEvents: ServiceEvents {
    public init() {}
    public func streaming() {}
    public func frameDelivered() {}
    public func reloading() {}
    public func reloaded() {}
    public func stopping() {}
}
