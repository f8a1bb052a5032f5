import Foundation
import Logging
import Media
import SystemCalls
import TestSupport
import V4L2

extension V4L2CaptureSource.Configuration {
    /// Millisecond backoffs and no stall detection, so fault tests run fast.
    static var fast: Self {
        Self(stallTimeoutFrameIntervals: 0, gracePeriod: .zero,
             reconnectBackoffInitial: .milliseconds(1), reconnectBackoffMaximum: .milliseconds(4), busyRetryLimit: 2)
    }
}

/// Reads `count` events; their frames (and buffers) are held until the array is released.
func readEvents(_ source: V4L2CaptureSource, count: Int) throws -> [SourceEvent] {
    var events: [SourceEvent] = []
    while events.count < count, let event = try source.next() { events.append(event) }
    return events
}

extension SourceEvent {
    var frame: VideoFrame? {
        if case .frame(let frame) = self { return frame }
        return nil
    }

    var dropDetail: String? {
        if case .dropped(_, _, _, let detail) = self { return detail }
        return nil
    }

    var sequenceNumber: UInt64 {
        switch self {
        case .frame(let frame): frame.sequenceNumber
        case .dropped(let sequence, _, _, _): sequence
        }
    }
}

/// Runs `body` on its own thread (as the session's source thread); `wait` joins it.
final class SourceThread: @unchecked Sendable {
    private let state = LockedValue<(done: Bool, result: Result<[SourceEvent], any Error>?)>((false, nil))

    init(_ body: @escaping @Sendable () throws -> [SourceEvent]) {
        let thread = Thread { [self] in
            // Stored without a local copy, so the thread holds no frame once it signals.
            state.withLock { $0 = (true, Result { try body() }) }
            state.broadcast()
        }
        thread.start()
    }

    /// The thread's result, handed over (the thread keeps no frame), or `nil` if it has not
    /// finished within `timeout` (a hang guard, not a speed check).
    func wait(timeout: TimeInterval = hangTimeout.seconds) -> Result<[SourceEvent], any Error>? {
        requireOffThePool()
        return state.withLock(when: { $0.done }, deadline: .now + .milliseconds(Int(timeout * 1000))) { state, done in
            defer { state.result = nil }
            return done ? state.result : nil
        }
    }
}
