import Media
import SystemCalls

/// The last stage of a frame's path: what is reported (items, or duplicate suppression by
/// time), then the results handler, then "frame delivered" (the watchdog's ping), in that order,
/// for each synchronized collection.
///
/// The synchronizer calls `deliver` from one thread at a time (outside its lock), in frame
/// order, and `finish` after the last. `setReporting` may come from any thread (a reload); its
/// effect, and the removals it causes, reach the handler with the next frame.
public final class Delivery: Sendable {
    /// A closed window's result, and the items it removed, each with whether its item was shown.
    private typealias ClosedWindow = (result: ReadResult, removed: [(RemovedItem, shown: Bool)])

    private struct State {
        var reporting: CodeReporting
        var suppressor: DuplicateSuppressor
        var tracker: ItemTracker
        var statistics = ItemStatistics()
        /// Items a change of reporting removed, for the next `deliver`.
        var pendingRemovals: [RemovedItem] = []
        var emitted = 0
        /// Which codes reach the handler (`CodeFilter`); `nil`: every one.
        var filter: CodeFilter?
        /// Items whose first reading the filter held back: their updates and removal are held back too.
        var heldBack: Set<UInt64> = []
        /// The last scanned frame's findings, replayed for the `idle` frames after it.
        var lastScanned: SynchronizedMetadataObjectData?
        /// The read window open now (`trigger.mode: triggered`).
        var window: ReadWindowTally?
        /// The last window closed by its codes: its frames still on their way are `untriggered`.
        var closedByCodes: UInt64?

        init(reporting: CodeReporting) {
            self.reporting = reporting
            suppressor = DuplicateSuppressor(window: reporting.window)
            tracker = ItemTracker(settings: reporting.itemSettings ?? ItemTracker.Settings())
        }

        mutating func counted(_ removed: [RemovedItem]) -> [RemovedItem] {
            for item in removed { statistics.count(item) }
            statistics.alive = tracker.aliveCount
            statistics.resets = tracker.resets
            statistics.outlinesOutsideFrame = tracker.outlinesOutsideFrame
            statistics.unconfirmed = tracker.unconfirmedItems
            return removed
        }

        var reportsItems: Bool { reporting.itemSettings != nil }

        /// Closes the open window: its result, and the items it leaves (every item alive goes,
        /// so the next window reads its codes anew); duplicate suppression starts over.
        mutating func closeWindow(expected: Int) -> ClosedWindow? {
            guard let tally = window else { return nil }
            window = nil
            let result = tally.result(expected: expected, reportingItems: reportsItems)
            suppressor = DuplicateSuppressor(window: reporting.window)
            let removed = reportsItems ? filtered([], counted(tracker.finish(counts: &statistics.readingCheck)), []).removed : []
            return (result, removed)
        }

        /// What the filter lets through: the fresh codes it accepts (an item's first reading it
        /// refuses holds its item back), each removal with whether its item was shown, the updates
        /// of items shown. An item's first reading decides for the item's whole life.
        mutating func filtered(_ fresh: [(MachineReadableCodeObject, UInt64?)], _ removed: [RemovedItem], _ updated: [ItemUpdate])
            -> (fresh: [(MachineReadableCodeObject, UInt64?)], removed: [(RemovedItem, shown: Bool)], updated: [ItemUpdate]) {
            var kept = fresh
            if let filter {
                kept = fresh.filter { code, item in
                    if filter.accepts(code) { return true }
                    if let item { heldBack.insert(item) }
                    return false
                }
            }
            let removals = removed.map { ($0, shown: heldBack.remove($0.id) == nil) }
            return (kept, removals, heldBack.isEmpty ? updated : updated.filter { !heldBack.contains($0.id) })
        }
    }

    private let handler: any ResultsHandler
    private let frameDelivered: @Sendable () -> Void
    private let itemRemoved: @Sendable (RemovedItem) -> Void
    private let state: LockedValue<State>
    private let readWindows: ReadWindows?
    private let triggerSettings: @Sendable () -> TriggerSettings

    /// - Parameters:
    ///   - reporting: which readings become code lines.
    ///   - frameDelivered: called after each frame went through the handler (a supervisor's liveness ping).
    ///   - itemRemoved: called for each item removed, before the handler (the metrics' read rates).
    ///   - readWindows: the session's read windows (`trigger.mode: triggered`), each frame's mark taken here.
    ///   - triggerSettings: the trigger settings now (`trigger.expected`, `trigger.window.codes`).
    ///   - filter: which codes reach the handler; `nil`: every one. A read window counts only the codes it lets through.
    public init(handler: any ResultsHandler, reporting: CodeReporting, filter: CodeFilter? = nil, frameDelivered: @escaping @Sendable () -> Void = {},
                itemRemoved: @escaping @Sendable (RemovedItem) -> Void = { _ in }, readWindows: ReadWindows? = nil,
                triggerSettings: @escaping @Sendable () -> TriggerSettings = { TriggerSettings() }) {
        self.readWindows = readWindows
        self.triggerSettings = triggerSettings
        self.handler = handler
        self.frameDelivered = frameDelivered
        self.itemRemoved = itemRemoved
        var state = State(reporting: reporting)
        state.filter = filter
        self.state = LockedValue(state)
    }

