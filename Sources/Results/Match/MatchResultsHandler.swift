import Capture
import Logging
import SystemCalls

/// Checks each emitted code against `match.*` and sets its `match` (`DeliveredCode.match`) for the
/// handlers after it: first in the chain, so every line and message of the code carries it, and
/// each code is matched once.
///
/// With matching off (`MatchSettings.isOn` false) it sets nothing and has no counters. With it
/// on it counts `reads_matched` and `reads_mismatch` (the stats and summary lines, STATUS=,
/// `/status`, `<prefix>/stats`, the metrics) and, metrics only, `reads_match_timeouts`: texts
/// whose match the pattern's time limit stopped (each is a mismatch too; the first is logged).
/// `apply` takes a reload's settings (a new pattern, the list read again) from the next code on.
public final class MatchResultsHandler: ResultsHandler, CountsReporting, Sendable {
    private struct State {
        var settings: MatchSettings
        var matched = 0
        var mismatched = 0
        var timeouts = 0
    }

    private let state: LockedValue<State>
    private let logger: Logger

    public init(settings: MatchSettings, logger: Logger) {
        state = LockedValue(State(settings: settings))
        self.logger = logger
    }

    /// Matches from the next code on with `settings` (`nil`: off); the counts go on.
    public func apply(_ settings: MatchSettings?) {
        state.withLock { $0.settings = settings ?? MatchSettings() }
    }

    /// The settings in use now.
    public var settings: MatchSettings { state.withLock { $0.settings } }

    public func handle(_ code: inout DeliveredCode) throws {
        let settings = self.settings
        guard settings.isOn else { return }
        // Matched outside the lock: a slow pattern never holds it.
        let outcome = settings.match(code.code.text)
        code.match = outcome == .matched
        let firstTimeout = state.withLock { state in
            if outcome == .matched { state.matched += 1 } else { state.mismatched += 1 }
            guard outcome == .timedOut else { return false }
            state.timeouts += 1
            return state.timeouts == 1
        }
        if firstTimeout, let pattern = settings.pattern {
            logger.warning("match.pattern took too long on a code's text and was stopped: the code counts as a mismatch (further ones are counted, reads_match_timeouts)",
                           metadata: ["pattern": "\(LogText.untrusted(pattern))", "limit": "\(pattern.timeLimit)",
                                      "text_characters": "\(code.code.text?.count ?? 0)", "fix": "simplify the pattern: nested quantifiers like (a+)+ backtrack without end"])
        }
    }

    public var counters: [ResultsCounter] {
        let (on, matched, mismatched, timeouts) = state.withLock { ($0.settings.isOn || $0.matched + $0.mismatched > 0, $0.matched, $0.mismatched, $0.timeouts) }
        guard on else { return [] }
        return [
            ResultsCounter(name: "reads_matched", help: "Codes whose text matched match.pattern or match.list.", value: matched, inStatus: true),
            ResultsCounter(name: "reads_mismatch", help: "Codes whose text matched neither match.pattern nor match.list (a code without text included).",
                           value: mismatched, inStatus: true),
            ResultsCounter(name: "reads_match_timeouts", help: "Codes whose match.pattern match was stopped at its time limit (counted as mismatches too).",
                           value: timeouts, inLines: false),
        ]
    }
}
