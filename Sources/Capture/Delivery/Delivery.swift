import Media
import SystemCalls

/// The last stage of a frame's path: duplicate suppression, then the results handler, then
/// "frame delivered" (the watchdog's ping), in that order, for each synchronized collection.
///
/// The synchronizer calls `deliver` from one thread at a time (outside its lock), in frame
/// order. `setWindow` may come from any thread (a reload).
public final class Delivery: @unchecked Sendable {
    private let handler: any ResultsHandler
    private let frameDelivered: @Sendable () -> Void
    private let state: LockedValue<(suppressor: DuplicateSuppressor, emitted: Int)>

    /// - Parameters:
    ///   - window: a code seen again within this much frame time is not delivered again.
    ///   - frameDelivered: called after each frame went through the handler (a supervisor's liveness ping).
    public init(handler: any ResultsHandler, window: MediaTime, frameDelivered: @escaping @Sendable () -> Void = {}) {
        self.handler = handler
        self.frameDelivered = frameDelivered
        self.state = LockedValue((DuplicateSuppressor(window: window), 0))
    }

    /// Codes handed to the handler so far (after duplicate suppression).
    public var emitted: Int { state.withLock { $0.emitted } }

    public func setWindow(_ window: MediaTime) { state.withLock { $0.suppressor.window = window } }

    public func deliver(_ collection: SynchronizedDataCollection) throws {
        if let metadata = collection.metadata {
            let fresh = state.withLock { $0.suppressor.filter(metadata.metadataObjects, at: metadata.presentationTime) }
            for code in fresh {
                var delivered = DeliveredCode(code: code, pixels: collection.video.pixels)
                try handler.handle(&delivered)
                state.withLock { $0.emitted += 1 }
            }
        }
        try handler.frameCompleted(collection)
        frameDelivered()
    }
}
