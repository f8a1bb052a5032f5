import Foundation
import Media
import SystemCalls

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
final class FrameQueue: Sendable {
    private struct State {
        var frames: [VideoFrame] = []
        var busy = 0
        var closed = false
    }

    private let state = LockedValue(State())
    /// Frames queued plus frames being scanned.
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Queues `frame` if there is room; if not, waits for room when `wait` is set, else refuses.
    /// Returns whether the frame was queued.
    func offer(_ frame: VideoFrame, wait: Bool) -> Bool {
        let capacity = self.capacity
        let queued = state.withLock(when: { $0.frames.count + $0.busy < capacity || $0.closed || !wait }) { state, _ in
            guard !state.closed, state.frames.count + state.busy < capacity else { return false }
            state.frames.append(frame)
            return true
        }
        if queued { state.broadcast() }
        return queued
    }

    /// The next frame to scan; blocks while the queue is empty; `nil` once closed and drained.
    func take() -> VideoFrame? {
        state.withLock(when: { !$0.frames.isEmpty || $0.closed }) { state, _ in
            guard !state.frames.isEmpty else { return nil }
            state.busy += 1
            return state.frames.removeFirst()
        }
    }

    /// A frame taken with `take()` has been scanned and released.
    func done() {
        state.withLock { $0.busy -= 1 }
        state.broadcast()
    }

    /// No more frames: scanners finish what is queued and stop.
    func close() {
        state.withLock { $0.closed = true }
        state.broadcast()
    }
}
