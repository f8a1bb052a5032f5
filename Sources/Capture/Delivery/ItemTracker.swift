import Media

/// Follows each physical code from frame to frame as an item with a stable id, in frame time
/// (VisionKit's `DataScannerViewController` items: added, updated, removed).
///
/// A reading joins the item of the same symbology and bytes whose place, predicted from the
/// motion it has shown, is nearest, within a gate of about one and a half times the code's size;
/// a reading no item claims is a new item. So identical labels at different places are different
/// items, and a label that rides through the frame stays one. An item stays alive through frames
/// that miss it while a code detected but not decoded (`UndecodedCodeObject`) lies at its
/// predicted place, or for `grace` of frame time after it was last seen; a code that comes back
/// later is a new item. Frame time only, never the wall clock: a paused pipeline removes nothing.
///
/// Memory holds the items alive; each frame costs a dictionary look-up per reading, a distance per
/// candidate of the same payload, and one pass over the items alive. A frame whose timestamp goes
/// back (a source restarted, a wrapped clock) removes every item first (`resets`).
public struct ItemTracker: Sendable {
    /// How items are followed.
    public struct Settings: Sendable, Hashable {
        /// How long an item unseen stays alive.
        public var grace: MediaTime
        /// At most one `ItemUpdate` per item per this much frame time; `nil`: none.
        public var updateInterval: MediaTime?

        public static let defaultGrace = MediaTime(nanoseconds: 300_000_000)

        public init(grace: MediaTime = Settings.defaultGrace, updateInterval: MediaTime? = nil) {
            (self.grace, self.updateInterval) = (grace, updateInterval)
        }
    }

    /// A code's place in one frame: its outline and the frame.
    struct Place: Sendable {
        var corners: [PixelPoint]
        var center: (x: Double, y: Double)
        /// The outline's larger side, at least 1.
        var size: Double

        init(corners: [PixelPoint], bounds: PixelRect) {
            self.corners = corners
            center = (Double(bounds.x) + Double(bounds.width) / 2, Double(bounds.y) + Double(bounds.height) / 2)
            size = Double(max(1, bounds.width, bounds.height))
        }
    }

    struct Item: Sendable {
        let id: UInt64
        let symbology: Symbology
        let data: [UInt8]
        let text: String?
        var place: Place
        /// Pixels per second, smoothed over the readings.
        var velocity: (x: Double, y: Double) = (0, 0)
        let first: ItemFrame
        var lastSeen: ItemFrame
        /// Scanned frames counted when it was first and last seen (its frames present in between).
        let firstScan: Int
        var lastScan: Int
        var framesRead = 1
        var lastUpdate: MediaTime

        /// Where it should be at `pts`, from where it was last seen and how it moved.
        func predicted(at pts: MediaTime) -> (x: Double, y: Double) {
            let dt = (pts - lastSeen.presentationTime).seconds
            return (place.center.x + velocity.x * dt, place.center.y + velocity.y * dt)
        }

        /// How far a reading at `place` may be from the predicted place and still be this item.
        func gate(for other: Place) -> Double { max(24, 1.5 * max(place.size, other.size)) }

        var removed: RemovedItem {
            RemovedItem(id: id, symbology: symbology, data: data, text: text, first: first, last: lastSeen,
                        framesPresent: lastScan - firstScan + 1, framesRead: framesRead, corners: place.corners)
        }
    }

    struct Key: Hashable, Sendable {
        var symbology: Symbology
        var data: [UInt8]
    }

    /// What one frame did to the items.
    public struct FrameResult: Sendable {
        /// The frame's readings that began an item (its first reading), with the item's id, in the frame's order.
        public var added: [(code: MachineReadableCodeObject, item: UInt64)] = []
        /// Items that left: unseen for longer than the grace, or the timestamp went back.
        public var removed: [RemovedItem] = []
        /// Items read again, at most one per `updateInterval` each.
        public var updated: [ItemUpdate] = []
    }

