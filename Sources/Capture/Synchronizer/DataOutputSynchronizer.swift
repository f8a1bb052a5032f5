import Foundation
import Media
import SystemCalls

/// Delivers one `SynchronizedDataCollection` per frame, in frame order, with video as the
/// master clock (AVFoundation's `AVCaptureDataOutputSynchronizer`).
///
/// The source thread opens a slot for every sequence number as it arrives (`open`), filling
/// it at once when the frame is dropped; scanning threads fill the slot of the frame they
/// scanned (`fill`). Slots leave from the head only when filled, so collections come out in
/// order however the scans finish, and every sequence number comes out exactly once. The
/// number of open slots is bounded by the frames in flight plus the drops behind the oldest.
///
/// Delivery runs outside the lock, so a slow delivery (a stdout reader that does not keep up)
/// holds up neither `statistics` nor the threads opening and filling slots. One thread delivers
/// at a time: collections that leave the head while it delivers wait in an outbox, and it
/// delivers them, in order, before it returns.
///
/// This is also the pipeline's ledger: `statistics` counts what came out.
public final class DataOutputSynchronizer: Sendable {
    public typealias Delivery = @Sendable (SynchronizedDataCollection) throws -> Void

    /// The slots, the ledger and the outbox, under the synchronizer's one lock.
    private struct State {
        var slots: [SynchronizedDataCollection?] = []
        var head = 0
        /// Sequence number of `slots[head]`.
        var headSequence: UInt64?
        var stats = CaptureStatistics()
        var firstDeliveryError: (any Error)?
        /// Collections that left the head, in order, not yet handed to `deliver`.
        var outbox: [SynchronizedDataCollection] = []
        /// Empty storage the outbox takes when a batch leaves it (`deliverOutbox`).
        var spare: [SynchronizedDataCollection] = []
        /// Whether a thread is running `deliverOutbox()`.
        var delivering = false

        /// Moves the filled head slots to the outbox; true when the caller must deliver it (no thread is).
        mutating func drain() -> Bool {
            while head < slots.count, let collection = slots[head] {
                slots[head] = nil
                head += 1
                headSequence! += 1
                stats.record(collection)
                if firstDeliveryError == nil { outbox.append(collection) }
            }
            if head > 256 && head * 2 > slots.count {
                slots.removeFirst(head)
                head = 0
            }
            guard !delivering, !outbox.isEmpty else { return false }
            delivering = true
            return true
        }
    }

    private let state = LockedValue(State())
    private let deliver: Delivery

    /// - Parameter deliver: called serially, in sequence order, once per frame. An error it throws
    ///   stops delivery; `deliveryError` reports it so the session can stop.
    public init(deliver: @escaping Delivery) {
        self.deliver = deliver
    }

    /// Opens the slot for the next sequence number; `collection` fills it now (a drop), `nil`
    /// leaves it for `fill`. Sequence numbers must arrive consecutively.
    public func open(_ sequenceNumber: UInt64, with collection: SynchronizedDataCollection? = nil) {
        let mustDeliver = state.withLock { state in
            if state.headSequence == nil { state.headSequence = sequenceNumber }
            precondition(sequenceNumber == state.headSequence! + UInt64(state.slots.count - state.head),
                         "sequence \(sequenceNumber) opened out of order")
            state.slots.append(collection)
            return state.drain()
        }
        if mustDeliver { deliverOutbox() }
    }

    /// Fills the open slot of `collection.sequenceNumber`.
    public func fill(_ collection: SynchronizedDataCollection) {
        let mustDeliver = state.withLock { state in
            guard let base = state.headSequence, collection.sequenceNumber >= base else {
                preconditionFailure("sequence \(collection.sequenceNumber) filled but never opened")
            }
            let index = state.head + Int(collection.sequenceNumber - base)
            precondition(index < state.slots.count && state.slots[index] == nil, "sequence \(collection.sequenceNumber) filled twice")
            state.slots[index] = collection
            return state.drain()
        }
        if mustDeliver { deliverOutbox() }
    }

    /// Counts a frame the source delivered under the previous frame's number: it has no slot of
    /// its own and is not scanned.
    public func noteRepeatedSequenceNumber() {
        state.withLock { $0.stats.repeatedSequenceNumbers += 1 }
    }

    /// Counts so far: frames delivered, scanned, dropped by reason, codes.
    public var statistics: CaptureStatistics { state.withLock { $0.stats } }

