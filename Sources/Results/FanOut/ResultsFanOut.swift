import Capture

/// Several results handlers as one: each code goes to each, in order (a handler sees the fields
/// the ones before it attached: snapshots before JSON lines, so a line names its snapshot).
///
/// Each handler keeps its own bound and counters (its own queue and thread), so a slow one
/// holds up another only where its policy says so: a file source's queues wait, a live
/// source's drop and count. It forwards delivery alone: the daemon runs, tells and counts
/// each handler itself (`ServiceHooks`, `CountsReporting`).
public final class ResultsFanOut: ResultsHandler, Sendable {
    public let handlers: [any ResultsHandler]

    public init(_ handlers: [any ResultsHandler]) { self.handlers = handlers }

    /// What any handler asks for: the whole frame if one wants it, else the widest margin.
    public var pixelsRequest: PixelsRequest? {
        handlers.compactMap(\.pixelsRequest).reduce(nil as PixelsRequest?) { sofar, next in sofar?.union(next) ?? next }
    }

    /// Every handler's sampler as one (`nil` when none has one).
    public var pixelsSampler: (any FramePixelsSampler)? {
        let samplers = handlers.compactMap(\.pixelsSampler)
        return samplers.count > 1 ? FramePixelsSamplers(samplers) : samplers.first
    }

    /// The copies every handler may hold, together.
    public var pixelCopiesHeld: Int { handlers.map(\.pixelCopiesHeld).reduce(0, +) }

    public func handle(_ code: inout DeliveredCode) throws {
        for handler in handlers { try handler.handle(&code) }
    }

    public func frameCompleted(_ collection: SynchronizedDataCollection) throws {
        for handler in handlers { try handler.frameCompleted(collection) }
    }

    public func itemRemoved(_ item: RemovedItem) throws {
        for handler in handlers { try handler.itemRemoved(item) }
    }

    public func itemUpdated(_ update: ItemUpdate) throws {
        for handler in handlers { try handler.itemUpdated(update) }
    }

    public func readResult(_ result: inout ReadResult) throws {
        for handler in handlers { try handler.readResult(&result) }
    }
}
