/// A tally of what was read against `match.list`'s expected codes and their quantities: as one
/// read window (`trigger.mode: triggered`) or the run so far (the other modes) left it.
///
/// Counts items (each physical code once), not readings. `correct` entries were seen exactly their
/// quantity, `missing` fewer times, `extra` more; `wrong` counts codes on no entry of the list.
/// Made by the match handler (`MatchResultsHandler`), carried to the handlers after it on each
/// code (`DeliveredCode.expected`) and on each read window's result (`ReadResult.expected`).
public struct ExpectedCounts: Sendable, Hashable {
    /// One entry of the list and how often it was seen.
    public struct Entry: Sendable, Hashable {
        /// The entry as the list wrote it, without its quantity: `SN-1`, `gs1:01=09506000134352`.
        public var entry: String
        public var quantity: Int
        public var seen: Int

        public init(entry: String, quantity: Int, seen: Int) { (self.entry, self.quantity, self.seen) = (entry, quantity, seen) }
    }

    /// The most entries a tally lists one by one (`entries`); a longer list has only the counts.
    public static let listedEntriesLimit = 64

    public var correct: Int
    public var wrong: Int
    public var missing: Int
    public var extra: Int
    /// Every entry of the list in file order with its count, when the list has at most
    /// `listedEntriesLimit` entries; `nil` for a longer one.
    public var entries: [Entry]?

    public init(correct: Int = 0, wrong: Int = 0, missing: Int = 0, extra: Int = 0, entries: [Entry]? = nil) {
        (self.correct, self.wrong, self.missing, self.extra, self.entries) = (correct, wrong, missing, extra, entries)
    }
}
