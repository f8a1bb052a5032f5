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
///
/// With `match.list` set it also tallies each code against the list's entries and quantities
/// (`ExpectedTally`, shared with what resets it): each code carries the tally after it
/// (`DeliveredCode.expected`), each read window's result the window's (`ReadResult.expected`, the
/// next window starting empty), and the counters `expected_correct`, `expected_wrong`,
/// `expected_missing` and `expected_extra` (gauges: the run's tally, or the last window's) show it.
/// A code is one item when codes are reported as items (the handler sees an item's first
/// reading only), else one emitted code.
public final class MatchResultsHandler: ResultsHandler, CountsReporting, Sendable {
    private struct State {
        var settings: MatchSettings
        var matched = 0
        var mismatched = 0
        var timeouts = 0
    }

    private let state: LockedValue<State>
    private let logger: Logger
    /// The tally against `match.list`, shared with what resets it.
    public let tally: ExpectedTally

    public init(settings: MatchSettings, logger: Logger, tally: ExpectedTally = ExpectedTally()) {
        state = LockedValue(State(settings: settings))
        self.logger = logger
        self.tally = tally
        tally.apply(Self.list(of: settings))
    }

    /// The list tallied against: `nil` without `match.list`.
    private static func list(of settings: MatchSettings?) -> ExpectedList? {
        settings?.listFile == nil ? nil : settings?.list
    }

    /// Matches from the next code on with `settings` (`nil`: off); the counts go on, and the
    /// tally too unless the list changed (a changed list starts it over).
    public func apply(_ settings: MatchSettings?) {
        state.withLock { $0.settings = settings ?? MatchSettings() }
        tally.apply(Self.list(of: settings))
    }

    /// The settings in use now.
    public var settings: MatchSettings { state.withLock { $0.settings } }

    public func handle(_ code: inout DeliveredCode) throws {
        let settings = self.settings
        guard settings.isOn else { return }
        // Matched outside the lock: a slow pattern never holds it.
        let (outcome, entry) = settings.match(code.code)
        code.match = outcome == .matched
        code.expected = tally.count(entry)
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

    /// A read window closed: it carries the window's tally, and the next window's starts empty.
    public func readResult(_ result: inout ReadResult) throws {
        result.expected = tally.closeWindow()
    }

    public var counters: [ResultsCounter] {
        let (on, matched, mismatched, timeouts) = state.withLock { ($0.settings.isOn || $0.matched + $0.mismatched > 0, $0.matched, $0.mismatched, $0.timeouts) }
        guard on else { return [] }
        let expected = tally.totals.map { totals in
            [ResultsCounter(name: "expected_correct", help: "match.list entries seen exactly their quantity (the run's tally, or the last read window's).",
                            kind: .gauge, value: totals.correct),
             ResultsCounter(name: "expected_wrong", help: "Codes on no match.list entry (the run's tally, or the last read window's).",
                            kind: .gauge, value: totals.wrong),
             ResultsCounter(name: "expected_missing", help: "match.list entries seen fewer times than their quantity (the run's tally, or the last read window's).",
                            kind: .gauge, value: totals.missing),
             ResultsCounter(name: "expected_extra", help: "match.list entries seen more times than their quantity (the run's tally, or the last read window's).",
                            kind: .gauge, value: totals.extra)]
        } ?? []
        return [
            ResultsCounter(name: "reads_matched", help: "Codes whose text matched match.pattern or match.list.", value: matched, inStatus: true),
            ResultsCounter(name: "reads_mismatch", help: "Codes whose text matched neither match.pattern nor match.list (a code without text included).",
                           value: mismatched, inStatus: true),
            ResultsCounter(name: "reads_match_timeouts", help: "Codes whose match.pattern match was stopped at its time limit (counted as mismatches too).",
                           value: timeouts, inLines: false),
        ] + expected
    }
}
