import SystemCalls

/// What waits for a receiver (an MQTT broker, a webhook URL), in order: a bounded memory queue,
/// then the spool file; the messages sent and not yet acknowledged; what is dropped when both are
/// full. A value owned by its handler's thread; it knows no socket (sending is a closure), so its
/// rules are tested without a receiver.
///
/// Rules: a code goes to memory while memory has room and nothing is spooled, else behind the
/// spooled codes (order is kept); when the spool is full the oldest code of all is dropped
/// (memory's oldest unsent, else the spool's oldest) and counted. Status and stats messages stay
/// in memory, up to twice the bound; so do items' messages, which are never spooled: those past
/// twice the bound, dropped for a code's room or left at exit are counted (`itemsDropped`).
/// A message leaves memory only when acknowledged (and only
/// from the head, so order holds across reconnects); a lost connection makes every
/// unacknowledged message unsent again.
///
/// Every code handed to `place` is at every moment in exactly one of: memory, the spool file,
/// `delivered`, `dropped`. A spool that cannot be written (a full disk, EIO) or opened is not
/// given up: its records stay counted and are still taken into memory as room allows, new codes
/// wait in memory (past its bound the oldest is dropped and counted at once), and writing is
/// tried again after a backoff (`SpoolRetry`), so the spool takes codes again, in the same run,
/// once the disk has room. While it cannot be written, codes kept in memory may go out ahead of
/// older ones still in the file.
public struct DurableOutbox {
    /// One message in memory, and where it was sent.
    private struct Slot {
        let message: OutboxMessage
        /// The id it was last sent under on the current connection; `nil`: not sent on this one.
        var id: Int32?
        var acknowledged = false

        var isCode: Bool { message.isCode }
        var isItem: Bool { message.isItem }
    }

    /// Messages in memory at most (codes; status, stats and items' messages up to twice this).
    public let bound: Int
    /// The spool file, kept while it fails (its records stay counted and are read back).
    public private(set) var spool: SpoolFile?
    /// Opens the spool: at `init`, and again after a backoff while it has not opened.
    private let openSpool: (() -> Result<SpoolFile, IOError>)?
    private var retry: SpoolRetry
    private var spoolEvents: [SpoolEvent] = []
    /// Codes dropped so far: past memory and the spool, or larger than the whole spool.
    public private(set) var dropped = 0
    /// Codes acknowledged so far: the receiver took them (a webhook receiver may also have
    /// refused them for good; its handler counts those apart).
    public private(set) var delivered = 0
    /// Items' messages dropped so far: past twice the bound, for a code's room, or left at exit.
    public private(set) var itemsDropped = 0

    /// Oldest first; only the head is removed (acknowledged).
    private var queue: [Slot] = []
    private var head = 0
    /// Ids of this connection → absolute queue positions (`headPosition` counts every message ever removed).
    private var inflight: [Int32: Int] = [:]
    private var headPosition = 0

    /// An outbox over `spool` (or none).
    /// - Parameter clock: now, for the spool's retries (tests advance it by hand).
    public init(bound: Int, spool: SpoolFile?, clock: @escaping () -> ContinuousClock.Instant = { .now }) {
        self.bound = max(1, bound)
        self.spool = spool
        openSpool = nil
        retry = SpoolRetry(clock: clock)
    }

    /// An outbox whose spool `open` opens now, and again after a backoff while it fails (a
    /// directory not writable yet, a full disk).
    public init(bound: Int, openingSpool open: @escaping () -> Result<SpoolFile, IOError>, clock: @escaping () -> ContinuousClock.Instant = { .now }) {
        self.bound = max(1, bound)
        openSpool = open
        retry = SpoolRetry(clock: clock)
        reopenSpoolIfDue()
    }

    /// The spool's failures and recoveries since the last call, oldest first (the caller logs them).
    public mutating func takeSpoolEvents() -> [SpoolEvent] {
        defer { spoolEvents.removeAll() }
        return spoolEvents
    }