    public var settings: Settings
    private var items: [UInt64: Item] = [:]
    private var byKey: [Key: [UInt64]] = [:]
    private var nextID: UInt64 = 1
    private var scanned = 0
    private var lastPTS: MediaTime?
    /// Times a frame's timestamp went back and every item was removed.
    public private(set) var resets = 0
    /// Readings and detections whose outline lay partly outside their frame (followed by the part inside).
    public private(set) var outlinesOutsideFrame = 0

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// Items alive now.
    public var aliveCount: Int { items.count }

    /// Follows the items through one scanned frame: its readings and the codes detected in it
    /// and not decoded, all stamped with the frame's `sequenceNumber` and `pts`.
    public mutating func track(_ codes: [MachineReadableCodeObject], undecoded: [UndecodedCodeObject],
                               sequenceNumber: UInt64, pts: MediaTime, width: Int, height: Int) -> FrameResult {
        var result = FrameResult()
        if let lastPTS, pts < lastPTS {
            resets += 1
            result.removed = removeAll()
        }
        lastPTS = pts
        let frame = ItemFrame(sequenceNumber: sequenceNumber, presentationTime: pts)
        var seen = Set<UInt64>()

        // Readings: each joins the nearest predicted item of its payload within its gate.
        let places = codes.map { place(of: $0.corners, bounds: $0.bounds, width: width, height: height) }
        var pairs: [(distance: Double, code: Int, item: UInt64)] = []
        for (i, code) in codes.enumerated() {
            for id in byKey[Key(symbology: code.symbology, data: code.data)] ?? [] {
                guard let item = items[id] else { continue }
                let distance = Self.distance(item.predicted(at: pts), places[i].center)
                if distance <= item.gate(for: places[i]) { pairs.append((distance, i, id)) }
            }
        }
        pairs.sort { $0.distance < $1.distance }
        var claimed = [Bool](repeating: false, count: codes.count)
        for pair in pairs where !claimed[pair.code] && !seen.contains(pair.item) {
            claimed[pair.code] = true
            seen.insert(pair.item)
            if let update = read(pair.item, at: places[pair.code], frame: frame) { result.updated.append(update) }
        }
        // The frame's readings by payload, those claimed first: a second reading of one code (two
        // passes, two scan directions) is the same item, not a new one.
        var readingsByKey: [Key: [Int]] = [:]
        for i in codes.indices where claimed[i] { readingsByKey[Key(symbology: codes[i].symbology, data: codes[i].data), default: []].append(i) }
        for (i, code) in codes.enumerated() where !claimed[i] {
            let key = Key(symbology: code.symbology, data: code.data)
            if readingsByKey[key]?.contains(where: { codes[$0].overlaps(code) }) == true { continue }
            readingsByKey[key, default: []].append(i)
            let id = nextID
            nextID += 1
            items[id] = Item(id: id, symbology: code.symbology, data: code.data, text: code.text, place: places[i],
                             first: frame, lastSeen: frame, firstScan: scanned, lastScan: scanned, lastUpdate: pts)
            byKey[Key(symbology: code.symbology, data: code.data), default: []].append(id)
            seen.insert(id)
            claimed[i] = true
            result.added.append((code, id))
        }

        // Detections without a payload keep the nearest unseen item alive (any payload, same symbology).
        for detection in undecoded where !detection.corners.isEmpty {
            let place = place(of: detection.corners, bounds: detection.bounds, width: width, height: height)
            var nearest: (id: UInt64, distance: Double)?
            for (id, item) in items where !seen.contains(id) && item.symbology == detection.symbology {
                let distance = Self.distance(item.predicted(at: pts), place.center)
                if distance <= item.gate(for: place) && distance < (nearest?.distance ?? .infinity) { nearest = (id, distance) }
            }
            if let nearest {
                seen.insert(nearest.id)
                items[nearest.id]?.lastSeen = frame
                items[nearest.id]?.lastScan = scanned
            }
        }

        // Unseen past the grace: removed.
        let gone = items.compactMap { id, item in !seen.contains(id) && pts - item.lastSeen.presentationTime > settings.grace ? id : nil }
        result.removed += gone.sorted().map { remove($0) }
        scanned += 1
        return result
    }

    /// Removes every item alive (the source ended): each as `RemovedItem`, oldest first.
    public mutating func finish() -> [RemovedItem] {
        removeAll()
    }

