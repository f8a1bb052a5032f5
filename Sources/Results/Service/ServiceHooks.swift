import SystemCalls

/// What a results handler with threads of its own takes from the daemon beside its codes: its
/// threads' lifecycle (`start`, `finish`), what a full queue does for this source, the source
/// streams, a stats interval passed.
///
/// The daemon runs each adopter as a service of its group (`ResultsHandlerService`): `start` when
/// the group runs, `finish` when the group shuts that service down, which it does once the scan has
/// returned and every code has been handed over. A handler without threads or a use for these
/// events does not adopt it; the daemon finds adopters among its handlers by this protocol alone.
/// `setOverflowPolicy`, `sourceStreaming` and `statsUpdated` have defaults that do nothing.
public protocol ServiceHooks: AnyObject, Sendable {
    /// The service runs: start the handler's threads (never in `init`). A code handed to it
    /// before waits in its queue.
    func start()
    /// No more codes will come: flush what is buffered and stop the handler's threads. It may
    /// block (a slow disk, a broker's last acknowledgements): the service calls it on a thread of
    /// its own, never on the concurrency pool.
    func finish() throws
    /// What a full queue does from now on: `.wait` for a file source, `.drop` for a live one (set
    /// before each session).
    func setOverflowPolicy(_ policy: OverflowPolicy)
    /// The source is open and streaming (again, after a reopen).
    func sourceStreaming()
    /// A stats interval passed: `json` is the service's counters as one JSON object.
    func statsUpdated(_ json: [UInt8])
}

extension ServiceHooks {
    public func setOverflowPolicy(_ policy: OverflowPolicy) {}
    public func sourceStreaming() {}
    public func statsUpdated(_ json: [UInt8]) {}
}
