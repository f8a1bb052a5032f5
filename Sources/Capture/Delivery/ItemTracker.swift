import Media

/// Follows each physical code from frame to frame as an item with a stable id, in frame time
/// (VisionKit's `DataScannerViewController` items: added, updated, removed).
///
/// A reading joins the item of the same symbology and bytes whose place, predicted from the
/// motion it has shown, is nearest, within a gate of about one and a half times the code's size
/// (three quarters, and at its predicted place only once unread for a moment, for a steady mover:
/// a run of identical labels on a belt, a twin label beside it); a reading no item claims is a new item. So identical labels at different places are different
/// items, and a label that rides through the frame stays one. An item stays alive through frames
/// that miss it while a code detected but not decoded (`UndecodedCodeObject`) lies at its
/// predicted place, or for `grace` of frame time after it was last seen (`movingGrace` while it
/// moves at a steady speed and its predicted place is in the frame: a parcel a few frames blur
/// or hide on a belt); a code that comes back later is a new item. Frame time only, never the wall clock: a paused pipeline removes nothing.
///
/// A reading its frame could not confirm (an engine's `ReadingCheck` passed it on: `hybrid`'s
/// zbar-only 1-D readings) joins an item as any reading does, and counts as confirmed when it does;
/// one no item claims begins a *tentative* item: followed like the others but not reported until
/// the same payload is read there in another frame (its first line is that reading). Another
/// payload read where a tentative item lies (a comparable symbology) makes its reading a misread;
/// two tentative items of such payloads at one place are contested: only a reading its own frame
/// confirmed confirms either (the other is then a misread). A tentative item that leaves
/// unconfirmed is dropped (a contested one, misread). Neither is ever reported.
///
/// Memory holds the items alive; each frame costs a dictionary look-up per reading, a distance per
/// candidate of the same payload, and one pass over the items alive. A frame whose timestamp goes
/// back (a source restarted, a wrapped clock) removes every item first (`resets`).
public struct ItemTracker: Sendable {
    /// How items are followed.
    public struct Settings: Sendable, Hashable {
        /// How long an item unseen stays alive.
        public var grace: MediaTime
        /// How long an item unseen stays alive while it moves (a parcel on a belt) and its
        /// predicted place is still in the frame; at least `grace`.
        public var movingGrace: MediaTime
        /// At most one `ItemUpdate` per item per this much frame time; `nil`: none.
        public var updateInterval: MediaTime?
        /// How many readings confirm an item of a symbology that needs confirming.
        public var confirmation: ItemConfirmation

        public static let defaultGrace = MediaTime(nanoseconds: 1_000_000_000)
        public static let defaultMovingGrace = MediaTime(nanoseconds: 1_000_000_000)

        public init(grace: MediaTime = Settings.defaultGrace, movingGrace: MediaTime = Settings.defaultMovingGrace,
                    updateInterval: MediaTime? = nil, confirmation: ItemConfirmation = ItemConfirmation()) {
            (self.grace, self.movingGrace, self.updateInterval) = (grace, max(grace, movingGrace), updateInterval)
            self.confirmation = confirmation
        }

        /// Readings in different frames that confirm a tentative item of `symbology` (2 for a
        /// reading only an engine's check held back).
        func readingsConfirming(_ symbology: Symbology) -> Int {
            confirmation.confirms(symbology) ? max(2, confirmation.readings) : 2
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
        /// What became of readings awaiting confirmation: confirmed by an item, misread, dropped.
        public var readingCheck = ReadingCheckCounts()
    }

    public var settings: Settings
    var items: [UInt64: Item] = [:]  // internal: ItemTracker+Confirmation.swift
    private var byKey: [Key: [UInt64]] = [:]
    private var nextID: UInt64 = 1
    private var scanned = 0
    private var lastPTS: MediaTime?
    /// Times a frame's timestamp went back and every item was removed.
    public private(set) var resets = 0
    /// Tentative items that left unconfirmed and uncontested: never reported as items.
    public internal(set) var unconfirmedItems = 0
    /// Those of them to report (`ItemConfirmation.reportsUnconfirmed`), with their first reading, until taken.
    var unconfirmedToReport: [(code: MachineReadableCodeObject, item: RemovedItem)] = []