    /// From the next frame on, only codes `filter` accepts reach the handler (`nil`: every one).
    /// Items it held back before stay held back until they leave.
    public func setFilter(_ filter: CodeFilter?) { state.withLock { $0.filter = filter } }

    /// Codes handed to the handler so far (an item's first reading, or what suppression and the
    /// filter let through).
    public var emitted: Int { state.withLock { $0.emitted } }

    /// The items' counts so far.
    public var itemStatistics: ItemStatistics { state.withLock { $0.statistics } }

    /// From the next frame on, reports as `reporting` says; leaving items, every item alive is removed.
    public func setReporting(_ reporting: CodeReporting) {
        state.withLock { state in
            if case .items = state.reporting, reporting.itemSettings == nil {
                state.pendingRemovals += state.counted(state.tracker.finish(counts: &state.statistics.readingCheck))
            }
            if let settings = reporting.itemSettings { state.tracker.settings = settings }
            state.suppressor.window = reporting.window
            state.reporting = reporting
        }
    }

    /// Reports what `collection`'s frame read. An `idle` frame (`trigger.mode: presentation`: nothing
    /// changed since the last frame scanned) counts as that frame seen again: its readings (not
    /// those awaiting confirmation: a replay is no second reading) and detections at its frame's
    /// time, so a code held still stays one item and one that left before the scene stilled
    /// leaves after its grace.
    ///
    /// A read window (`ReadWindows`) closes before the first frame outside it, after the codes of
    /// the frame that read its `trigger.window.codes`, or at `finish`: its `ReadResult` goes to
    /// the handler, then the removals of its items.
    public func deliver(_ collection: SynchronizedDataCollection) throws {
        var collection = collection
        let mark = readWindows?.take(collection.sequenceNumber)
        let trigger = mark == nil ? nil : triggerSettings()
        if let mark, let trigger {
            let (closed, late) = state.withLock { state -> (ClosedWindow?, Bool) in
                switch mark {
                case .outside:
                    return (state.closeWindow(expected: trigger.expected), false)
                case .inside(let number, let origin):
                    var closed: ClosedWindow?
                    if let open = state.window, open.number != number { closed = state.closeWindow(expected: trigger.expected) }
                    if state.closedByCodes == number { return (closed, true) }
                    if state.window == nil { state.window = ReadWindowTally(number: number, origin: origin) }
                    return (closed, false)
                }
            }
            if late {  // scanned before the source saw its window closed by codes: as if outside it
                collection.metadata = nil
                collection.video.droppedReason = .untriggered
                collection.video.pixels = nil
            }
            if let closed { try report(closed) }
        }
        let replay = collection.metadata == nil && collection.video.droppedReason == .idle
        if let metadata = collection.metadata ?? (replay ? state.withLock({ $0.lastScanned }) : nil) {
            let frame = collection.video.frame
            let metadata = replay ? SynchronizedMetadataObjectData(presentationTime: collection.video.presentationTime ?? metadata.presentationTime,
                                                                   metadataObjects: metadata.metadataObjects, undecoded: metadata.undecoded)
                : metadata
            let inWindow: Bool
            if case .inside? = mark, collection.video.droppedReason != .untriggered { inWindow = true } else { inWindow = false }
            let (fresh, removed, updated) = state.withLock { state in
                if !replay { state.lastScanned = metadata }
                let filter = state.filter
                var removed = state.pendingRemovals
                state.pendingRemovals = []
                switch state.reporting {
                case .items:
                    let result = state.tracker.track(metadata.metadataObjects, unconfirmed: metadata.unconfirmed, undecoded: metadata.undecoded,
                                                     sequenceNumber: collection.sequenceNumber, pts: metadata.presentationTime,
                                                     width: frame?.width ?? 0, height: frame?.height ?? 0)
                    state.statistics.added += result.added.count
                    state.statistics.readingCheck.add(result.readingCheck)
                    removed += state.counted(result.removed)
                    let passed = state.filtered(result.added.map { ($0.code, Optional($0.item)) }, removed, result.updated)
                    if inWindow { state.window?.add(collection, addedItems: passed.fresh.compactMap { code, item in item.map { (code, $0) } }, accepts: filter) }
                    return passed
                case .window, .everyReading:
                    let fresh = state.suppressor.filter(metadata.metadataObjects, at: metadata.presentationTime)
                    if inWindow { state.window?.add(collection, addedItems: [], accepts: filter) }
                    return state.filtered(fresh.map { ($0, UInt64?.none) }, removed, [])
                }
            }
            try reportUnconfirmed()
            // An item that left is reported before one that appeared in the same frame.
            for (item, shown) in removed {
                itemRemoved(item)
                if shown { try handler.itemRemoved(item) }
            }
            for (code, item) in fresh {
                var delivered = DeliveredCode(code: code, pixels: collection.video.pixels)
                delivered.item = item
                try handler.handle(&delivered)
                state.withLock { $0.emitted += 1 }
            }
            for update in updated { try handler.itemUpdated(update) }
        } else if case .inside? = mark, collection.video.droppedReason != .untriggered {
            state.withLock { $0.window?.add(collection, addedItems: []) }
        }
        if let trigger, trigger.window.codes > 0 {
            let closed = state.withLock { state -> ClosedWindow? in
                guard let open = state.window, open.count(reportingItems: state.reportsItems) >= trigger.window.codes else { return nil }
                state.closedByCodes = open.number
                return state.closeWindow(expected: trigger.expected)
            }
            if let closed {
                readWindows?.closedByCodes(closed.0.window)
                try report(closed)
            }
        }
        if collection.metadata == nil, !replay, let pts = collection.video.presentationTime {
            state.withLock { state in if case .items = state.reporting { state.tracker.unscanned(pts: pts) } }
        }
        try handler.frameCompleted(collection)
        frameDelivered()
    }