    /// Messages waiting in memory (sent or not).
    public var memoryCount: Int { queue.count - head }
    /// Codes waiting in memory (sent or not): `memoryCount` less status and stats messages.
    public private(set) var memoryCodes = 0
    /// Codes waiting in the spool file.
    public var spooledCount: Int { spool?.count ?? 0 }
    /// Nothing waits anywhere.
    public var isDrained: Bool { memoryCount == 0 && (spool?.isEmpty ?? true) }
    /// Messages sent on this connection and not yet acknowledged.
    public var inflightCount: Int { inflight.count }

    /// Places new messages (see the type's rules), then refills memory from the spool.
    public mutating func place(_ messages: [OutboxMessage]) {
        reopenSpoolIfDue()
        for message in messages {
            if message.isCode, let spool, retry.isDue, !spool.isEmpty || memoryCount >= bound {
                switch appendDroppingOldest(message, to: spool) {
                case .success:
                    spoolWorked()
                    continue
                case .failure(let error): spoolFailed(error)
                }
            }
            if message.isCode {
                if memoryCount >= bound { dropOldest() }
            } else if memoryCount >= 2 * bound {
                // A status or stats message past twice the bound: a newer one follows. An item's is counted.
                if message.isItem { itemsDropped += 1 }
                continue
            }
            queue.append(Slot(message: message))
            if message.isCode { memoryCodes += 1 }
        }
        if case .failure(let error) = refill() { spoolFailed(error) }
    }

    /// Sends, in order, what is not on this connection yet, up to `window` unacknowledged
    /// messages; `send` returns the id the message is acknowledged by. Stops at the first failure and returns it.
    public mutating func publishPending<Failure: Error>(window: Int = 100, _ send: (OutboxMessage) -> Result<Int32, Failure>) -> Failure? {
        var i = head
        while i < queue.count && inflight.count < window {
            if queue[i].id == nil && !queue[i].acknowledged {
                switch send(queue[i].message) {
                case .success(let id):
                    queue[i].id = id
                    inflight[id] = headPosition + (i - head)
                case .failure(let error): return error
                }
            }
            i += 1
        }
        return nil
    }

    /// The receiver acknowledged `id`: acknowledged messages leave memory from the head; returns
    /// the codes that left (also added to `delivered`).
    @discardableResult
    public mutating func acknowledge(_ id: Int32) -> Int {
        guard let position = inflight.removeValue(forKey: id) else { return 0 }
        let i = head + (position - headPosition)
        guard i >= head && i < queue.count else { return 0 }
        queue[i].acknowledged = true
        var delivered = 0
        while head < queue.count && queue[head].acknowledged {
            if queue[head].isCode { delivered += 1 }
            head += 1
            headPosition += 1
        }
        if head > 256 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        self.delivered += delivered
        memoryCodes -= delivered
        if case .failure(let error) = refill() { spoolFailed(error) }
        return delivered
    }

    /// The connection is gone (or a request failed): every unacknowledged message is unsent
    /// again (sent again, in order, on the next attempt).
    public mutating func connectionLost() {
        inflight.removeAll()
        for i in head..<queue.count where !queue[i].acknowledged { queue[i].id = nil }
    }

    /// At exit: the codes the receiver did not take go to the spool before what is there (synced);
    /// returns the codes lost (no spool, no room, or the spool failed); items' messages left are
    /// dropped and counted. Where the disk has no room
    /// for the rewritten copy that puts them first, they are added after what is there instead,
    /// as many as fit (out of order, not lost).
    public mutating func closeForExit() -> Int {
        let left = queue[head...].filter { !$0.acknowledged && $0.isCode }.map(\.message)
        itemsDropped += queue[head...].count { !$0.acknowledged && $0.isItem }
        queue.removeAll()
        (head, memoryCodes) = (0, 0)
        inflight.removeAll()
        reopenSpoolIfDue()
        guard let spool else { return left.count }
        switch spool.prepend(left) {
        case .success(let notFitting):
            if case .failure(let error) = spool.sync() { spoolEvents.append(.failed(error)) }
            return notFitting
        case .failure(let error):
            spoolEvents.append(.failed(error))
            var lost = 0
            for message in left {
                switch spool.append(message) {
                case .success(true): continue
                case .success(false), .failure: lost += 1
                }
            }
            _ = spool.sync()
            return lost
        }
    }

