@testable import Capture
import Decoders
import Foundation
import Logging
import Media
import TestSupport
import Testing
@testable import LiveView

/// The items of `event` (a sightings object): id → label and corners.
private func items(_ event: [String: Any]) -> [Int: (label: String?, corners: [[Int]])] {
    Dictionary(uniqueKeysWithValues: (event["items"] as? [[String: Any]] ?? []).map {
        ($0["item"] as? Int ?? -1, ($0["label"] as? String, $0["corners"] as? [[Int]] ?? []))
    })
}

@Suite(.offThePool) struct LiveViewItemsTests {
    /// A QR code read in 3 frames, then detected without being read (its data wiped) in 6, then
    /// gone (blank frames) past the item's grace, through the real tracker and zxing-cpp: its
    /// code line and the readings of it carry item 1; every sightings lists item 1 with its corners
    /// from its first reading to its removal, through the frames that did not read it; the one
    /// after the removal names it in `removed` and lists no item; one more (the first with nothing
    /// after one with something), and nothing after that.
    @Test func theEventsCarryTheItemFromItsFirstReadingUntilItsRemoval() throws {
        var readable = GreyFrame(width: 480, height: 240)
        let code = readable.draw(try ModuleMatrix.qrCode("read me"), centerX: 110, centerY: 120, moduleSize: 4)
        let wiped = readable.withDataRowsWiped(of: code), blank = GreyFrame(width: 480, height: 240)
        let scanner = MetadataOutput(settings: MetadataOutput.Settings(engine: .zxing, effort: .fast, reportsUndecoded: true)).makeScanner()
        var settings = LiveViewSettings()
        settings.outlinesPerSecond = 1e9  // every frame due: what is sent is the frames', not a clock's
        let liveView = LiveViewResultsHandler(settings: settings, source: "y4m:test", logger: Logger(label: "test"))
        liveView.start()
        let viewer = liveView.hub.openEvents()
        let delivery = Delivery(handler: liveView, reporting: .items(ItemTracker.Settings()))
        // 30 frames/s: 3 read, 6 detected only (0.2 s), then blank: removed once unseen past the 1 s grace.
        let frames = (0..<3).map { _ in readable } + (0..<6).map { _ in wiped } + (0..<40).map { _ in blank }
        for (seq, frame) in frames.enumerated() { try delivery.deliver(scannedCollection(frame, seq: UInt64(seq), scanner: scanner)) }
        let text = pendingEvents(viewer)
        viewer.close()
        try liveView.finish()

        let line = try #require(text.components(separatedBy: "\ndata: ").dropFirst().first { $0.hasPrefix("{\"type\":\"code\"") })
        #expect(line.contains("\"item\":1,"), "the code line carries its item: \(line)")
        let events = try sightings(in: text)
        let removedAt = try #require(events.firstIndex { ($0["removed"] as? [Int]) == [1] }, "the removal is sent: \(events)")
        let removedSeq = try #require(events[removedAt]["seq"] as? Int)
        #expect(removedSeq > 9 && removedSeq < frames.count, "removed in a blank frame, once past the grace: \(removedSeq)")
        #expect(events.map { $0["seq"] as? Int } == (0...removedSeq + 1).map { $0 }, "every frame until the removal and one, nothing after")
        for event in events[..<removedAt] {
            let listed = items(event)
            #expect(Array(listed.keys) == [1] && listed[1]?.label == "read me", "\(event)")
            #expect(listed[1]?.corners.count == 4 && listed[1]!.corners.allSatisfy { $0[0] < 240 }, "the code's outline, on the left: \(event)")
            #expect(event["items_more"] as? Int == 0 && (event["removed"] as? [Int]) == [])
            let read = event["read"] as? [[String: Any]] ?? []
            #expect(read.allSatisfy { $0["item"] as? Int == 1 }, "a reading names its item: \(read)")
            #expect(read.count == ((event["seq"] as? Int ?? 0) < 3 ? 1 : 0), "read in the first 3 frames only: \(event)")
        }
        #expect(items(events[removedAt]).isEmpty && events[removedAt]["items_more"] as? Int == 0)
        #expect(events.last.map { items($0).isEmpty && ($0["removed"] as? [Int]) == [] } == true, "removed once: \(events.last ?? [:])")
    }

