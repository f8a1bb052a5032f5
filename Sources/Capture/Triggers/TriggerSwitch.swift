import SystemCalls

/// The trigger line of a triggered reader: what every trigger (SIGUSR1, an MQTT command, an HTTP
/// request, a key) presses and releases, from any thread.
///
/// Triggers only record their pulls here; the pipeline takes them once per frame
/// (`takePulls()`) and decides what they mean (a read window opens, closes, or a pull is ignored
/// while one is open). Pulls waiting to be taken are bounded: past `capacity` the oldest waiting
/// one is dropped and counted (`dropped`), so a trigger storm costs a fixed amount of memory and
/// never blocks the trigger's thread.
public final class TriggerSwitch: Sendable {
    /// One press or release, with who made it (`sigusr1`, `mqtt`, `http`, `key`, `motion`).
    public struct Pull: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable { case press, release }
        public var kind: Kind
        public var origin: String
        public var at: ContinuousClock.Instant

        public init(kind: Kind, origin: String, at: ContinuousClock.Instant = .now) {
            (self.kind, self.origin, self.at) = (kind, origin, at)
        }
    }

    /// Counts since the switch was made.
    public struct Counts: Sendable, Equatable {
        /// Every press and release recorded.
        public var pulls = 0
        /// Pulls dropped unseen because `capacity` were already waiting.
        public var dropped = 0

        public init(pulls: Int = 0, dropped: Int = 0) { (self.pulls, self.dropped) = (pulls, dropped) }
    }

    private struct State {
        var waiting: [Pull] = []
        var counts = Counts()
    }

    /// Pulls that may wait to be taken.
    public let capacity: Int
    private let state = LockedValue(State())

    public init(capacity: Int = 64) { self.capacity = max(1, capacity) }

    /// Records a press by `origin` (a read window opens at the next frame).
    public func press(origin: String) { record(Pull(kind: .press, origin: origin)) }

    /// Records a release by `origin` (a window open until release closes).
    public func release(origin: String) { record(Pull(kind: .release, origin: origin)) }

    /// The pulls recorded since the last call, oldest first.
    public func takePulls() -> [Pull] {
        state.withLock { state in
            defer { state.waiting.removeAll(keepingCapacity: true) }
            return state.waiting
        }
    }

    public var counts: Counts { state.withLock { $0.counts } }

    private func record(_ pull: Pull) {
        state.withLock { state in
            state.counts.pulls += 1
            if state.waiting.count == capacity {
                state.waiting.removeFirst()
                state.counts.dropped += 1
            }
            state.waiting.append(pull)
        }
    }
}