    // MARK: - Helpers

    private mutating func read(_ id: UInt64, at place: Place, frame: ItemFrame) -> ItemUpdate? {
        guard var item = items[id] else { return nil }
        let dt = (frame.presentationTime - item.lastSeen.presentationTime).seconds
        if dt > 0 {
            let v = ((place.center.x - item.place.center.x) / dt, (place.center.y - item.place.center.y) / dt)
            item.velocity = item.framesRead == 1 ? v : (0.5 * item.velocity.x + 0.5 * v.0, 0.5 * item.velocity.y + 0.5 * v.1)
        }
        item.place = place
        item.lastSeen = frame
        item.lastScan = scanned
        item.framesRead += 1
        var update: ItemUpdate?
        if let interval = settings.updateInterval, frame.presentationTime - item.lastUpdate >= interval {
            item.lastUpdate = frame.presentationTime
            update = ItemUpdate(id: id, frame: frame, corners: place.corners, framesRead: item.framesRead)
        }
        items[id] = item
        return update
    }

    private mutating func remove(_ id: UInt64) -> RemovedItem {
        let item = items.removeValue(forKey: id)!
        let key = Key(symbology: item.symbology, data: item.data)
        byKey[key]?.removeAll { $0 == id }
        if byKey[key]?.isEmpty == true { byKey[key] = nil }
        return item.removed
    }

    private mutating func removeAll() -> [RemovedItem] {
        let removed = items.values.sorted { $0.id < $1.id }.map(\.removed)
        items.removeAll()
        byKey.removeAll()
        return removed
    }

    /// The place of an outline, counted when it lies partly outside the frame (its centre is then
    /// clamped into the frame).
    private mutating func place(of corners: [PixelPoint], bounds: PixelRect, width: Int, height: Int) -> Place {
        var place = Place(corners: corners, bounds: bounds)
        if width > 0, height > 0, bounds.x < 0 || bounds.y < 0 || bounds.x + bounds.width > width || bounds.y + bounds.height > height {
            outlinesOutsideFrame += 1
            place.center = (min(max(place.center.x, 0), Double(width)), min(max(place.center.y, 0), Double(height)))
        }
        return place
    }

    private static func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }

}

/// A frame an item was seen in: its sequence number and timestamp.
public struct ItemFrame: Sendable, Hashable {
    public var sequenceNumber: UInt64
    public var presentationTime: MediaTime

    public init(sequenceNumber: UInt64, presentationTime: MediaTime) {
        (self.sequenceNumber, self.presentationTime) = (sequenceNumber, presentationTime)
    }
}

/// An item that left the view (VisionKit's `didRemove`): what it carried, when it was first and
/// last seen, and how many of the frames it was present in read it.
public struct RemovedItem: Sendable, Hashable {
    public var id: UInt64
    public var symbology: Symbology
    public var data: [UInt8]
    public var text: String?
    public var first: ItemFrame
    public var last: ItemFrame
    /// Scanned frames from its first to its last sighting, both included.
    public var framesPresent: Int
    /// Of those, the frames in which its code was read.
    public var framesRead: Int
    /// Its outline when last read.
    public var corners: [PixelPoint]

    public init(id: UInt64, symbology: Symbology, data: [UInt8], text: String?, first: ItemFrame, last: ItemFrame,
                framesPresent: Int, framesRead: Int, corners: [PixelPoint]) {
        (self.id, self.symbology, self.data, self.text) = (id, symbology, data, text)
        (self.first, self.last, self.framesPresent, self.framesRead, self.corners) = (first, last, framesPresent, framesRead, corners)
    }

    /// How long it was in view, in frame time.
    public var dwell: MediaTime { last.presentationTime - first.presentationTime }
    /// Frames read of frames present.
    public var readRate: Double { framesPresent > 0 ? Double(framesRead) / Double(framesPresent) : 0 }
}

/// An item read again at a new place (VisionKit's `didUpdate`), for consumers that draw.
public struct ItemUpdate: Sendable, Hashable {
    public var id: UInt64
    public var frame: ItemFrame
    public var corners: [PixelPoint]
    public var framesRead: Int
}
