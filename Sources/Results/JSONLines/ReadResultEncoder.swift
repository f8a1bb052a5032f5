import Capture
import Media

extension JSONLineEncoder {
    /// `{"type":"read_result","result":"good"|"no_read"|"multiple","window":N,"trigger":…,
    /// "opened_seq":…,"opened_pts":…,"closed_seq":…,"closed_pts":…,"codes":N,"items":[…],
    /// "read":[{"item":N,"symbology":…,"text":…,"data_b64":…,"gs1":…},…],"frames_scanned":N}`, with
    /// `"expected":{"correct":N,"wrong":N,"missing":N,"extra":N,"entries":[{"entry":…,"quantity":N,"seen":N},…]}`
    /// with `match.list` (`entries` only for a list of at most `ExpectedCounts.listedEntriesLimit`),
    /// `"snapshot":PATH` for a `no_read` whose JPEG is being written (or
    /// `"snapshot_error":WHY` when it is not), then
    /// `source` and `time`, and a newline (one read window of `trigger.mode: triggered`).
    public func encode(result: ReadResult, source: String, time: WallClockTime) -> [UInt8] {
        var out = JSONBuffer()
        out.bytes += Self.readResultFields(result)
        out.end(source: source, time: time)
        return out.bytes
    }

    /// The read result's object without its closing brace (`encode(result:)`; MQTT's `results` adds its own end).
    public static func readResultFields(_ result: ReadResult) -> [UInt8] {
        var out = JSONBuffer()
        out.raw("{\"type\":\"read_result\",\"result\":\"\(result.kind.rawValue)\",\"window\":\(result.window),\"trigger\":")
        out.string(result.trigger)
        out.raw(",\"opened_seq\":\(result.opened.sequenceNumber),\"opened_pts\":\(result.opened.presentationTime)")
        out.raw(",\"closed_seq\":\(result.closed.sequenceNumber),\"closed_pts\":\(result.closed.presentationTime)")
        out.raw(",\"codes\":\(result.codes),\"items\":[\(result.items.map(String.init).joined(separator: ","))]")
        out.raw(",\"read\":[")
        for (i, read) in result.read.enumerated() {
            out.raw(i == 0 ? "{" : ",{")
            if let item = read.item { out.raw("\"item\":\(item),") }
            out.raw("\"symbology\":")
            out.string(read.code.symbology.rawValue)
            out.payload(text: read.code.text, data: read.code.data)
            out.gs1(read.code)
            out.raw("}")
        }
        out.raw("]")
        out.raw(",\"frames_scanned\":\(result.framesScanned)")
        if let expected = result.expected { out.expected(expected) }
        if let snapshot = result.snapshot {
            out.raw(",\"snapshot\":")
            out.string(snapshot)
        } else if let error = result.snapshotError {
            out.raw(",\"snapshot_error\":")
            out.string(error)
        }
        return out.bytes
    }
}

extension JSONBuffer {
    /// `,"expected":{"correct":N,"wrong":N,"missing":N,"extra":N,"entries":[…]}` (`entries` when listed).
    mutating func expected(_ tally: ExpectedCounts) {
        raw(",\"expected\":{\"correct\":\(tally.correct),\"wrong\":\(tally.wrong),\"missing\":\(tally.missing),\"extra\":\(tally.extra)")
        if let entries = tally.entries {
            raw(",\"entries\":[")
            for (i, entry) in entries.enumerated() {
                raw(i == 0 ? "{\"entry\":" : ",{\"entry\":")
                string(entry.entry)
                raw(",\"quantity\":\(entry.quantity),\"seen\":\(entry.seen)}")
            }
            raw("]")
        }
        raw("}")
    }
}