    /// Readings and detections whose outline lay partly outside their frame (followed by the part inside).
    public private(set) var outlinesOutsideFrame = 0

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// Frame time between frames the pipeline dropped unscanned (late, out of buffers), summed.
    private var blind = MediaTime.zero

    /// A frame at `pts` was dropped unscanned: the time since the frame before it does not count
    /// towards any item's grace (a stalled machine's dropped second is not a code gone).
    public mutating func unscanned(pts: MediaTime) {
        if let lastPTS, pts >= lastPTS { blind = blind + (pts - lastPTS) }
        lastPTS = max(lastPTS ?? pts, pts)
    }

    /// Items alive now (reported ones: not the tentative).
    public var aliveCount: Int { items.count - tentativeCount }
    var tentativeCount = 0

    /// Follows the items through one scanned frame: its readings, the readings its frame could
    /// not confirm, and the codes detected in it and not decoded, all stamped with the frame's
    /// `sequenceNumber` and `pts`.
    public mutating func track(_ confirmedCodes: [MachineReadableCodeObject], unconfirmed: [MachineReadableCodeObject] = [],
                               undecoded: [UndecodedCodeObject], sequenceNumber: UInt64, pts: MediaTime, width: Int, height: Int) -> FrameResult {
        var result = FrameResult()
        if let lastPTS, pts < lastPTS {
            resets += 1
            result.removed = removeAll(counts: &result.readingCheck)
        }
        let codes = confirmedCodes + unconfirmed
        func awaits(_ i: Int) -> Bool { i >= confirmedCodes.count }
        lastPTS = pts
        let frame = ItemFrame(sequenceNumber: sequenceNumber, presentationTime: pts)
        var seen = Set<UInt64>()

        // Readings: each joins the nearest predicted item of its payload within its gate.
        let places = codes.map { place(of: $0.corners, bounds: $0.bounds, width: width, height: height) }
        var pairs: [(distance: Double, code: Int, item: UInt64)] = []
        for (i, code) in codes.enumerated() {
            for id in byKey[Key(symbology: code.symbology, data: code.mainData)] ?? [] {
                guard let item = items[id] else { continue }
                let distance = item.distance(to: places[i], at: pts)
                if distance <= item.gate(for: places[i]) { pairs.append((distance, i, id)) }
            }
        }
        pairs.sort { $0.distance < $1.distance }
        var claimed = [Bool](repeating: false, count: codes.count)
        var itemOf: [Int: UInt64] = [:]
        // Tentative items this frame's reading would confirm, judged once every item read in the
        // frame is marked read (`contradicted` looks at the reported items read in this frame).
        var confirming: [(code: Int, item: UInt64)] = []
        for pair in pairs where !claimed[pair.code] && !seen.contains(pair.item) {
            claimed[pair.code] = true
            itemOf[pair.code] = pair.item
            seen.insert(pair.item)
            if let item = items[pair.item], !item.confirmed {
                // An unconfirmed reading waits on with its item when the item is contested (another
                // unconfirmed reading is no confirmation) or not yet read as often as its symbology asks.
                if awaits(pair.code) && (item.contested || item.framesRead + 1 < settings.readingsConfirming(item.symbology)) {
                    items[pair.item]?.awaiting += 1
                    _ = read(pair.item, at: places[pair.code], frame: frame)
                    continue
                }
                confirming.append((pair.code, pair.item))
                continue
            }
            if awaits(pair.code) { result.readingCheck.confirmed += 1 }
            if let update = read(pair.item, at: places[pair.code], frame: frame) { result.updated.append(update) }
        }
        // Read again in another frame: the tentative item is confirmed, and reported with this
        // reading; unless a reported item of a payload it could be misread as was read in this
        // frame where it lies (a decoder's repeated misreading of a label beside that label's
        // right reading): then its readings were misreads of that item, and it is dropped.
        for (code, id) in confirming.sorted(by: { $0.code < $1.code }) {
            guard let item = items[id] else { continue }
            if awaits(code), contradicted(places[code], symbology: item.symbology, data: item.mainData, readIn: sequenceNumber, at: pts) {
                result.readingCheck.misread += item.awaiting + 1
                _ = remove(id)
                continue
            }
            confirm(id, counts: &result.readingCheck)
            result.added.append((codes[code], id))
            if awaits(code) { result.readingCheck.confirmed += 1 }
            if let update = read(id, at: places[code], frame: frame) { result.updated.append(update) }
        }
        // The frame's readings by payload, those claimed first: a second reading of one code (two
        // passes, two scan directions) is the same item, not a new one.
        var readingsByKey: [Key: [Int]] = [:]
        for i in codes.indices where claimed[i] { readingsByKey[Key(symbology: codes[i].symbology, data: codes[i].mainData), default: []].append(i) }
        for (i, code) in codes.enumerated() where !claimed[i] {
            let key = Key(symbology: code.symbology, data: code.mainData)
            if let twin = readingsByKey[key]?.first(where: { codes[$0].overlaps(code) }) {
                if awaits(i), let id = itemOf[twin] {
                    if items[id]?.confirmed == true { result.readingCheck.confirmed += 1 } else { items[id]?.awaiting += 1 }
                }
                continue
            }
            if awaits(i), contradicted(places[i], symbology: code.symbology, data: code.mainData, readIn: sequenceNumber, at: pts) {
                result.readingCheck.misread += 1
                continue
            }
            readingsByKey[key, default: []].append(i)
            let id = nextID
            nextID += 1
            items[id] = Item(id: id, symbology: code.symbology, data: code.data, mainData: code.mainData, text: code.text, place: places[i],
                             first: frame, lastSeen: frame, firstScan: scanned, lastScan: scanned, lastUpdate: pts,
                             confirmed: !awaits(i), awaiting: awaits(i) ? 1 : 0, lastRead: sequenceNumber, placeTime: pts,
                             blindAtLastSeen: blind)
            if awaits(i) && settings.confirmation.reportsUnconfirmed { items[id]?.firstReading = code }
            byKey[Key(symbology: code.symbology, data: code.mainData), default: []].append(id)
            seen.insert(id)
            claimed[i] = true
            itemOf[i] = id
            if awaits(i) {
                tentativeCount += 1
                contest(id, at: pts)
            } else {
                result.added.append((code, id))
            }
        }
        // A tentative item where this frame read another payload of a reported one was misread.
        if tentativeCount > 0 {
            let misread = items.values.filter { !$0.confirmed && $0.first.sequenceNumber != sequenceNumber
                && contradicted($0.place, symbology: $0.symbology, data: $0.mainData, readIn: sequenceNumber, at: pts, predictedFrom: $0) }.map(\.id)
            for id in misread.sorted() {
                result.readingCheck.misread += items[id]?.awaiting ?? 0
                _ = remove(id)
            }
        }

        // Detections without a payload keep the nearest unseen item alive (any payload, same symbology).
        for detection in undecoded where !detection.corners.isEmpty {
            let place = place(of: detection.corners, bounds: detection.bounds, width: width, height: height)
            var nearest: (id: UInt64, distance: Double)?
            for (id, item) in items where !seen.contains(id) && item.symbology == detection.symbology {
                let distance = item.distance(to: place, at: pts)
                if distance <= item.gate(for: place) && distance < (nearest?.distance ?? .infinity) { nearest = (id, distance) }
            }
            if let nearest {
                seen.insert(nearest.id)
                items[nearest.id]?.lastSeen = frame
                items[nearest.id]?.blindAtLastSeen = blind
                items[nearest.id]?.lastScan = scanned
            }
        }

        // Unseen past the grace: removed (a tentative item unreported, its readings dropped).
        func grace(of item: Item) -> MediaTime {
            guard settings.movingGrace > settings.grace, item.isMoving, width > 0, height > 0 else { return settings.grace }
            let p = item.predicted(at: pts)
            return p.x >= 0 && p.y >= 0 && p.x <= Double(width) && p.y <= Double(height) ? settings.movingGrace : settings.grace
        }
        // Frame time the pipeline dropped unscanned since is no evidence that it left.
        let gone = items.compactMap { id, item in
            !seen.contains(id) && pts - item.lastSeen.presentationTime - (blind - item.blindAtLastSeen) > grace(of: item) ? id : nil
        }
        for id in gone.sorted() {
            guard let item = items[id] else { continue }
            if item.confirmed { result.removed.append(remove(id)) } else if item.contested {
                result.readingCheck.misread += item.awaiting
                _ = remove(id)
            } else {
                result.readingCheck.dropped += item.awaiting
                leftUnconfirmed(remove(id), firstReading: item.firstReading)
            }
        }
        scanned += 1
        return result
    }

