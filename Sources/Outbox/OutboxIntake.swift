/// What a handler's callers (`handle`, the counters) share with the thread that drives its
/// `DurableOutbox`, kept under the handler's one lock: the messages handed over and not taken
/// yet, the counters the thread publishes, and where the thread is in its life.
///
/// Read under the lock (`current`), codes handed over = delivered + memory + spooled + dropped,
/// plus what the handler counts apart (the webhook's codes refused for good).
public struct OutboxIntake: Sendable {
    /// The counters the handler's accessors read.
    public struct Counts: Sendable, Hashable {
        /// Codes the receiver took.
        public var delivered = 0
        /// Codes dropped before the thread took them (it fell behind by a whole intake).
        public var droppedWaiting = 0
        /// Codes dropped by the thread's outbox (memory and spool full), and left at exit with nowhere to go.
        public var droppedByOutbox = 0
        /// Codes in the thread's memory queue, and those it has taken to place (`current` adds those handed over).
        public var memory = 0
        /// Codes in the spool file.
        public var spooled = 0
        /// Items' messages dropped before the thread took them.
        public var itemsDroppedWaiting = 0
        /// Items' messages dropped by the thread's outbox (they are never spooled), and left at exit.
        public var itemsDroppedByOutbox = 0

        public init() {}

        /// Every code dropped: before the thread took it, or by the outbox.
        public var dropped: Int { droppedWaiting + droppedByOutbox }
        /// Every item's message dropped.
        public var itemsDropped: Int { itemsDroppedWaiting + itemsDroppedByOutbox }
    }

    /// Handed over, oldest first; the thread takes them all at once (`take`).
    public private(set) var waiting: [OutboxMessage] = []
    /// The counters as the thread last published them (`current` adds the codes waiting to `memory`).
    public private(set) var counts = Counts()
    /// Messages of every kind in the thread's memory queue, and those it has taken to place.
    public private(set) var memoryMessages = 0
    /// The thread was started (once: `claimStart`).
    public private(set) var started = false
    /// The handler takes no more: the thread delivers, spools or drops what it holds, then ends.
    public var closed = false
    /// The thread has ended; the counters are final.
    public var finished = false

    public init() {}

    /// Whether the caller is the one to start the thread: `true` once, then `false`.
    public mutating func claimStart() -> Bool {
        defer { started = true }
        return !started
    }

    /// Hands `message` to the thread. Should the thread fall behind by `limit` messages (a slow
    /// name lookup, a slow disk), the oldest waiting one is dropped (a code or an item's message is counted).
    public mutating func add(_ message: OutboxMessage, limit: Int) {
        if waiting.count >= limit, let oldest = waiting.first {
            if oldest.isCode { counts.droppedWaiting += 1 }
            if oldest.isItem { counts.itemsDroppedWaiting += 1 }
            waiting.removeFirst()
        }
        waiting.append(message)
    }

    /// Codes in memory: the thread's queue, and those handed over.
    public var queuedCodes: Int { counts.memory + waiting.count { $0.isCode } }

    /// The counters with `memory` counting the codes handed over too (`queuedCodes`).
    public var current: Counts {
        var current = counts
        current.memory = queuedCodes
        return current
    }

    /// The thread takes what was handed over: counted in memory until `record` says where its outbox put it.
    public mutating func take() -> [OutboxMessage] {
        defer { waiting.removeAll(keepingCapacity: true) }
        counts.memory += waiting.count { $0.isCode }
        memoryMessages += waiting.count
        return waiting
    }

    /// The thread publishes where `outbox` holds the codes, what it `delivered` (as the handler
    /// counts it) and what was dropped besides the outbox's own (`droppedBefore`: outboxes a
    /// reload replaced, codes lost at exit).
    public mutating func record(_ outbox: DurableOutbox, delivered: Int, droppedBefore: Int = 0) {
        counts.delivered = delivered
        counts.memory = outbox.memoryCodes
        memoryMessages = outbox.memoryCount
        counts.spooled = outbox.spooledCount
        counts.droppedByOutbox = droppedBefore + outbox.dropped
        counts.itemsDroppedByOutbox = outbox.itemsDropped
    }
}
