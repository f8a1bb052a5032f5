import Foundation

/// `match.pattern`: a regular expression (ICU's syntax, through Foundation's
/// `NSRegularExpression`) that a code's whole text must match.
///
/// Anchored at both ends: the pattern is matched as `\A(?:PATTERN)\z`, so `\d{13}` matches a text
/// of 13 digits and nothing longer (write `.*\d{13}.*` to find it inside a text).
///
/// A match runs with ICU's match callback on (`.reportProgress`, `uregex_setMatchCallback`),
/// which ICU calls every few thousand steps of its backtracking; past `timeLimit` the callback
/// stops the match and the text counts as not matching (`Outcome.timedOut`). So a pattern that
/// backtracks catastrophically (`(a+)+$` on a long run of `a`) costs each code at most about
/// `timeLimit`, and never stops the scan.
public struct MatchPattern: Sendable, Hashable, CustomStringConvertible {
    /// How long one text is matched before the match is stopped.
    public static let defaultTimeLimit: Duration = .milliseconds(50)

    /// What matching one text found.
    public enum Outcome: Sendable, Equatable {
        case matched
        case notMatched
        /// Stopped at the time limit: counted as not matching.
        case timedOut
    }

    /// Why a pattern was refused (`match.pattern`'s problem).
    public struct CompileError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The pattern as written.
    public let source: String
    private let expression: NSRegularExpression
    public let timeLimit: Duration

    /// Compiles `source` (`uregex_open` through `NSRegularExpression`), alone and then anchored.
    /// - Throws: `CompileError` naming the fault (Swift's regex parser says where, when it can).
    public init(_ source: String, timeLimit: Duration = MatchPattern.defaultTimeLimit) throws {
        do { _ = try NSRegularExpression(pattern: source) } catch {
            throw CompileError(description: "not a valid regular expression (ICU syntax)\(Self.fault(of: source))")
        }
        do { expression = try NSRegularExpression(pattern: "\\A(?:" + source + ")\\z") } catch {
            // Alone it compiled: what it ends in swallowed the anchors (an unclosed \Q, a (?x) comment).
            throw CompileError(description: "it cannot be anchored to the whole text: it ends inside a \\Q quote or a (?x) comment; close it (\\E, or a newline)")
        }
        self.source = source
        self.timeLimit = timeLimit
    }

    /// What is wrong with `source`, which ICU refused, as `: what` (empty when unknown).
    ///
    /// ICU's message through Foundation is only "The value is invalid": Swift's own parser, which
    /// reads ICU's syntax too, usually says what is wrong, but it takes no lookbehind at all, which
    /// ICU takes when its length is bounded. So the pattern is tried again with each lookbehind
    /// as a plain group: if ICU takes that, the fault was a lookbehind of unbounded length.
    private static func fault(of source: String) -> String {
        let plain = source.replacingOccurrences(of: "(?<=", with: "(?:").replacingOccurrences(of: "(?<!", with: "(?:")
        if plain != source, (try? NSRegularExpression(pattern: plain)) != nil {
            return ": a lookbehind, (?<=…) or (?<!…), must match a bounded length: one with *, + or {n,} inside is refused; "
                + "bound it, like (?<=SN-\\d{1,12}) or (?<!x{0,8})"
        }
        do { _ = try Regex(plain); return "" } catch { return ": \(error)" }
    }

    /// Whether `text` matches as a whole, within `timeLimit`.
    public func match(_ text: String) -> Outcome {
        let deadline = ContinuousClock.now + timeLimit
        var outcome = Outcome.notMatched
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        expression.enumerateMatches(in: text, options: [.reportProgress], range: range) { result, _, stop in
            if result != nil {
                outcome = .matched
                stop.pointee = true
            } else if ContinuousClock.now >= deadline {
                outcome = .timedOut
                stop.pointee = true
            }
        }
        return outcome
    }

    public var description: String { source }

    public static func == (a: Self, b: Self) -> Bool { a.source == b.source && a.timeLimit == b.timeLimit }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}
