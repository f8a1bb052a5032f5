import SystemCalls

/// What the daemon's services tell a results handler beside its codes: the run starts, what a full
/// queue does for this source, the source streams, a stats interval passed.
///
/// A handler with threads of its own adopts it for `start`: `ResultsHandlersService` starts every
/// adopter when it runs and, at the group's shutdown, once the scan has stopped delivering,
/// finishes them (`ResultsHandler.finish`): one lifecycle. A handler without threads or a use for
/// these events does not adopt it; the daemon finds adopters among its handlers by this protocol
/// alone. Every requirement but `start` has a default that does nothing.
public protocol ServiceHooks: AnyObject, Sendable {
    /// The service runs: start the handler's threads (never in `init`). A code handed to it
    /// before waits in its queue.
    func start()
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
