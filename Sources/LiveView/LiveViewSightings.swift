import Capture
import Foundation
import Media
import Results

/// The live view's outlines of one scanned frame, as the JSON object of an `event: sightings`.
///
/// Every code read in the frame (before duplicate suppression, so a code held in view stays
/// outlined), every code zxing-cpp detected there without decoding, and the items in view
/// (`LiveViewItems`): `{"seq":N,"width":W,"height":H,"read":[{"symbology":…,"label":…,"item":N,
/// "corners":[[x,y],…]},…],"undecoded":[{"symbology":…,"error":…,"corners":[[x,y],…]},…],
/// "items":[{"item":N,"symbology":…,"label":…,"corners":[[x,y],…]},…],"items_more":N,
/// "removed":[N,…]}`, corners in frame pixels. A read code's `item` is the item it was given to
/// (absent when codes are not reported as items); `items` lists the most recently read items
/// alive with their last corners, `items_more` counts the others, `removed` names the items
/// that left since the previous event. A `label` is the code's text, or `base64:` and its bytes,
/// cut to `labelLimit` characters (the outline's caption; the full payload is in the code line).
/// Nothing here is a code line.
enum LiveViewSightings {
    /// Characters of a read code's label at most (then `…`).
    static let labelLimit = 64

    /// The event's JSON for `frame`'s `metadata`, its readings' items (`readItems`, in order) and the items in view.
    static func json(frame: FrameInfo, metadata: SynchronizedMetadataObjectData, readItems: [UInt64?] = [],
                     items: LiveViewItems.Listing = LiveViewItems.Listing(items: [], more: 0, removed: [])) -> [UInt8] {
        var out = JSONBuffer()
        out.raw("{\"seq\":\(frame.sequenceNumber),\"width\":\(frame.width),\"height\":\(frame.height),\"read\":[")
        for (i, code) in metadata.metadataObjects.enumerated() {
            out.raw(i == 0 ? "{\"symbology\":" : ",{\"symbology\":")
            out.string(code.symbology.rawValue)
            out.raw(",\"label\":")
            out.string(label(code))
            if i < readItems.count, let item = readItems[i] { out.raw(",\"item\":\(item)") }
            corners(code.corners, into: &out)
        }
        out.raw("],\"undecoded\":[")
        for (i, code) in metadata.undecoded.enumerated() {
            out.raw(i == 0 ? "{\"symbology\":" : ",{\"symbology\":")
            out.string(code.symbology.rawValue)
            out.raw(",\"error\":")
            out.string(code.error)
            corners(code.corners, into: &out)
        }
        out.raw("],\"items\":[")
        for (i, item) in items.items.enumerated() {
            out.raw(i == 0 ? "{\"item\":\(item.id),\"symbology\":" : ",{\"item\":\(item.id),\"symbology\":")
            out.string(item.symbology.rawValue)
            out.raw(",\"label\":")
            out.string(item.label)
            corners(item.corners, into: &out)
        }
        out.raw("],\"items_more\":\(items.more),\"removed\":[\(items.removed.map(String.init).joined(separator: ","))]}")
        return out.bytes
    }

    /// A read code's caption: its text, else `base64:` and its bytes, at most `labelLimit` characters.
    static func label(_ code: MachineReadableCodeObject) -> String {
        let full = code.text ?? "base64:" + Data(code.data).base64EncodedString()
        return full.count <= labelLimit ? full : String(full.prefix(labelLimit - 1)) + "…"
    }

    /// `,"corners":[[x,y],…]}`: the end of one code's object.
    private static func corners(_ points: [PixelPoint], into out: inout JSONBuffer) {
        out.raw(",\"corners\":[")
        for (i, p) in points.enumerated() { out.raw(i == 0 ? "[\(p.x),\(p.y)]" : ",[\(p.x),\(p.y)]") }
        out.raw("]}")
    }
}

/// When a frame's sightings go to the viewers: at most `perSecond` a second, whatever the frame rate.
///
/// A frame with something in it (a code read or detected, an item alive or just removed) is sent
/// when an update is due; the first frame with nothing after one sent with something is sent when
/// due (the outlines go away); then nothing while nothing is in view. A code in view for less than an update's interval still
/// reaches the page by its code line, which the page outlines too.
struct SightingsPacer {
    /// Updates a second at most.
    var perSecond: Double
    private var nextDue: ContinuousClock.Instant?
    private var lastSentHeldSomething = false

    init(perSecond: Double) { self.perSecond = perSecond }

    /// Whether to send a frame that `holdsSomething` (or not) at `now`; if so, noted as sent.
    mutating func shouldSend(holdsSomething: Bool, at now: ContinuousClock.Instant) -> Bool {
        guard nextDue.map({ now >= $0 }) ?? true, holdsSomething || lastSentHeldSomething else { return false }
        nextDue = now + .seconds(1 / max(perSecond, 0.01))
        lastSentHeldSomething = holdsSomething
        return true
    }
}
