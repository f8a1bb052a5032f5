import Capture
import SystemCalls

/// What was read against `match.list`'s entries and quantities (`ExpectedCounts`): per read window
/// in `trigger.mode: triggered`, per run in the other modes until `reset()`.
///
/// One tally is shared by the match handler, which counts each code into it (`count`) and closes
/// each read window (`closeWindow`), and whatever may start it over (the TCP server's
/// `RESET EXPECTED`, the live view's `POST /expected/reset`). Each count updates the four totals at
/// once, so a code costs the same with a list of ten entries or a million. Behind one lock that
/// never calls out.
public final class ExpectedTally: Sendable {
    private struct State {
        var list: ExpectedList?
        var seen: [Int] = []
        var counts = ExpectedCounts()
        /// Per window: the last closed window's tally (before the first: an empty one).
        var lastWindow: ExpectedCounts?
        var resets = 0

        /// `counts` with `entries` when the list is short enough to list.
        func snapshot() -> ExpectedCounts? {
            guard let list else { return nil }
            var snapshot = counts
            if list.count <= ExpectedCounts.listedEntriesLimit {
                snapshot.entries = list.entries.indices.map { ExpectedCounts.Entry(entry: list.entries[$0].name, quantity: list.entries[$0].quantity, seen: seen[$0]) }
            }
            return snapshot
        }

        /// Nothing seen yet: every entry missing.
        mutating func startOver() {
            seen = [Int](repeating: 0, count: list?.count ?? 0)
            counts = ExpectedCounts(missing: list?.count ?? 0)
        }
    }

    /// Whether the tally is per read window (`trigger.mode: triggered` at start).
    public let perWindow: Bool
    private let state = LockedValue(State())

    public init(perWindow: Bool = false) { self.perWindow = perWindow }

    /// Counts against `list` from now on (`nil`: no list, nothing counted). A list other than the
    /// one in use starts the tally over; the same list (a reload that changed nothing) keeps it.
    public func apply(_ list: ExpectedList?) {
        state.withLock { state in
            guard state.list != list else { return }
            state.list = list
            state.startOver()
            state.lastWindow = state.snapshot()
        }
    }

    /// Counts one code (an item, or a code when codes are not items) against entry `index`
    /// (`nil`: on no entry, `wrong`); the tally after it, `nil` with no list.
    public func count(_ index: Int?) -> ExpectedCounts? {
        state.withLock { state in
            guard let list = state.list else { return nil }
            guard let index, state.seen.indices.contains(index) else {
                state.counts.wrong += 1
                return state.snapshot()
            }
            let quantity = list.entries[index].quantity
            Self.move(&state.counts, seen: state.seen[index], quantity: quantity, by: -1)
            state.seen[index] += 1
            Self.move(&state.counts, seen: state.seen[index], quantity: quantity, by: 1)
            return state.snapshot()
        }
    }

    private static func move(_ counts: inout ExpectedCounts, seen: Int, quantity: Int, by delta: Int) {
        if seen < quantity { counts.missing += delta } else if seen == quantity { counts.correct += delta } else { counts.extra += delta }
    }

    /// A read window closed: its tally (kept as `current`), and the next window's starts empty.
    public func closeWindow() -> ExpectedCounts? {
        state.withLock { state in
            guard state.list != nil else { return nil }
            let window = state.snapshot()
            state.lastWindow = window
            state.startOver()
            return window
        }
    }

    /// Starts the tally over (the run's, or the open window's), as if nothing had been read;
    /// false with no list.
    @discardableResult
    public func reset() -> Bool {
        state.withLock { state in
            guard state.list != nil else { return false }
            state.startOver()
            state.resets += 1
            if !perWindow { state.lastWindow = state.snapshot() }
            return true
        }
    }

    /// What a host is shown now: the last closed window's tally (per window), else the run's;
    /// `nil` with no list.
    public var current: ExpectedCounts? {
        state.withLock { state in perWindow ? state.lastWindow : state.snapshot() }
    }

    /// `current` without its entries: the four counts only.
    public var totals: ExpectedCounts? {
        state.withLock { state in
            guard state.list != nil else { return nil }
            var totals = perWindow ? state.lastWindow ?? ExpectedCounts() : state.counts
            totals.entries = nil
            return totals
        }
    }

    /// Resets made (`reset()` with a list).
    public var resets: Int { state.withLock { $0.resets } }
}
