/// Why a frame left the pipeline without being scanned (AVFoundation's `AVCaptureOutput.DataDroppedReason`).
public enum DroppedReason: String, Sendable, Hashable, CaseIterable {
    /// It arrived while the scanner was busy and `alwaysDiscardsLateVideoFrames` was on.
    case lateData
    /// No buffer was free for it: the bounded queue was full, or the driver had none.
    case outOfBuffers
    /// It never arrived intact: a gap in sequence numbers, or a buffer the driver flagged
    /// as corrupt or empty.
    case discontinuity
    /// It arrived but its data could not be turned into pixels: a compressed frame (MJPEG) that is
    /// empty, truncated, damaged or not a JPEG, or one libv4l2 failed to convert.
    case undecodable
    /// It arrived and was left unscanned on purpose: `trigger.mode: presentation` saw nothing
    /// change since the last frame scanned (the codes there are taken as still there).
    case idle
    /// It arrived and was left unscanned on purpose: `trigger.mode: triggered` had no read window
    /// open (no trigger pressed, or the window already closed).
    case untriggered
}

/// What a source hands the pipeline: a frame to consider, or notice of one it lost itself.
public enum SourceEvent: Sendable {
    case frame(VideoFrame)
    /// A frame the source saw but could not deliver (error-flagged, empty or unconvertible buffer).
    case dropped(sequenceNumber: UInt64, presentationTime: MediaTime?, reason: DroppedReason, detail: String)
}

/// A producer of frames, read on a dedicated thread (never the concurrency pool).
///
/// `next()` blocks until a frame is available and returns `nil` at the end of the stream.
/// `stop()` may be called from any thread and makes a blocked `next()` return `nil` soon.
public protocol FrameSource: AnyObject, Sendable {
    /// The source as the user named it, e.g. `y4m:/tmp/a.y4m` or `v4l2:/dev/video0`.
    var uri: String { get }
    /// Whether frames arrive in real time (camera, pipe): then late frames are dropped by default.
    var isLive: Bool { get }
    /// Opens the source; after it returns the source is streaming.
    func start() throws
    /// The next event; `nil` at the end of the stream or after `stop()`.
    func next() throws -> SourceEvent?
    /// Ends streaming and releases kernel resources; safe to call more than once, from any thread.
    func stop()
    /// What the source says of itself now: its kind, label, mode, controls and health. Any thread.
    var report: SourceReport { get }
}
