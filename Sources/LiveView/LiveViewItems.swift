import Capture
import Media

/// The items the live view outlines: each from its first reading (`ResultsHandler.handle` with
/// `DeliveredCode.item`) until `itemRemoved`, at the corners it was last read at.
///
/// An item's corners come from its first reading, from `itemUpdated` when
/// `duplicate_suppression.item_updates_per_second` sends updates, and from each frame's readings
/// (`follow`): a reading goes to the nearest item of its symbology and bytes, so the outline
/// follows a moving code whatever that setting says. Memory: the items alive (as many as the
/// `ItemTracker` holds), and the last `listLimit` removals not yet sent.
struct LiveViewItems {
    /// One item as the page draws it.
    struct Item: Sendable, Hashable {
        let id: UInt64
        let symbology: Symbology
        /// Its payload without an EAN/UPC add-on (`MachineReadableCodeObject.mainData`), as the items key it.
        let data: [UInt8]
        /// Its caption: `LiveViewSightings.label` of its first reading.
        let label: String
        var corners: [PixelPoint]
        /// The sequence number of the frame that last read it (the most recent are listed first).
        var lastRead: UInt64
    }

    /// What one event says of the items: the most recently read (at most `listLimit`), how many
    /// more are alive, and the items removed since the previous event (at most `listLimit`).
    struct Listing: Sendable, Hashable {
        var items: [Item]
        var more: Int
        var removed: [UInt64]
    }

    private struct Key: Hashable {
        var symbology: Symbology
        var data: [UInt8]
    }

    /// Items listed in one event at most; the rest are counted (`Listing.more`). Removals too.
    static let listLimit = 64

    private(set) var alive: [UInt64: Item] = [:]
    private var byKey: [Key: [UInt64]] = [:]
    /// Items removed since the last `listing()`, oldest first, the last `listLimit`.
    private(set) var removed: [UInt64] = []

    /// An item's first reading.
    mutating func add(_ code: MachineReadableCodeObject, item id: UInt64) {
        if alive[id] == nil { byKey[Key(symbology: code.symbology, data: code.mainData), default: []].append(id) }
        alive[id] = Item(id: id, symbology: code.symbology, data: code.mainData, label: LiveViewSightings.label(code),
                         corners: code.corners, lastRead: code.frame.sequenceNumber)
    }

    /// An item read again at a new place; an unknown one is ignored.
    mutating func update(_ update: ItemUpdate) {
        guard alive[update.id] != nil, !update.corners.isEmpty else { return }
        alive[update.id]?.corners = update.corners
        alive[update.id]?.lastRead = update.frame.sequenceNumber
    }

    /// An item left the view.
    mutating func remove(_ id: UInt64) {
        guard let item = alive.removeValue(forKey: id) else { return }
        let key = Key(symbology: item.symbology, data: item.data)
        byKey[key]?.removeAll { $0 == id }
        if byKey[key]?.isEmpty == true { byKey[key] = nil }
        removed.append(id)
        if removed.count > Self.listLimit { removed.removeFirst(removed.count - Self.listLimit) }
    }

    /// Gives a frame's `reads` to the items: each, nearest first, to the nearest item of its
    /// symbology and bytes not yet given one (its corners become the reading's), and a second
    /// reading of one code (two passes) to the item the first went to when it lies within that
    /// item's outline. The item of each reading, in order; `nil`: none (not reported as items).
    mutating func follow(_ reads: [MachineReadableCodeObject], sequenceNumber: UInt64) -> [UInt64?] {
        guard !alive.isEmpty else { return reads.map { _ in nil } }
        var pairs: [(distance: Double, read: Int, item: UInt64)] = []
        for (i, code) in reads.enumerated() where !code.corners.isEmpty {
            for id in byKey[Key(symbology: code.symbology, data: code.mainData)] ?? [] {
                guard let item = alive[id], !item.corners.isEmpty else { continue }
                pairs.append((Self.distance(Self.center(item.corners), Self.center(code.corners)), i, id))
            }
        }
        pairs.sort { $0.distance < $1.distance }
        var items = [UInt64?](repeating: nil, count: reads.count), taken = Set<UInt64>()
        for pair in pairs where items[pair.read] == nil && !taken.contains(pair.item) {
            items[pair.read] = pair.item
            taken.insert(pair.item)
            alive[pair.item]?.corners = reads[pair.read].corners
            alive[pair.item]?.lastRead = sequenceNumber
        }
        for pair in pairs where items[pair.read] == nil && taken.contains(pair.item) {
            guard let corners = alive[pair.item]?.corners, pair.distance <= Self.size(corners) else { continue }
            items[pair.read] = pair.item
        }
        return items
    }

    /// The items to send now; the removals are then taken (the next listing has only later ones).
    mutating func listing() -> Listing {
        let listed = alive.values.sorted { ($0.lastRead, $0.id) > ($1.lastRead, $1.id) }.prefix(Self.listLimit)
        defer { removed = [] }
        return Listing(items: Array(listed), more: alive.count - listed.count, removed: removed)
    }

    private static func center(_ corners: [PixelPoint]) -> (x: Double, y: Double) {
        let n = Double(max(1, corners.count))
        return (Double(corners.reduce(0) { $0 + $1.x }) / n, Double(corners.reduce(0) { $0 + $1.y }) / n)
    }

    /// The outline's larger side.
    private static func size(_ corners: [PixelPoint]) -> Double {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return Double(max((xs.max() ?? 0) - (xs.min() ?? 0), (ys.max() ?? 0) - (ys.min() ?? 0)))
    }

    private static func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }
}
