import Foundation
import Media

/// Delivers frames to the scanners with a bounded number in flight (AVFoundation's
/// `AVCaptureVideoDataOutput`).
///
/// With `alwaysDiscardsLateVideoFrames` a frame that arrives while every scanner is busy is
/// dropped at once (`lateData`) and its buffer goes straight back to the source. Without it,
/// frames wait in a queue of `maximumQueuedFrames`; when that is full a live source's frame is
/// dropped (`outOfBuffers`) and a file source waits, so every frame of a file is scanned.
public struct VideoDataOutput: Sendable, Hashable {
    /// `nil` picks the default for the source: on for live sources (camera, pipe), off for files.
    public var alwaysDiscardsLateVideoFrames: Bool?
    /// Frames that may wait for a scanner when late frames are kept.
    public var maximumQueuedFrames: Int

    public init(alwaysDiscardsLateVideoFrames: Bool? = nil, maximumQueuedFrames: Int = 2) {
        self.alwaysDiscardsLateVideoFrames = alwaysDiscardsLateVideoFrames
        self.maximumQueuedFrames = max(1, maximumQueuedFrames)
    }

    /// The policy in force for `source`.
    public func discardsLateFrames(for source: any FrameSource) -> Bool {
        alwaysDiscardsLateVideoFrames ?? source.isLive
    }

    /// Whether a frame waits for room when the queue is full, rather than being dropped: only
    /// when late frames are kept and `source` is not live (a file, read to its end). The one
    /// place this is decided: the capture session waits on it, and the daemon lets output lines
    /// wait for a slow reader only then, so stdout can never hold up a live capture.
    public func framesWait(for source: any FrameSource) -> Bool {
        !discardsLateFrames(for: source) && !source.isLive
    }
}

/// The hand-off between the source thread and the scanning threads: a bounded FIFO that
/// counts frames being scanned as in flight.
final class FrameQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var frames: [VideoFrame] = []
    private var busy = 0
    private var closed = false
    /// Frames queued plus frames being scanned.
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Queues `frame` if there is room; if not, waits for room when `wait` is set, else refuses.
    /// Returns whether the frame was queued.
    func offer(_ frame: VideoFrame, wait: Bool) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while frames.count + busy >= capacity && !closed {
            guard wait else { return false }
            condition.wait()
        }
        guard !closed else { return false }
        frames.append(frame)
        condition.broadcast()
        return true
    }

    /// The next frame to scan; blocks while the queue is empty; `nil` once closed and drained.
    func take() -> VideoFrame? {
        condition.lock(); defer { condition.unlock() }
        while frames.isEmpty && !closed { condition.wait() }
        guard !frames.isEmpty else { return nil }
        busy += 1
        return frames.removeFirst()
    }

    /// A frame taken with `take()` has been scanned and released.
    func done() {
        condition.lock(); defer { condition.unlock() }
        busy -= 1
        condition.broadcast()
    }

    /// No more frames: scanners finish what is queued and stop.
    func close() {
        condition.lock(); defer { condition.unlock() }
        closed = true
        condition.broadcast()
    }
}
