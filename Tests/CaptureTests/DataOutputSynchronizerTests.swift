import Foundation
import Media
import SystemCalls
import TestSupport
import Testing
@testable import Capture

/// Collects what a synchronizer delivers.
final class CollectionRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _collections: [SynchronizedDataCollection] = []
    var collections: [SynchronizedDataCollection] { lock.withLock { _collections } }
    func append(_ c: SynchronizedDataCollection) { lock.withLock { _collections.append(c) } }
}

private func scanned(_ seq: UInt64, codes: [MachineReadableCodeObject] = []) -> SynchronizedDataCollection {
    let pts = MediaTime(nanoseconds: Int64(seq) * 1000)
    let info = FrameInfo(sequenceNumber: seq, presentationTime: pts, width: 4, height: 4, format: .grey)
    return SynchronizedDataCollection(
        video: SynchronizedVideoData(sequenceNumber: seq, presentationTime: pts, frame: info, droppedReason: nil),
        metadata: SynchronizedMetadataObjectData(presentationTime: pts, metadataObjects: codes))
}

private func dropped(_ seq: UInt64, _ reason: DroppedReason) -> SynchronizedDataCollection {
    SynchronizedDataCollection(
        video: SynchronizedVideoData(sequenceNumber: seq, presentationTime: nil, frame: nil, droppedReason: reason),
        metadata: nil)
}

@Suite(.offThePool) struct DataOutputSynchronizerTests {
    @Test func deliversInSequenceOrderWhateverOrderScansFinish() {
        let recorder = CollectionRecorder()
        let sync = DataOutputSynchronizer { recorder.append($0) }
        for seq in UInt64(10)..<16 { sync.open(seq) }
        #expect(recorder.collections.isEmpty)
        for seq: UInt64 in [13, 11, 15, 12] { sync.fill(scanned(seq)) }
        #expect(recorder.collections.isEmpty, "the head (10) is still scanning")
        sync.fill(scanned(10))
        #expect(recorder.collections.map(\.sequenceNumber) == [10, 11, 12, 13])
        sync.fill(scanned(14))
        #expect(recorder.collections.map(\.sequenceNumber) == [10, 11, 12, 13, 14, 15])
        #expect(sync.pendingCount == 0)
    }

    @Test func droppedFramesAreDeliveredInPlaceWithTheirReason() {
        let recorder = CollectionRecorder()
        let sync = DataOutputSynchronizer { recorder.append($0) }
        sync.open(0)
        sync.open(1, with: dropped(1, .lateData))
        sync.open(2, with: dropped(2, .discontinuity))
        sync.open(3)
        sync.fill(scanned(3))
        #expect(recorder.collections.isEmpty)
        sync.fill(scanned(0))
        let out = recorder.collections
        #expect(out.map(\.sequenceNumber) == [0, 1, 2, 3])
        #expect(out.map(\.video.droppedReason) == [nil, .lateData, .discontinuity, nil])
        #expect(out.map(\.video.wasDropped) == [false, true, true, false])
        #expect(out[1].metadata == nil && out[0].metadata?.metadataObjects == [])
        let stats = sync.statistics
        #expect(stats.frames == 4 && stats.scanned == 2 && stats.dropped[.lateData] == 1 && stats.dropped[.discontinuity] == 1)
    }

    @Test func aDeliveryErrorIsKeptAndLaterCollectionsAreStillCounted() {
        struct Closed: Error {}
        let sync = DataOutputSynchronizer { c in if c.sequenceNumber == 1 { throw Closed() } }
        for seq in UInt64(0)..<3 { sync.open(seq, with: scanned(seq)) }
        #expect(sync.deliveryError is Closed)
        #expect(sync.statistics.frames == 3)
    }

    @Test func manySlotsStayConsistentAcrossCompaction() {
        let recorder = CollectionRecorder()
        let sync = DataOutputSynchronizer { recorder.append($0) }
        // Keep a few slots open at a time so the slot array is compacted repeatedly.
        for seq in UInt64(0)..<2000 {
            sync.open(seq)
            if seq >= 3 { sync.fill(scanned(seq - 3)) }
        }
        for seq in UInt64(1997)..<2000 { sync.fill(scanned(seq)) }
        #expect(recorder.collections.map(\.sequenceNumber) == Array(0..<2000))
    }
}

/// Delivery runs outside the synchronizer's lock: a delivery blocked on a slow reader holds up
/// neither the statistics nor another thread opening and filling slots; order is kept.
@Suite(.offThePool) struct DataOutputSynchronizerBlockedDeliveryTests {
    @Test func statisticsAndFillsProceedWhileADeliveryIsBlocked() {
        let recorder = CollectionRecorder()
        // Steps seen by both threads: delivery of seq 0 entered, released, the other thread done.
        let steps = LockedValue((entered: false, released: false, readDone: false))
        let sync = DataOutputSynchronizer { c in
            if c.sequenceNumber == 0 {
                steps.withLock { $0.entered = true }
                steps.broadcast()
                steps.withLock(when: { $0.released }, deadline: .now + hangTimeout) { _, _ in }
            }
            recorder.append(c)
        }
        Thread { sync.open(0, with: scanned(0)) }.start()   // delivers seq 0, which blocks
        #expect(waitUntil(every: .milliseconds(1)) { steps.withLock { $0.entered } })
        Thread {
            _ = sync.statistics
            sync.open(1); sync.fill(scanned(1))               // queued behind the blocked delivery
            _ = sync.pendingCount
            steps.withLock { $0.readDone = true }
        }.start()
        // The delivery stays blocked until the test releases it: had statistics/open/fill waited
        // for it, they would never be done (only the hang deadline would end the wait).
        let unblocked = waitUntil(every: .milliseconds(1)) { steps.withLock { $0.readDone } }
        #expect(unblocked, "statistics/open/fill waited for the blocked delivery")
        #expect(!steps.withLock { $0.released })
        steps.withLock { $0.released = true }
        steps.broadcast()
        waitUntil { recorder.collections.count >= 2 }
        #expect(recorder.collections.map(\.sequenceNumber) == [0, 1])
        #expect(sync.statistics.frames == 2)
    }
}