    /// Removes every item alive (the source ended): each reported one as `RemovedItem`, oldest
    /// first; the tentative ones' readings are counted dropped in `counts`.
    public mutating func finish(counts: inout ReadingCheckCounts) -> [RemovedItem] {
        removeAll(counts: &counts)
    }

    // MARK: - Helpers

    private mutating func read(_ id: UInt64, at place: Place, frame: ItemFrame) -> ItemUpdate? {
        guard var item = items[id] else { return nil }
        // Over the time between the two readings (not a detection's since); frames whose
        // timestamps crowd together (a live pipe's burst) say nothing of the speed.
        let dt = (frame.presentationTime - item.placeTime).seconds
        if item.framesRead > 1 && dt >= Self.minimumVelocityInterval {
            let miss = Self.distance(item.predicted(at: frame.presentationTime), place.center)
            item.predictionError = item.predictionError.isFinite ? 0.5 * item.predictionError + 0.5 * miss : miss
        }
        if dt >= Self.minimumVelocityInterval {
            let v = ((place.center.x - item.place.center.x) / dt, (place.center.y - item.place.center.y) / dt)
            item.velocity = item.framesRead == 1 ? v : (0.5 * item.velocity.x + 0.5 * v.0, 0.5 * item.velocity.y + 0.5 * v.1)
        }
        item.place = place
        item.placeTime = frame.presentationTime
        item.lastSeen = frame
        item.blindAtLastSeen = blind
        item.lastScan = scanned
        item.lastRead = frame.sequenceNumber
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
        if !item.confirmed { tentativeCount -= 1 }
        let key = Key(symbology: item.symbology, data: item.mainData)
        byKey[key]?.removeAll { $0 == id }
        if byKey[key]?.isEmpty == true { byKey[key] = nil }
        return item.removed
    }

    private mutating func removeAll(counts: inout ReadingCheckCounts) -> [RemovedItem] {
        let all = items.values.sorted { $0.id < $1.id }
        for item in all where !item.confirmed {
            if item.contested { counts.misread += item.awaiting } else {
                counts.dropped += item.awaiting
                leftUnconfirmed(item.removed, firstReading: item.firstReading)
            }
        }
        items.removeAll()
        byKey.removeAll()
        tentativeCount = 0
        return all.filter(\.confirmed).map(\.removed)
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

    /// The time unread (seconds) after which a steady mover is looked for at its predicted place only.
    static let steadyGap = 0.1

    /// The least time between two readings (seconds) that their displacement gives a speed from.
    static let minimumVelocityInterval = 0.005
    static func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }

}
