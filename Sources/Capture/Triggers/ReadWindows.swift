import Media
import SystemCalls

/// The read windows of one session in `trigger.mode: triggered`: which frames are in a window,
/// told by the source thread to the scanning threads and to the delivery.
///
/// The source thread calls `admit` once per frame (a dropped one included, not a gap): it takes
/// the trigger's pulls made by the frame's capture time (`TriggerSwitch.takePulls(capturedAt:)`;
/// all of them for a source without one, a file) and says whether the frame is in a window.
/// A press with no window open opens one at this frame; a press while one is open is ignored
/// and counted (`ReadWindowCounts.ignored`); a release closes the window when
/// `trigger.window.until_release` is set (after this frame, so a window holds at least the frame
/// it opened at), and is otherwise ignored, as is a release with no window open. A window closes
/// at the first frame stamped `trigger.window.duration_ms` after its first, when the delivery
/// found `trigger.window.codes` codes in it (`closedByCodes`), or when the mode changes.
///
/// The scanning threads ask `mark(of:)` and offer frames that read nothing for diagnosis
/// (`offer`); the delivery takes each frame's mark once, in frame order (`take`). Marks wait
/// only for frames in flight.
public final class ReadWindows: Sendable {
    /// Where a frame stands.
    public enum Mark: Sendable, Hashable {
        /// In window `window`, opened by `origin`.
        case inside(window: UInt64, origin: String)
        /// Outside every window (a window open before it is closed by it).
        case outside
    }

    private struct Open {
        var number: UInt64
        var origin: String
        var firstTime: MediaTime?
        var closeAfterThisFrame = false
    }

    private struct State {
        var marks: [UInt64: Mark] = [:]
        var open: Open?
        var nextNumber: UInt64 = 1
        /// Windows the delivery closed on their codes, not yet seen closed by the source thread.
        var closedByCodes: Set<UInt64> = []
        /// The best diagnosis score offered per window, until the delivery closes it (`finished`).
        var best: [UInt64: DiagnosisScore] = [:]
    }

    public let triggers: TriggerSwitch
    public let counts: ReadWindowCounts
    private let state = LockedValue(State())

    /// - Parameters:
    ///   - triggers: the switch every trigger presses (`ScanService.triggers`).
    ///   - counts: where ignored presses and results are counted (shared by a service's sessions).
    ///   - firstWindow: the number of the first window (a later session continues the count).
    public init(triggers: TriggerSwitch, counts: ReadWindowCounts = ReadWindowCounts(), firstWindow: UInt64 = 1) {
        (self.triggers, self.counts) = (triggers, counts)
        state.withLock { $0.nextNumber = firstWindow }
    }

    /// The number the next window opened will get.
    public var nextWindow: UInt64 { state.withLock { $0.nextNumber } }

    /// Source thread: takes the pulls made by `capturedAt` (every one waiting when `nil`) and says
    /// whether frame `seq` stamped `pts` is in a window (`nil`: not triggered, the frame is
    /// scanned as the mode says). Records the mark for the scanning threads and the delivery.
    public func admit(_ seq: UInt64, pts: MediaTime?, capturedAt: MediaTime? = nil, settings: TriggerSettings) -> Mark? {
        let pulls = triggers.takePulls(capturedAt: capturedAt)
        return state.withLock { state -> Mark? in
            guard settings.mode == .triggered else {
                guard state.open != nil else { return nil }
                state.open = nil
                state.marks[seq] = .outside
                return .outside
            }
            if var open = state.open {
                let expired = open.firstTime.map { first in pts.map { $0 - first >= settings.window.duration } ?? false } ?? false
                if expired || open.closeAfterThisFrame || state.closedByCodes.remove(open.number) != nil {
                    state.open = nil
                } else if open.firstTime == nil, let pts {
                    open.firstTime = pts
                    state.open = open
                }
            }
            var pressedNow = false
            for pull in pulls {
                switch pull.kind {
                case .press:
                    if state.open == nil {
                        state.open = Open(number: state.nextNumber, origin: pull.origin, firstTime: pts)
                        state.nextNumber += 1
                        pressedNow = true
                    } else {
                        counts.countIgnored()
                    }
                case .release:
                    guard settings.window.untilRelease, state.open != nil else { continue }
                    if pressedNow { state.open?.closeAfterThisFrame = true } else { state.open = nil }
                }
            }
            let mark: Mark = state.open.map { .inside(window: $0.number, origin: $0.origin) } ?? .outside
            state.marks[seq] = mark
            return mark
        }
    }

    /// The mark `admit` gave frame `seq`, if it has not been taken yet.
    public func mark(of seq: UInt64) -> Mark? { state.withLock { $0.marks[seq] } }

    /// Delivery: the mark of frame `seq`, removed (`nil` for a gap, or when not triggered).
    public func take(_ seq: UInt64) -> Mark? { state.withLock { $0.marks.removeValue(forKey: seq) } }

    /// Delivery: window `number` read its `trigger.window.codes`; the source thread closes it at its next frame.
    public func closedByCodes(_ number: UInt64) {
        state.withLock { state in if state.open?.number == number { state.closedByCodes.insert(number) } }
    }

    /// Delivery: window `number` closed; its diagnosis score is forgotten.
    public func finished(_ number: UInt64) { state.withLock { _ = $0.best.removeValue(forKey: number) } }

    /// Scanning thread: whether a frame of window `number` scoring `score` is the most promising
    /// so far (then it is worth copying); records it.
    public func offer(_ score: DiagnosisScore, window number: UInt64) -> Bool {
        state.withLock { state in
            if let best = state.best[number], !(best < score) { return false }
            state.best[number] = score
            return true
        }
    }
}