    /// Takes every code not yet delivered, memory's then the spool's, oldest first, leaving the
    /// outbox empty (a reload moves them into one with new bounds or another spool); with the
    /// spool's failure, if it failed (what it still holds stays in its file). Items' messages
    /// in memory are dropped and counted.
    public mutating func takeAll() -> (codes: [OutboxMessage], failure: IOError?) {
        var codes = queue[head...].filter { !$0.acknowledged && $0.isCode }.map(\.message)
        itemsDropped += queue[head...].count { !$0.acknowledged && $0.isItem }
        queue.removeAll()
        (head, memoryCodes) = (0, 0)
        inflight.removeAll()
        guard let spool else { return (codes, nil) }
        while true {
            switch spool.removeFirst() {
            case .success(let message?): codes.append(message)
            case .success(nil): return (codes, nil)
            case .failure(let error): return (codes, error)
            }
        }
    }

    /// Drops the oldest message in memory (a code or an item's message is counted).
    private mutating func dropOldest() {
        if queue[head].isCode { dropped += 1; memoryCodes -= 1 }
        if queue[head].isItem { itemsDropped += 1 }
        head += 1
        headPosition += 1
    }

    /// Appends to the spool; when full, the oldest code of all (memory, then spool) is dropped until it fits.
    private mutating func appendDroppingOldest(_ message: OutboxMessage, to spool: SpoolFile) -> Result<Void, IOError> {
        while true {
            switch spool.append(message) {
            case .failure(let error): return .failure(error)
            case .success(true): return .success(())
            case .success(false):
                if spool.isEmpty && memoryCount == 0 {
                    dropped += 1  // larger than the whole spool
                    return .success(())
                }
                if let i = (head..<queue.count).first(where: { queue[$0].isCode && queue[$0].id == nil }) {
                    // The oldest unsent code in memory goes; the spool's oldest moves up into memory.
                    dropped += 1
                    memoryCodes -= 1
                    queue.remove(at: i)
                    reindexInflight(removedAt: i)
                    if case .failure(let error) = refill(max: 1) { return .failure(error) }
                } else {
                    switch spool.removeFirst() {
                    case .failure(let error): return .failure(error)
                    case .success: dropped += 1
                    }
                }
            }
        }
    }

    /// In-flight ids point at absolute positions; a message removed in the middle shifts those after it.
    private mutating func reindexInflight(removedAt index: Int) {
        let removed = headPosition + (index - head)
        for (id, position) in inflight where position > removed { inflight[id] = position - 1 }
    }

    /// Moves up to `max` of the spool's oldest codes into memory, while it has room.
    private mutating func refill(max: Int = .max) -> Result<Void, IOError> {
        guard let spool else { return .success(()) }
        var moved = 0
        while moved < max && !spool.isEmpty && memoryCount < bound {
            switch spool.removeFirst() {
            case .failure(let error): return .failure(error)
            case .success(let message?):
                queue.append(Slot(message: message))
                memoryCodes += 1
                moved += 1
            case .success(nil): return .success(())
            }
        }
        return .success(())
    }

    /// A spool call failed: writing waits for the backoff; the file and its records are kept.
    private mutating func spoolFailed(_ error: IOError) {
        if !retry.isFailing { spoolEvents.append(.failed(error)) }
        retry.failed()
    }

    /// A spool call worked: after a failure, the spool is back.
    private mutating func spoolWorked() {
        if retry.isFailing { spoolEvents.append(.recovered) }
        retry.worked()
    }

    /// Opens the spool when it has not opened yet and its retry is due.
    private mutating func reopenSpoolIfDue() {
        guard spool == nil, let openSpool, retry.isDue else { return }
        switch openSpool() {
        case .success(let opened):
            spool = opened
            spoolWorked()
        case .failure(let error): spoolFailed(error)
        }
    }
}
