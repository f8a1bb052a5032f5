import MQTT
import SystemCalls

/// What `MQTTResultsHandler`'s `handle`, `itemRemoved` and accessors share with its thread,
/// under one lock whose condition wakes a `handle` waiting for room, `finish` and the thread's
/// backoff wait.
struct MQTTHandlerShared {
    /// The counters `published`, `queued`, `spooled` and `dropped` read.
    struct Counts {
        var published = 0
        /// Dropped before the thread took them (it fell behind by two whole queues).
        var dropped = 0
        /// Dropped by the thread's outbox (memory and spool full), and left at exit with nowhere to go.
        var outboxDropped = 0
        /// Codes in the thread's memory queue, and those it has taken from `incoming` to place.
        var memory = 0
        var spooled = 0
        /// Items' messages dropped before the thread took them.
        var itemsDropped = 0
        /// Items' messages dropped by the thread's outbox (they are never spooled), and left at exit.
        var outboxItemsDropped = 0
    }

    var incoming: [MQTTOutbox.Entry] = []
    var overflow: OverflowPolicy
    var connected = false
    var online = false
    var started = false
    var closed = false
    var finished = false
    var counts = Counts()
    /// Messages of every kind in the thread's memory queue, and those it has taken from `incoming` to place.
    var memoryMessages = 0

    /// Hands `entry` to the thread. Should the thread fall behind by two whole queues (a slow
    /// name lookup, a slow disk), the oldest waiting entry is dropped (a code or an item's
    /// message is counted).
    mutating func add(_ entry: MQTTOutbox.Entry, bound: Int) {
        if incoming.count >= 2 * bound, let oldest = incoming.indices.first {
            if incoming[oldest].isCode { counts.dropped += 1 }
            if incoming[oldest].isItem { counts.itemsDropped += 1 }
            incoming.remove(at: oldest)
        }
        incoming.append(entry)
    }

    /// With `.wait` while connected, the memory queue (codes and every other message) and
    /// `incoming` hold `bound` messages: `handle` and `itemRemoved` wait for room.
    func isFull(bound: Int) -> Bool {
        overflow == .wait && connected && !closed && memoryMessages + incoming.count >= bound
    }

    /// Codes in memory: the thread's queue, and `incoming`.
    var queuedCodes: Int { counts.memory + incoming.count { $0.isCode } }
}