    /// Items that left unconfirmed, when asked to report them: each one's first reading
    /// (`"confirmed": false`), then its removal.
    private func reportUnconfirmed() throws {
        let unconfirmed = state.withLock { $0.tracker.takeUnconfirmed() }
        for (code, item) in unconfirmed {
            var delivered = DeliveredCode(code: code)
            (delivered.item, delivered.confirmed) = (item.id, false)
            try handler.handle(&delivered)
            try handler.itemRemoved(item)
        }
    }

    /// A closed window's result, counted and handed to the handler, then the removals of its items.
    private func report(_ closed: ClosedWindow) throws {
        var (result, removed) = closed
        readWindows?.finished(result.window)
        readWindows?.counts.count(result.kind)
        try handler.readResult(&result)
        for (item, shown) in removed {
            itemRemoved(item)
            if shown { try handler.itemRemoved(item) }
        }
    }

    /// The source ended: a read window still open closes (its result delivered), and every item
    /// still present is removed (its `item_removed` written).
    public func finish() throws {
        if readWindows != nil {
            let expected = triggerSettings().expected
            if let closed = state.withLock({ $0.closeWindow(expected: expected) }) { try report(closed) }
        }
        let removed = state.withLock { state in
            defer { state.pendingRemovals = [] }
            return state.filtered([], state.pendingRemovals + state.counted(state.tracker.finish(counts: &state.statistics.readingCheck)), []).removed
        }
        try reportUnconfirmed()
        for (item, shown) in removed {
            itemRemoved(item)
            if shown { try handler.itemRemoved(item) }
        }
    }
}

/// Which readings become code lines.
public enum CodeReporting: Sendable, Hashable {
    /// Each physical code once, as an item, at its first reading; and when it leaves (`ItemTracker`).
    case items(ItemTracker.Settings)
    /// A code's symbology and bytes again only after they were absent for this much frame time
    /// (a decoder's notion of a duplicate: identical labels in view together are one line).
    case window(MediaTime)
    /// Every reading of every frame.
    case everyReading

    var window: MediaTime { if case .window(let window) = self { window } else { .zero } }
    var itemSettings: ItemTracker.Settings? { if case .items(let settings) = self { settings } else { nil } }
}

/// What the items did so far: added, removed, alive now, and the read rates of those removed.
public struct ItemStatistics: Sendable, Hashable {
    /// Upper bounds of the read-rate histogram's buckets (a rate ≤ the bound), the last 1.
    public static let readRateBounds: [Double] = [0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1]

    public var added = 0
    public var removed = 0
    public var alive = 0
    /// Times a frame's timestamp went back, every item removed.
    public var resets = 0
    /// Outlines partly outside their frame.
    public var outlinesOutsideFrame = 0
    /// Items that left unconfirmed (`ItemConfirmation`): followed, never reported.
    public var unconfirmed = 0
    /// Removed items per read-rate bucket (`readRateBounds`, not cumulative).
    public var readRates = [Int](repeating: 0, count: ItemStatistics.readRateBounds.count)
    /// The sum of the read rates of the items removed.
    public var readRateSum = 0.0
    /// What became of the readings their frame could not confirm (`ItemTracker`): confirmed by
    /// an item, misread, dropped; added to the frames' own counts (`ReadingCheckCounts.held`).
    public var readingCheck = ReadingCheckCounts()

    public init() {}

    /// Adds another session's counts (the service's totals over its sessions).
    public mutating func add(_ other: ItemStatistics) {
        (added, removed, alive) = (added + other.added, removed + other.removed, alive + other.alive)
        (resets, outlinesOutsideFrame, readRateSum) = (resets + other.resets, outlinesOutsideFrame + other.outlinesOutsideFrame, readRateSum + other.readRateSum)
        unconfirmed += other.unconfirmed
        for i in readRates.indices { readRates[i] += other.readRates[i] }
        readingCheck.add(other.readingCheck)
    }

    mutating func count(_ item: RemovedItem) {
        removed += 1
        let rate = item.readRate
        readRates[Self.readRateBounds.firstIndex { rate <= $0 } ?? Self.readRateBounds.count - 1] += 1
        readRateSum += rate
    }
}
