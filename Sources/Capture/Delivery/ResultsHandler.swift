import Media

/// Where matched code + frame pairs go: JSON lines on stdout by default, a snapshot store or a
/// broker in future.
///
/// Calls arrive serially, in frame order. `handle` must not block the pipeline for long: a
/// handler that writes somewhere slow buffers with a bound and counts what it drops.
public protocol ResultsHandler: AnyObject, Sendable {
    /// One code and the frame it was seen in (`code.frame`).
    func handle(_ code: MachineReadableCodeObject) throws
    /// The collection of one frame has been delivered (after `handle` for each code it kept).
    /// Handlers that audit every frame implement it; the default does nothing.
    func frameCompleted(_ collection: SynchronizedDataCollection) throws
    /// No more codes will come; flush what is buffered.
    func finish() throws
}

extension ResultsHandler {
    public func frameCompleted(_ collection: SynchronizedDataCollection) throws {}
}
