import Decoders
import Media
import SystemCalls
import Testing
@testable import Capture

/// Records what reaches a handler: codes, removed items, updates.
private final class Recorder: ResultsHandler, @unchecked Sendable {
    private let seen = LockedValue<(codes: [String], removed: [UInt64], updated: [UInt64])>(([], [], []))
    func handle(_ code: inout DeliveredCode) throws {
        let text = code.code.text ?? ""
        seen.withLock { $0.codes.append(text) }
    }
    func itemRemoved(_ item: RemovedItem) throws { seen.withLock { $0.removed.append(item.id) } }
    func itemUpdated(_ update: ItemUpdate) throws { seen.withLock { $0.updated.append(update.id) } }
    var codes: [String] { seen.withLock { $0.codes } }
    var removed: [UInt64] { seen.withLock { $0.removed } }
    var updated: [UInt64] { seen.withLock { $0.updated } }
}

private let keepOnly = CodeFilter(name: "keep") { $0.text?.hasPrefix("keep") == true }

/// Frame `seq` (30 frames/s, 320×240) with `texts` as codes side by side (or none).
private func frame(_ seq: UInt64, _ texts: [String]) -> SynchronizedDataCollection {
    let pts = MediaTime(nanoseconds: Int64(seq) * 33_333_333)
    let info = FrameInfo(sequenceNumber: seq, presentationTime: pts, width: 320, height: 240, format: .grey)
    let codes = texts.enumerated().map { i, text in
        let x = 20 + 150 * i
        return MachineReadableCodeObject(symbology: .qrcode, data: Array(text.utf8), text: text, quality: 1, orientation: .up,
                                         corners: [PixelPoint(x: x, y: 50), PixelPoint(x: x + 100, y: 50), PixelPoint(x: x + 100, y: 150),
                                                   PixelPoint(x: x, y: 150)], frame: info, pass: .zbar)
    }
    return SynchronizedDataCollection(video: SynchronizedVideoData(sequenceNumber: seq, presentationTime: pts, frame: info, droppedReason: nil),
                                      metadata: SynchronizedMetadataObjectData(presentationTime: pts, metadataObjects: codes))
}

@Suite struct DeliveryFilterTests {
    /// Two items in view, one the filter refuses: only the other's code line, updates and removal
    /// reach the handler; both are tracked (the metrics' removal callback sees both).
    @Test func aRefusedItemsCodeUpdatesAndRemovalAreHeldBack() throws {
        let handler = Recorder()
        let removedSeen = LockedValue<[UInt64]>([])
        let delivery = Delivery(handler: handler, reporting: .items(ItemTracker.Settings(updateInterval: MediaTime(nanoseconds: 1))),
                                filter: keepOnly, itemRemoved: { item in removedSeen.withLock { $0.append(item.id) } })
        for seq in UInt64(0)..<5 { try delivery.deliver(frame(seq, ["keep me", "drop me"])) }
        for seq in UInt64(5)..<25 { try delivery.deliver(frame(seq, [])) }
        try delivery.finish()
        #expect(handler.codes == ["keep me"])
        #expect(delivery.emitted == 1)
        #expect(removedSeen.withLock { $0 }.count == 2, "both items tracked and removed")
        let kept = try #require(removedSeen.withLock { $0 }.first { handler.removed.contains($0) })
        #expect(handler.removed == [kept], "only the kept item's removal")
        #expect(!handler.updated.isEmpty && handler.updated.allSatisfy { $0 == kept }, "only the kept item's updates: \(handler.updated)")
    }

    /// Without items (every reading): each reading is tested; a filter set by a reload applies
    /// from the next frame, and removing it lets every code through again.
    @Test func everyReadingIsTestedAndAReloadChangesTheFilter() throws {
        let handler = Recorder()
        let delivery = Delivery(handler: handler, reporting: .everyReading)
        try delivery.deliver(frame(0, ["keep 1", "drop 1"]))
        delivery.setFilter(keepOnly)
        try delivery.deliver(frame(1, ["keep 2", "drop 2"]))
        delivery.setFilter(nil)
        try delivery.deliver(frame(2, ["keep 3", "drop 3"]))
        #expect(handler.codes == ["keep 1", "drop 1", "keep 2", "keep 3", "drop 3"])
        #expect(delivery.emitted == 5)
    }
}