    /// The first error the delivery closure threw, if any.
    public var deliveryError: (any Error)? { state.withLock { $0.firstDeliveryError } }

    /// Slots opened and not yet handed to delivery (the outbox included).
    public var pendingCount: Int { state.withLock { $0.slots.count - $0.head + $0.outbox.count } }

    /// Delivers the outbox, without the lock, until it is empty; then another thread may deliver.
    ///
    /// The outbox and the batch delivered trade storage (`State.spare`), so a delivery allocates nothing.
    private func deliverOutbox() {
        var batch: [SynchronizedDataCollection] = []
        while true {
            let discarded = state.withLock { state -> [SynchronizedDataCollection]? in
                // The batch delivered last, emptied, is the outbox's next storage.
                if batch.capacity > state.spare.capacity { swap(&batch, &state.spare) }
                guard !state.outbox.isEmpty, state.firstDeliveryError == nil else {
                    state.delivering = false
                    guard !state.outbox.isEmpty else { return [] }  // the outbox keeps its storage
                    let discarded = state.outbox
                    state.outbox.removeAll()
                    return discarded
                }
                batch.removeAll(keepingCapacity: true)
                swap(&batch, &state.outbox)
                swap(&state.outbox, &state.spare)
                return nil
            }
            if let discarded {
                // Released after unlocking: a collection's pixel copy goes back to its pool's lock.
                withExtendedLifetime(discarded) {}
                return
            }
            for index in batch.indices {
                let collection = batch[index]
                // Out of the synchronizer: its pixel copy no longer waits for frames ahead of it.
                collection.video.pixels?.markDelivered()
                do { try deliver(collection) } catch {
                    state.withLock { $0.firstDeliveryError = error }
                    break
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}

/// What left the pipeline: every frame is scanned or dropped with a reason.
public struct CaptureStatistics: Sendable, Hashable {
    /// Collections delivered (one per sequence number).
    public var frames = 0
    public var scanned = 0
    public var dropped: [DroppedReason: Int] = [:]
    public var codes = 0
    /// `codes` by symbology (the values add up to `codes`).
    public var codesBySymbology: [Symbology: Int] = [:]
    /// `codes` by the pass that read them (the values add up to `codes`).
    public var codesByPass: [DecoderPass: Int] = [:]
    /// Harder passes cut by the frame's time budget (`effort: auto` on a live source), by pass.
    public var passesCut: [DecoderPass: Int] = [:]
    /// Readings the engine's reading check confirmed, settled, held back and dropped (`ReadingCheckCounts`).
    public var readingCheck = ReadingCheckCounts()
    /// Frames the source delivered under an already used sequence number (left out of the ledger).
    public var repeatedSequenceNumbers = 0

    public init() {}

    public var droppedTotal: Int { dropped.values.reduce(0, +) }

    /// Adds the counts of a later run (after a restart) to these.
    public mutating func add(_ other: CaptureStatistics) {
        frames += other.frames
        scanned += other.scanned
        codes += other.codes
        repeatedSequenceNumbers += other.repeatedSequenceNumbers
        for (reason, n) in other.dropped { dropped[reason, default: 0] += n }
        for (symbology, n) in other.codesBySymbology { codesBySymbology[symbology, default: 0] += n }
        for (pass, n) in other.codesByPass { codesByPass[pass, default: 0] += n }
        for (pass, n) in other.passesCut { passesCut[pass, default: 0] += n }
        readingCheck.add(other.readingCheck)
    }

    mutating func record(_ c: SynchronizedDataCollection) {
        frames += 1
        if let reason = c.video.droppedReason {
            dropped[reason, default: 0] += 1
        } else {
            scanned += 1
            // Readings awaiting confirmation (by their items, or an engine's check) were found too.
            func count(_ found: [MachineReadableCodeObject]) {
                for code in found {
                    codes += 1
                    codesBySymbology[code.symbology, default: 0] += 1
                    codesByPass[code.pass, default: 0] += 1
                }
            }
            count(c.metadata?.metadataObjects ?? [])
            count(c.metadata?.unconfirmed ?? [])
            for pass in c.metadata?.passesCut ?? [] { passesCut[pass, default: 0] += 1 }
            if let check = c.metadata?.readingCheck { readingCheck.add(check) }
        }
    }
}
