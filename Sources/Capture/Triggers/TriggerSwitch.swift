import Media
import SystemCalls

/// The trigger line of a triggered reader: what every trigger (SIGUSR1, an MQTT command, an HTTP
/// request, a key) presses and releases, from any thread.
///
/// Triggers only record their pulls here, each stamped when it was made on the clock frames are
/// stamped with (`VideoFrame.capturedAt`, CLOCK_MONOTONIC); the pipeline takes them once per
/// frame (`takePulls(capturedAt:)`): a pull belongs to the first frame captured at or after it,
/// never to one captured before it that was still waiting in the driver, the pipe or the
/// pipeline. The pipeline decides what they mean (a read window opens, closes, or a pull is
/// ignored while one is open). Pulls waiting to be taken are bounded: past `capacity` the oldest
/// waiting one is dropped and counted (`dropped`), so a trigger storm costs a fixed amount of
/// memory and never blocks the trigger's thread.
public final class TriggerSwitch: Sendable {
    /// One press or release, with who made it (`sigusr1`, `mqtt`, `http`, `key`, `motion`).
    public struct Pull: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable { case press, release }
        public var kind: Kind
        public var origin: String
        /// When it was made, on CLOCK_MONOTONIC (`MediaTime.monotonicNow`).
        public var at: MediaTime

        public init(kind: Kind, origin: String, at: MediaTime = .monotonicNow()) {
            (self.kind, self.origin, self.at) = (kind, origin, at)
        }
    }

    /// Counts since the switch was made.
    public struct Counts: Sendable, Equatable {
        /// Every press and release recorded.
        public var pulls = 0
        /// Pulls dropped unseen because `capacity` were already waiting.
        public var dropped = 0
        /// Pulls the scan never took because it had stopped (`close()`): made after, or still
        /// waiting then. Every pull is taken, dropped or refused.
        public var refused = 0

        public init(pulls: Int = 0, dropped: Int = 0, refused: Int = 0) { (self.pulls, self.dropped, self.refused) = (pulls, dropped, refused) }
    }

    private struct State {
        var waiting: [Pull] = []
        var counts = Counts()
        var closed = false
    }

    /// Pulls that may wait to be taken.
    public let capacity: Int
    private let state = LockedValue(State())

    public init(capacity: Int = 64) { self.capacity = max(1, capacity) }

    /// Records a press by `origin`, made now or `at` (a read window opens at the first frame
    /// captured then or later).
    public func press(origin: String, at: MediaTime? = nil) { record(.press, origin: origin, at: at) }

    /// Records a release by `origin` (a window open until release closes).
    public func release(origin: String) { record(.release, origin: origin, at: nil) }

    /// The pulls made at or before `capturedAt` (all when `nil`: a source with no capture time),
    /// oldest first; later ones wait for a later frame.
    public func takePulls(capturedAt: MediaTime? = nil) -> [Pull] {
        state.withLock { state in
            guard let capturedAt else {
                defer { state.waiting.removeAll(keepingCapacity: true) }
                return state.waiting
            }
            let taken = state.waiting.filter { $0.at <= capturedAt }
            if !taken.isEmpty { state.waiting.removeAll { $0.at <= capturedAt } }
            return taken
        }
    }

    public var counts: Counts { state.withLock { $0.counts } }

    /// The scan takes no more pulls (the daemon is stopping): those waiting and every later one
    /// are counted `refused`.
    public func close() {
        state.withLock { state in
            state.closed = true
            state.counts.refused += state.waiting.count
            state.waiting.removeAll()
        }
    }

    /// Stamped under the lock unless `at` is given: pulls from any thread wait in the order of their stamps.
    private func record(_ kind: Pull.Kind, origin: String, at: MediaTime?) {
        state.withLock { state in
            let pull = Pull(kind: kind, origin: origin, at: at ?? .monotonicNow())
            state.counts.pulls += 1
            guard !state.closed else {
                state.counts.refused += 1
                return
            }
            if state.waiting.count == capacity {
                state.waiting.removeFirst()
                state.counts.dropped += 1
            }
            state.waiting.append(pull)
        }
    }
}
