import Capture
import Media

/// The default results handler: one JSON object per code, one line each, to a `LineWriter`
/// (stdout in the daemon).
public final class JSONLinesResultsHandler: ResultsHandler, Sendable {
    private let writer: LineWriter
    private let encoder = JSONLineEncoder()
    private let source: String
    private let emitFrames: Bool
    private let clock: @Sendable () -> WallClockTime

    /// - Parameters:
    ///   - source: the source URI written in every line's `source` field.
    ///   - emitFrames: also write one `{"type":"frame",…}` record per sequence number.
    public init(writer: LineWriter, source: String, emitFrames: Bool = false,
                clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now) {
        self.writer = writer
        self.source = source
        self.emitFrames = emitFrames
        self.clock = clock
    }

    public func handle(_ code: inout DeliveredCode) throws {
        try writer.write(encoder.encode(code, source: source, time: clock()))
    }

    public func itemRemoved(_ item: RemovedItem) throws {
        try writer.write(encoder.encode(removed: item, source: source, time: clock()))
    }

    public func itemUpdated(_ update: ItemUpdate) throws {
        try writer.write(encoder.encode(updated: update, source: source, time: clock()))
    }

    public func readResult(_ result: inout ReadResult) throws {
        try writer.write(encoder.encode(result: result, source: source, time: clock()))
    }

    public func frameCompleted(_ collection: SynchronizedDataCollection) throws {
        guard emitFrames else { return }
        try writer.write(encoder.encode(collection))
    }
}
