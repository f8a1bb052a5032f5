import Media

/// Where matched code + frame pairs go: JSON lines on stdout, JPEG snapshots, a broker in future.
///
/// Calls arrive serially, in frame order. `handle` must not block the pipeline for long: a
/// handler that writes somewhere slow buffers with a bound and counts what it drops.
public protocol ResultsHandler: AnyObject, Sendable {
    /// The frame pixels this handler needs with each code; `nil` (the default) needs none. Only
    /// when some handler asks does the session copy a frame's pixels (those with codes) before
    /// giving its buffer back to the source.
    var pixelsRequest: PixelsRequest? { get }
    /// One emitted code and the frame it was seen in (`code.frame`, `code.pixels` when asked for
    /// and copied); a handler may attach line fields for the handlers after it.
    func handle(_ code: inout DeliveredCode) throws
    /// The collection of one frame has been delivered (after `handle` for each code it kept).
    /// Handlers that audit every frame implement it; the default does nothing.
    func frameCompleted(_ collection: SynchronizedDataCollection) throws
    /// No more codes will come; flush what is buffered.
    func finish() throws
}

extension ResultsHandler {
    public var pixelsRequest: PixelsRequest? { nil }
    public func frameCompleted(_ collection: SynchronizedDataCollection) throws {}
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

/// One code on its way through the results handlers.
public struct DeliveredCode: Sendable {
    public var code: MachineReadableCodeObject
    /// A copy of the frame's pixels (or the part asked for); `nil` when no handler asked, or the
    /// pool of copies was full (then counted by the session).
    public var pixels: FramePixels?
    /// Fields a handler attached for the line of this code, in order (`"snapshot": NAME`).
    public var fields: [(name: String, value: String)] = []

    public init(code: MachineReadableCodeObject, pixels: FramePixels? = nil) {
        self.code = code
        self.pixels = pixels
    }
}
