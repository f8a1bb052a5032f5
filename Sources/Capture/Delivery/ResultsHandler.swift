import Media

/// Where matched code + frame pairs go: JSON lines on stdout, JPEG snapshots, an MQTT broker —
/// what delivery needs of a results handler, and all the capture pipeline knows of one.
///
/// Calls to `handle` and `frameCompleted` arrive serially, in frame order. `handle` must not
/// block the pipeline for long: a handler that writes somewhere slow buffers with a bound and
/// counts what it drops. What the daemon tells a handler beside its codes (start its threads,
/// its overflow policy, the source streams, a stats interval passed) and the counts it shows are
/// Results' `ServiceHooks` (which also runs the handler as a service of the daemon's group, its
/// threads' one lifecycle) and `CountsReporting`, adopted only by a handler that has a use for
/// them. Every requirement but `handle` has a default that does nothing.
public protocol ResultsHandler: AnyObject, Sendable {
    /// The frame pixels this handler needs with each code; `nil` (the default) needs none. Only
    /// when some handler asks does the session copy a frame's pixels (those with codes) before
    /// giving its buffer back to the source.
    var pixelsRequest: PixelsRequest? { get }
    /// Picks frames whose whole pixels this handler wants whether or not they have codes (a live
    /// view's preview); `nil` (the default) wants none. The session asks it for every scanned
    /// frame and copies the frames it picks through the same pool as `pixelsRequest`.
    var pixelsSampler: (any FramePixelsSampler)? { get }
    /// How many frame pixel copies this handler may hold at once (queued for its thread, being
    /// worked on); the session's pool of copies makes room for them. 0 (the default) holds none
    /// past `handle`.
    var pixelCopiesHeld: Int { get }
    /// One emitted code and the frame it was seen in (`code.frame`, `code.pixels` when asked for
    /// and copied); a handler may attach line fields for the handlers after it.
    func handle(_ code: inout DeliveredCode) throws
    /// An item left the view (its code unseen past the grace, or the source ended): after the
    /// `handle` of its first reading, before `frameCompleted` of the frame that removed it.
    func itemRemoved(_ item: RemovedItem) throws
    /// An item was read again at a new place (at most `ItemTracker.Settings.updateInterval` apart).
    func itemUpdated(_ update: ItemUpdate) throws
    /// A read window closed (`trigger.mode: triggered`): after the codes of its frames, before
    /// `frameCompleted` of the frame that closed it and before the removals of its items; a
    /// handler may attach the diagnosis JPEG (`snapshot`, `jpeg`) for the handlers after it.
    func readResult(_ result: inout ReadResult) throws
    /// The collection of one frame has been delivered (after `handle` for each code it kept).
    /// Handlers that audit every frame implement it; the default does nothing.
    func frameCompleted(_ collection: SynchronizedDataCollection) throws
}

extension ResultsHandler {
    public var pixelsRequest: PixelsRequest? { nil }
    public var pixelsSampler: (any FramePixelsSampler)? { nil }
    public var pixelCopiesHeld: Int { 0 }
    public func frameCompleted(_ collection: SynchronizedDataCollection) throws {}
    public func itemRemoved(_ item: RemovedItem) throws {}
    public func itemUpdated(_ update: ItemUpdate) throws {}
    public func readResult(_ result: inout ReadResult) throws {}
}

/// Which part of a frame's pixels a results handler wants with its codes.
public enum PixelsRequest: Sendable, Hashable {
    /// The whole frame.
    case frame
    /// The smallest rectangle holding every code found in the frame, widened by `margin` pixels
    /// on each side (clamped to the frame).
    case codes(margin: Int)

    /// The region to copy from a `width`×`height` frame in which `codes` were found.
    public func region(for codes: [MachineReadableCodeObject], width: Int, height: Int) -> PixelRect {
        guard case .codes(let margin) = self, let first = codes.first else {
            return PixelRect(x: 0, y: 0, width: width, height: height)
        }
        var (x0, y0) = (first.bounds.x, first.bounds.y)
        var (x1, y1) = (x0 + first.bounds.width, y0 + first.bounds.height)
        for code in codes.dropFirst() {
            x0 = min(x0, code.bounds.x); y0 = min(y0, code.bounds.y)
            x1 = max(x1, code.bounds.x + code.bounds.width); y1 = max(y1, code.bounds.y + code.bounds.height)
        }
        return PixelRect(x: x0 - margin, y: y0 - margin, width: x1 - x0 + 2 * margin + 1, height: y1 - y0 + 2 * margin + 1)
            .clamped(width: width, height: height)
    }

    /// The union of two requests: the whole frame if either wants it, else the larger margin.
    public func union(_ other: PixelsRequest) -> PixelsRequest {
        switch (self, other) {
        case (.codes(let a), .codes(let b)): .codes(margin: max(a, b))
        default: .frame
        }
    }
}

/// Decides, frame by frame, whether a results handler wants a frame's whole pixels even without
/// codes: a live view samples a few frames a second while someone watches, none otherwise.
///
/// Asked on a scanning thread once per scanned frame, after the scan, before the frame's buffer
/// goes back to the source; it must answer at once (no I/O, no waiting). A frame it picks is
/// copied whole into the session's `FramePixelPool` (skipped, never waited for, when the pool is
/// full) and reaches the handlers as `SynchronizedVideoData.pixels` in `frameCompleted` (and
/// `DeliveredCode.pixels` for its codes).
public protocol FramePixelsSampler: AnyObject, Sendable {
    func wantsPixels(of frame: FrameInfo) -> Bool
}

/// Several samplers as one: a frame is copied when any of them picks it (each is asked).
public final class FramePixelsSamplers: FramePixelsSampler {
    public let samplers: [any FramePixelsSampler]

    public init(_ samplers: [any FramePixelsSampler]) { self.samplers = samplers }

    public func wantsPixels(of frame: FrameInfo) -> Bool {
        samplers.reduce(false) { picked, sampler in sampler.wantsPixels(of: frame) || picked }
    }
}

/// One code on its way through the results handlers.
public struct DeliveredCode: Sendable {
    public var code: MachineReadableCodeObject
    /// A copy of the frame's pixels (or the part asked for); `nil` when no handler asked, or the
    /// pool of copies was full (then counted by the session).
    public var pixels: FramePixels?
    /// Fields a handler attached for the line of this code, in order (`"snapshot": NAME`).
    public var fields: [(name: String, value: String)] = []
    /// The item this reading began (`ItemTracker`); `nil` when codes are not reported as items.
    public var item: UInt64?
    /// False for an item that left before its payload was confirmed, reported as it left
    /// (`ItemConfirmation.reportsUnconfirmed`): its first reading, with no pixels.
    public var confirmed = true
    /// Whether the code's text matched `match.*` (set by the match handler, first in the chain);
    /// `nil` when no match is configured: the line has no `match` field.
    public var match: Bool?
    /// The tally against `match.list` once this code was counted (set by the match handler, as
    /// `match`); `nil` when no list is configured.
    public var expected: ExpectedCounts?

    public init(code: MachineReadableCodeObject, pixels: FramePixels? = nil) {
        self.code = code
        self.pixels = pixels
    }
}
