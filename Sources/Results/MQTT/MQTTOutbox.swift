import MQTT
import SystemCalls

/// What waits for the MQTT broker, in order: a bounded memory queue, then the spool file; the
/// messages published on the current connection and not yet acknowledged; what is dropped when
/// both are full. A value owned by the MQTT handler's thread; it knows no socket (publishing is
/// a closure), so its rules are tested without a broker.
///
/// Rules: a code goes to memory while memory has room and nothing is spooled, else behind the
/// spooled codes (order is kept); when the spool is full the oldest code of all is dropped
/// (memory's oldest unsent, else the spool's oldest) and counted. Status and stats messages stay
/// in memory, up to twice the bound. A message leaves memory only when acknowledged (and only
/// from the head, so order holds across reconnects); a lost connection makes every
/// unacknowledged message unsent again. A spool that fails is given up (`spoolFailure`) and codes
/// wait in memory only.
struct MQTTOutbox {
    /// One message on its way.
    struct Entry: Sendable {
        let message: MQTTConnection.Message
        /// Codes are counted (published, dropped) and spooled; status and stats messages are not.
        let isCode: Bool
        /// The message id of the connection it was last published on; `nil`: not sent on this one.
        var mid: Int32?
        var acknowledged = false

        init(message: MQTTConnection.Message, isCode: Bool) {
            self.message = message
            self.isCode = isCode
        }
    }

    /// Messages in memory at most (codes; status and stats messages up to twice this).
    let bound: Int
    private(set) var spool: MQTTSpool?
    /// Codes dropped so far: past memory and the spool, or larger than the whole spool.
    private(set) var dropped = 0
    /// Codes acknowledged by the broker so far.
    private(set) var published = 0
    /// The spool's failure that made it be given up, once (the caller logs it and clears it).
    var spoolFailure: IOError?

    /// Oldest first; only the head is removed (acknowledged).
    private var queue: [Entry] = []
    private var head = 0
    /// Message ids of this connection → absolute queue positions (`headPosition` counts every entry ever removed).
    private var inflight: [Int32: Int] = [:]
    private var headPosition = 0

    init(bound: Int, spool: MQTTSpool?) {
        self.bound = max(1, bound)
        self.spool = spool
    }

    /// Messages waiting in memory (sent or not).
    var memoryCount: Int { queue.count - head }
    /// Codes waiting in the spool file.
    var spooledCount: Int { spool?.count ?? 0 }
    /// Nothing waits anywhere.
    var isDrained: Bool { memoryCount == 0 && (spool?.isEmpty ?? true) }
    /// Messages published on this connection and not yet acknowledged.
    var inflightCount: Int { inflight.count }

    /// Places new entries (see the type's rules), then refills memory from the spool.
    mutating func place(_ entries: [Entry]) {
        for entry in entries {
            if entry.isCode, let spool, !spool.isEmpty || memoryCount >= bound {
                switch appendDroppingOldest(entry.message, to: spool) {
                case .success: continue
                case .failure(let error): giveUpSpool(error)
                }
            }
            if entry.isCode {
                if memoryCount >= bound { dropOldest() }
            } else if memoryCount >= 2 * bound {
                continue  // a status or stats message past twice the bound: a newer one follows
            }
            queue.append(entry)
        }
        if case .failure(let error) = refill() { giveUpSpool(error) }
    }

    /// Publishes, in order, what is not on this connection yet, up to `window` unacknowledged
    /// messages; `publish` returns the message id. Stops at the first failure and returns it.
    mutating func publishPending(window: Int = 100,
                                        _ publish: (MQTTConnection.Message) -> Result<Int32, MQTTError>) -> MQTTError? {
        var i = head
        while i < queue.count && inflight.count < window {
            if queue[i].mid == nil && !queue[i].acknowledged {
                switch publish(queue[i].message) {
                case .success(let mid):
                    queue[i].mid = mid
                    inflight[mid] = headPosition + (i - head)
                case .failure(let error): return error
                }
            }
            i += 1
        }
        return nil
    }

    /// The broker acknowledged `mid`: acknowledged entries leave memory from the head; returns
    /// the codes that left (also added to `published`).
    @discardableResult
    mutating func acknowledge(_ mid: Int32) -> Int {
        guard let position = inflight.removeValue(forKey: mid) else { return 0 }
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
        published += delivered
        if case .failure(let error) = refill() { giveUpSpool(error) }
        return delivered
    }

    /// The connection is gone: every unacknowledged message is unsent again (published again,
    /// in order, on the next connection).
    mutating func connectionLost() {
        inflight.removeAll()
        for i in head..<queue.count where !queue[i].acknowledged { queue[i].mid = nil }
    }

    /// At exit: the codes the broker did not take go to the spool before what is there (synced);
    /// returns the codes lost (no spool, no room, or the spool failed).
    mutating func closeForExit() -> Int {
        let left = queue[head...].filter { !$0.acknowledged && $0.isCode }.map(\.message)
        queue.removeAll()
        head = 0
        inflight.removeAll()
        guard let spool else { return left.count }
        switch spool.prepend(left).flatMap({ notFitting in spool.sync().map { notFitting } }) {
        case .success(let notFitting): return notFitting
        case .failure(let error):
            spoolFailure = error
            return left.count
        }
    }

    /// Takes every code not yet delivered, memory's then the spool's, oldest first, leaving the
    /// outbox empty (a reload moves them into one with new bounds or another spool); with the
    /// spool's failure, if it failed (what it still holds stays in its file).
    mutating func takeAll() -> (codes: [MQTTConnection.Message], failure: IOError?) {
        var codes = queue[head...].filter { !$0.acknowledged && $0.isCode }.map(\.message)
        queue.removeAll()
        head = 0
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

    /// Drops the oldest entry in memory (a code is counted).
    private mutating func dropOldest() {
        if queue[head].isCode { dropped += 1 }
        head += 1
        headPosition += 1
    }

    /// Appends to the spool; when full, the oldest code of all (memory, then spool) is dropped until it fits.
    private mutating func appendDroppingOldest(_ message: MQTTConnection.Message, to spool: MQTTSpool) -> Result<Void, IOError> {
        while true {
            switch spool.append(message) {
            case .failure(let error): return .failure(error)
            case .success(true): return .success(())
            case .success(false):
                if spool.isEmpty && memoryCount == 0 {
                    dropped += 1  // larger than the whole spool
                    return .success(())
                }
                if let i = (head..<queue.count).first(where: { queue[$0].isCode && queue[$0].mid == nil }) {
                    // The oldest unsent code in memory goes; the spool's oldest moves up into memory.
                    dropped += 1
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

    /// In-flight ids point at absolute positions; an entry removed in the middle shifts those after it.
    private mutating func reindexInflight(removedAt index: Int) {
        let removed = headPosition + (index - head)
        for (mid, position) in inflight where position > removed { inflight[mid] = position - 1 }
    }

    /// Moves up to `max` of the spool's oldest codes into memory, while it has room.
    private mutating func refill(max: Int = .max) -> Result<Void, IOError> {
        guard let spool else { return .success(()) }
        var moved = 0
        while moved < max && !spool.isEmpty && memoryCount < bound {
            switch spool.removeFirst() {
            case .failure(let error): return .failure(error)
            case .success(let message?):
                queue.append(Entry(message: message, isCode: true))
                moved += 1
            case .success(nil): return .success(())
            }
        }
        return .success(())
    }

    private mutating func giveUpSpool(_ error: IOError) {
        spoolFailure = error
        spool = nil
    }
}