    /// Frames faster than `outlinesPerSecond` while an item is alive: at most one sightings per
    /// interval (the first frame's), though the item is listed and not yet removed.
    @Test func theItemsAreSentAtMostOutlinesPerSecond() throws {
        var readable = GreyFrame(width: 480, height: 240)
        readable.draw(try ModuleMatrix.qrCode("read me"), centerX: 110, centerY: 120, moduleSize: 4)
        let scanner = MetadataOutput(settings: MetadataOutput.Settings(engine: .zxing, effort: .fast, reportsUndecoded: true)).makeScanner()
        var settings = LiveViewSettings()
        settings.outlinesPerSecond = 0.05  // one every 20 s: the frames below all come within the first interval
        // Every frame completed at the same instant, however slowly a loaded machine delivers them.
        let start = ContinuousClock.now
        let liveView = LiveViewResultsHandler(settings: settings, source: "y4m:test", logger: Logger(label: "test"), clock: { start })
        liveView.start()
        let viewer = liveView.hub.openEvents()
        let delivery = Delivery(handler: liveView, reporting: .items(ItemTracker.Settings()))
        for seq in UInt64(0)..<20 { try delivery.deliver(scannedCollection(seq < 3 ? readable : GreyFrame(width: 480, height: 240), seq: seq, scanner: scanner)) }
        let events = try sightings(in: pendingEvents(viewer))
        viewer.close()
        try liveView.finish()
        #expect(events.map { $0["seq"] as? Int } == [0], "\(events)")
        #expect(liveView.counters.first { $0.name == "live_view_outline_updates" }?.value == 1)
    }
}

@Suite struct LiveViewItemsListTests {
    private static let info = FrameInfo(sequenceNumber: 0, presentationTime: .zero, width: 640, height: 480, format: .grey)

    /// A QR code of `text` read at (`x`, `y`), 20 pixels square, in frame `seq`.
    private func reading(_ text: String, x: Int, y: Int, seq: UInt64 = 0) -> MachineReadableCodeObject {
        var info = Self.info
        info.sequenceNumber = seq
        return MachineReadableCodeObject(symbology: .qrcode, data: Array(text.utf8), text: text, quality: nil, orientation: .up,
                                         corners: [PixelPoint(x: x, y: y), PixelPoint(x: x, y: y + 20), PixelPoint(x: x + 20, y: y + 20),
                                                   PixelPoint(x: x + 20, y: y)],
                                         frame: info, engine: .zxing, pass: .zxingFast)
    }

    @Test func anEventListsThe64MostRecentlyReadItemsCountsTheRestAndNamesTheRemovedOnce() {
        var items = LiveViewItems()
        for id in UInt64(1)...70 { items.add(reading("code \(id)", x: Int(id) * 5, y: 10, seq: id), item: id) }
        // Item 3 read again last: the most recent.
        _ = items.follow([reading("code 3", x: 16, y: 12, seq: 80)], sequenceNumber: 80)
        let listing = items.listing()
        #expect(listing.items.count == LiveViewItems.listLimit && listing.more == 70 - LiveViewItems.listLimit)
        #expect(listing.items.map(\.id) == [3] + (8...70).reversed().map { UInt64($0) }, "the most recently read first")
        #expect(listing.items.first?.corners.first == PixelPoint(x: 16, y: 12), "at the corners it was last read at")
        #expect(listing.removed.isEmpty)
        for id in UInt64(1)...70 { items.remove(id) }
        let emptied = items.listing()
        #expect(emptied.items.isEmpty && emptied.more == 0)
        #expect(emptied.removed == (7...70).map { UInt64($0) }, "the last 64 removals, oldest first")
        #expect(items.listing().removed.isEmpty, "each removal is sent once")
    }

    /// Two labels alike, left and right, each read a little further on: each reading goes to the
    /// nearer item (its corners follow); a second reading of the left one, where it is, goes to it
    /// too; another payload's reading to none.
    @Test func aReadingGoesToTheNearestItemOfItsPayload() {
        var items = LiveViewItems()
        items.add(reading("twin", x: 100, y: 100), item: 1)
        items.add(reading("twin", x: 400, y: 100), item: 2)
        let reads = [reading("twin", x: 390, y: 104), reading("twin", x: 108, y: 96), reading("twin", x: 110, y: 97),
                     reading("other", x: 100, y: 100)]
        #expect(items.follow(reads, sequenceNumber: 5) == [2, 1, 1, nil])
        #expect(items.alive[1]?.corners.first == PixelPoint(x: 108, y: 96) && items.alive[2]?.corners.first == PixelPoint(x: 390, y: 104))
        #expect(items.alive[1]?.lastRead == 5)
        items.update(ItemUpdate(id: 2, frame: ItemFrame(sequenceNumber: 6, presentationTime: .zero),
                                corners: [PixelPoint(x: 380, y: 100)], framesRead: 3))
        #expect(items.alive[2]?.corners == [PixelPoint(x: 380, y: 100)] && items.alive[2]?.lastRead == 6)
    }
}
