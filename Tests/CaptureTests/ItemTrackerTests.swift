import Decoders
import Media
import Testing
@testable import Capture

/// 30 frames a second, as a camera.
private let frameInterval: Int64 = 33_333_333

/// A grace shorter than the moving grace (the default makes them equal), for the tests of the two.
private let shortGrace = MediaTime(nanoseconds: 300_000_000)

/// A square code of `text` centred at (`x`, `y`), `size` pixels a side, read in frame `seq`.
private func reading(_ text: String, x: Int, y: Int, size: Int = 100, seq: UInt64, symbology: Symbology = .qrcode) -> MachineReadableCodeObject {
    let h = size / 2
    let frame = FrameInfo(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * frameInterval),
                          width: 1280, height: 720, format: .grey)
    return MachineReadableCodeObject(symbology: symbology, data: Array(text.utf8), text: text, quality: nil, orientation: .up,
                                     corners: [PixelPoint(x: x - h, y: y - h), PixelPoint(x: x - h, y: y + h),
                                               PixelPoint(x: x + h, y: y + h), PixelPoint(x: x + h, y: y - h)],
                                     frame: frame, pass: .zxingFast)
}

/// A code detected at (`x`, `y`) and not decoded.
private func sighting(x: Int, y: Int, size: Int = 100) -> UndecodedCodeObject {
    let h = size / 2
    return UndecodedCodeObject(symbology: .qrcode, error: "checksum", pass: .zxingFast,
                               corners: [PixelPoint(x: x - h, y: y - h), PixelPoint(x: x - h, y: y + h),
                                         PixelPoint(x: x + h, y: y + h), PixelPoint(x: x + h, y: y - h)])
}

/// Feeds frames `0..<count` (each the readings `scene(seq)` gives) and then ends the source;
/// the items added, with their first frames, and every item removed.
private func run(_ tracker: inout ItemTracker, frames count: UInt64, undecoded: (UInt64) -> [UndecodedCodeObject] = { _ in [] },
                 _ scene: (UInt64) -> [MachineReadableCodeObject]) -> (added: [(item: UInt64, text: String, seq: UInt64)], removed: [RemovedItem]) {
    var added: [(item: UInt64, text: String, seq: UInt64)] = []
    var removed: [RemovedItem] = []
    for seq in 0..<count {
        let result = tracker.track(scene(seq), undecoded: undecoded(seq), sequenceNumber: seq,
                                   pts: MediaTime(nanoseconds: Int64(seq) * frameInterval), width: 1280, height: 720)
        added += result.added.map { ($0.item, $0.code.text ?? "", seq) }
        removed += result.removed
    }
    var counts = ReadingCheckCounts()
    removed += tracker.finish(counts: &counts)
    return (added, removed)
}

@Suite struct ItemTrackerTests {
    @Test func aLabelRidingThroughTheFrameIsOneItemWithItsDwellAndReadRate() {
        var tracker = ItemTracker()
        // 40 px a frame (1200 px a second) from the left edge, missed in every fifth frame.
        let (added, removed) = run(&tracker, frames: 30) { seq in seq % 5 == 4 ? [] : [reading("PARCEL-1", x: 60 + 40 * Int(seq), y: 360, seq: seq)] }
        #expect(added.map(\.seq) == [0])
        #expect(removed.count == 1)
        let item = removed[0]
        #expect(item.id == added[0].item && item.text == "PARCEL-1")
        #expect(item.first.sequenceNumber == 0 && item.last.sequenceNumber == 28)
        #expect(item.framesPresent == 29 && item.framesRead == 24)
        #expect(item.dwell == MediaTime(nanoseconds: 28 * frameInterval))
        #expect(abs(item.readRate - 24.0 / 29.0) < 1e-9)
    }

    @Test func identicalLabelsInViewTogetherAreDifferentItemsAndEachKeepsItsOwn() {
        var tracker = ItemTracker()
        // Three parcels with the same label 300 px apart riding together; a fourth pair side by side on one parcel.
        let (added, removed) = run(&tracker, frames: 20) { seq in
            let dx = 25 * Int(seq)
            return [reading("SAME", x: 100 + dx, y: 200, seq: seq), reading("SAME", x: 400 + dx, y: 200, seq: seq),
                    reading("SAME", x: 700 + dx, y: 200, seq: seq),
                    reading("PAIR", x: 150 + dx, y: 500, seq: seq), reading("PAIR", x: 290 + dx, y: 500, seq: seq)]
        }
        #expect(added.count == 5 && Set(added.map(\.item)).count == 5)
        #expect(added.allSatisfy { $0.seq == 0 })
        #expect(removed.count == 5 && removed.allSatisfy { $0.framesRead == 20 && $0.framesPresent == 20 })
        // Each item ends where its own label ended.
        let same = removed.filter { $0.text == "SAME" }.map { $0.corners[0].x + 50 }.sorted()
        #expect(same == [100 + 19 * 25, 400 + 19 * 25, 700 + 19 * 25])
    }

    @Test func aCodeBackAfterTheGraceIsANewItemAndWithinItTheSame() {
        var tracker = ItemTracker()
        // Shown frames 0-9, away 40 frames (1.33 s, past the default 1 s), shown 50-59; then away
        // 15 frames (0.5 s: a card taken away and shown again at once), shown 75-84.
        let shown = { (seq: UInt64) in (0..<10).contains(seq) || (50..<60).contains(seq) || (75..<85).contains(seq) }
        let (added, removed) = run(&tracker, frames: 85) { seq in shown(seq) ? [reading("TICKET", x: 640, y: 360, seq: seq)] : [] }
        #expect(added.map(\.seq) == [0, 50])
        #expect(removed.map(\.last.sequenceNumber) == [9, 84])
        #expect(removed.map(\.framesRead) == [10, 20])
        #expect(removed.map(\.framesPresent) == [10, 35])
    }

    @Test func aCodeDetectedAndNotDecodedAtItsPlaceKeepsItsItemAlivePastTheGrace() {
        var tracker = ItemTracker()
        // Read in frames 0-4 and 45-49 (1.33 s later); between, only detected (motion blur) where it is.
        let read = { (seq: UInt64) in seq < 5 || (45..<50).contains(seq) }
        let (added, removed) = run(&tracker, frames: 50, undecoded: { seq in read(seq) ? [] : [sighting(x: 640 + Int(seq), y: 360)] }) { seq in
            read(seq) ? [reading("HELD", x: 640 + Int(seq), y: 360, seq: seq)] : []
        }
        #expect(added.map(\.seq) == [0])
        #expect(removed.count == 1 && removed[0].framesRead == 10 && removed[0].framesPresent == 50)
        // The same detections far from the item do not keep it.
        var elsewhere = ItemTracker()
        let far = run(&elsewhere, frames: 50, undecoded: { seq in read(seq) ? [] : [sighting(x: 100, y: 100)] }) { seq in
            read(seq) ? [reading("HELD", x: 640, y: 360, seq: seq)] : []
        }
        #expect(far.added.map(\.seq) == [0, 45])
    }

    @Test func aTimestampThatGoesBackRemovesEveryItemAndIsCounted() {
        var tracker = ItemTracker()
        _ = tracker.track([reading("A", x: 200, y: 200, seq: 0)], undecoded: [], sequenceNumber: 0, pts: MediaTime(seconds: 100), width: 1280, height: 720)
        let back = tracker.track([reading("A", x: 200, y: 200, seq: 1)], undecoded: [], sequenceNumber: 1, pts: MediaTime(seconds: 1), width: 1280, height: 720)
        #expect(back.removed.map(\.id) == [1])
        #expect(back.added.map(\.item) == [2], "after the reset the code is a new item")
        #expect(tracker.resets == 1 && tracker.aliveCount == 1)
    }

    @Test func tenThousandDistinctCodesInViewAreForgottenOnceTheyLeave() {
        var tracker = ItemTracker()
        let many = (0..<10_000).map { i in reading("code \(i)", x: 10 + (i % 100) * 12, y: 10 + (i / 100) * 7, size: 6, seq: 0) }
        let first = tracker.track(many, undecoded: [], sequenceNumber: 0, pts: .zero, width: 1280, height: 720)
        #expect(first.added.count == 10_000 && tracker.aliveCount == 10_000)
        let later = tracker.track([], undecoded: [], sequenceNumber: 60, pts: MediaTime(seconds: 2), width: 1280, height: 720)
        #expect(later.removed.count == 10_000 && tracker.aliveCount == 0)
    }

    @Test func outlinesOutsideTheFrameAreFollowedAndCounted() {
        var tracker = ItemTracker()
        let (added, removed) = run(&tracker, frames: 10) { seq in [reading("EDGE", x: 1270 + Int(seq), y: 360, seq: seq)] }
        #expect(added.count == 1 && removed.count == 1 && removed[0].framesRead == 10)
        #expect(tracker.outlinesOutsideFrame == 10)
    }

    @Test func twoReadingsOfOneCodeInOneFrameAreOneItem() {
        var tracker = ItemTracker()
        let (added, removed) = run(&tracker, frames: 3) { seq in
            [reading("TWICE", x: 300, y: 300, seq: seq), reading("TWICE", x: 304, y: 302, seq: seq)]
        }
        #expect(added.count == 1 && removed.count == 1 && removed[0].framesRead == 3)
    }

    @Test func updatesComeAtMostOncePerIntervalPerItem() {
        var tracker = ItemTracker(settings: .init(updateInterval: MediaTime(nanoseconds: 3 * frameInterval)))
        var updates: [ItemUpdate] = []
        for seq in UInt64(0)..<30 {
            let result = tracker.track([reading("MOVING", x: 100 + 10 * Int(seq), y: 300, seq: seq)], undecoded: [], sequenceNumber: seq,
                                       pts: MediaTime(nanoseconds: Int64(seq) * frameInterval), width: 1280, height: 720)
            updates += result.updated
        }
        // One every third frame (a tenth of a second at 30 fps), after the first reading.
        #expect(updates.map(\.frame.sequenceNumber) == [3, 6, 9, 12, 15, 18, 21, 24, 27])
        #expect(updates.first?.corners.first == PixelPoint(x: 80, y: 250))
    }


    @Test func tenIdenticalLabelsMovingTogetherAreTenItemsEachCountedOnce() {
        var tracker = ItemTracker()
        // Ten parcels with the same QR, 110 px apart, riding at 15 px a frame; each frame misses one of them.
        let (added, removed) = run(&tracker, frames: 40) { seq in
            (0..<10).filter { ($0 + Int(seq)) % 10 != 0 }.map { reading("SAME-LABEL", x: 60 + 110 * $0 + 15 * Int(seq), y: 360, size: 60, seq: seq) }
        }
        #expect(added.count == 10 && Set(added.map(\.item)).count == 10, "\(added)")
        #expect(removed.count == 10 && removed.allSatisfy { $0.framesRead >= 30 }, "\(removed.map(\.framesRead))")
    }

    @Test func aRunOfIdenticalLabelsOnABeltIsOneItemEachThoughEachGoesUnreadForAWhile() {
        var tracker = ItemTracker()
        // Parcels 160 px apart at 20 px a frame with the same label; each label is unread for the
        // 8 frames before the next one reaches the place it was last read at.
        let (added, removed) = run(&tracker, frames: 40) { seq in
            (0..<4).compactMap { i -> MachineReadableCodeObject? in
                let x = 100 + 20 * Int(seq) - 160 * i
                guard x >= 50 && x <= 1230 else { return nil }
                let unread = (Int(seq) - 8 * i) % 16 >= 8
                return unread ? nil : reading("RUN", x: x, y: 360, size: 80, seq: seq)
            }
        }
        #expect(added.count == 4 && Set(added.map(\.item)).count == 4, "\(added)")
        #expect(removed.count == 4, "\(removed.map(\.framesRead))")
    }

    @Test func aTwinLabelFirstReadWhileItsNeighbourIsUnreadIsItsOwnItem() {
        var tracker = ItemTracker()
        // Two identical labels 95 px apart on one parcel at 15 px a frame: the front one read
        // alone in frames 0-9, the back one alone in frames 10-14 (the front one covered), then both.
        let (added, removed) = run(&tracker, frames: 30) { seq in
            let dx = 15 * Int(seq)
            let front = reading("TWIN", x: 245 + dx, y: 360, size: 80, seq: seq), back = reading("TWIN", x: 150 + dx, y: 360, size: 80, seq: seq)
            return seq < 10 ? [front] : seq < 15 ? [back] : [front, back]
        }
        #expect(added.map(\.seq) == [0, 10] && Set(added.map(\.item)).count == 2, "\(added)")
        #expect(removed.count == 2, "\(removed.map(\.framesRead))")
    }

    @Test func aLabelThatReversesItsDirectionStaysOneItem() {
        var tracker = ItemTracker()
        // 20 px a frame to the right for 15 frames, then back to the left.
        let (added, removed) = run(&tracker, frames: 30) { seq in
            let x = seq < 15 ? 200 + 20 * Int(seq) : 480 - 20 * (Int(seq) - 15)
            return [reading("REVERSING", x: x, y: 360, seq: seq)]
        }
        #expect(added.count == 1 && removed.count == 1 && removed.first?.framesRead == 30, "\(added) \(removed.map(\.framesRead))")
    }
}

/// A linear code's reading (an EAN-13, 240 x 60 px, centred at `x`, `y`) in frame `seq`: zbar's, as
/// the reading check passes on what its frame could not confirm.
private func linear(_ digits: String, x: Int, y: Int = 360, seq: UInt64) -> MachineReadableCodeObject {
    let frame = FrameInfo(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * frameInterval),
                          width: 1280, height: 720, format: .grey)
    return MachineReadableCodeObject(symbology: .ean13, data: Array(digits.utf8), text: digits, quality: 1, orientation: .up,
                                     corners: [PixelPoint(x: x - 120, y: y - 30), PixelPoint(x: x - 120, y: y + 30),
                                               PixelPoint(x: x + 120, y: y + 30), PixelPoint(x: x + 120, y: y - 30)],
                                     frame: frame, pass: .zbar)
}

/// Frames `0..<count`, each with the confirmed readings `scene(seq)` gives and the unconfirmed
/// ones `unconfirmed(seq)`, then the end: the items added (reading text and frame), the items
/// removed, and what became of the unconfirmed readings.
private func runChecked(frames count: UInt64, _ scene: (UInt64) -> [MachineReadableCodeObject],
                        unconfirmed: (UInt64) -> [MachineReadableCodeObject])
    -> (added: [(text: String, seq: UInt64)], removed: [RemovedItem], counts: ReadingCheckCounts) {
    var tracker = ItemTracker()
    var added: [(text: String, seq: UInt64)] = [], removed: [RemovedItem] = [], counts = ReadingCheckCounts()
    for seq in 0..<count {
        let result = tracker.track(scene(seq), unconfirmed: unconfirmed(seq), undecoded: [], sequenceNumber: seq,
                                   pts: MediaTime(nanoseconds: Int64(seq) * frameInterval), width: 1280, height: 720)
        added += result.added.map { ($0.code.text ?? "", seq) }
        removed += result.removed
        counts.add(result.readingCheck)
    }
    removed += tracker.finish(counts: &counts)
    #expect(tracker.aliveCount == 0)
    return (added, removed, counts)
}

@Suite struct ItemConfirmationTests {
    @Test func anUnconfirmedReadingReadAgainInAnotherFrameIsReportedWithThatFrameOnce() {
        // zbar alone reads a moving EAN-13 in frames 2, 3 and 5 (nothing confirms it in its frame).
        let run = runChecked(frames: 8, { _ in [] }) { seq in [2, 3, 5].contains(seq) ? [linear("5901234123457", x: 200 + 20 * Int(seq), seq: seq)] : [] }
        #expect(run.added.map(\.seq) == [3], "reported at the second frame that read it, once")
        #expect(run.removed.count == 1 && run.removed.first?.first.sequenceNumber == 2 && run.removed.first?.framesRead == 3)
        #expect(run.counts == ReadingCheckCounts(confirmed: 3), "\(run.counts)")
    }

    @Test func anUnconfirmedReadingOfAnItemAlreadyReportedCountsAsConfirmedAndAddsNothing() {
        // zxing-cpp reads the code in frames 0-2; zbar alone in frames 3-4.
        let run = runChecked(frames: 6, { seq in seq < 3 ? [linear("5901234123457", x: 300, seq: seq)] : [] }) { seq in
            seq >= 3 && seq < 5 ? [linear("5901234123457", x: 300, seq: seq)] : []
        }
        #expect(run.added.map(\.seq) == [0] && run.removed.first?.framesRead == 5)
        #expect(run.counts == ReadingCheckCounts(confirmed: 2))
    }

    @Test func aReadingSeenInOneFrameOnlyIsDroppedUnreported() {
        let run = runChecked(frames: 20, { _ in [] }) { seq in seq == 4 ? [linear("5901234123457", x: 300, seq: seq)] : [] }
        #expect(run.added.isEmpty && run.removed.isEmpty)
        #expect(run.counts == ReadingCheckCounts(dropped: 1))
        // The end of the source drops one still waiting, too.
        let last = runChecked(frames: 5, { _ in [] }) { seq in seq == 4 ? [linear("5901234123457", x: 300, seq: seq)] : [] }
        #expect(last.added.isEmpty && last.removed.isEmpty && last.counts == ReadingCheckCounts(dropped: 1))
    }

    @Test func anotherPayloadReadWhereTheItemIsMakesTheUnconfirmedReadingAMisread() {
        // The right EAN-13 read (confirmed) in frames 0-9 while it moves; zbar's misreading of it, unconfirmed, in frame 4…
        let right = "5901234123457", wrong = "5901234123464"
        let before = runChecked(frames: 10, { seq in seq == 4 ? [] : [linear(right, x: 200 + 10 * Int(seq), seq: seq)] }) { seq in
            seq == 4 ? [linear(wrong, x: 240, seq: seq)] : []
        }
        #expect(before.added.map(\.text) == [right], "the misreading is never reported")
        #expect(before.counts == ReadingCheckCounts(misread: 1))
        // …and when the misreading comes first, in the frames before anything else reads the code.
        let first = runChecked(frames: 10, { seq in seq < 2 ? [] : [linear(right, x: 200 + 10 * Int(seq), seq: seq)] }) { seq in
            seq == 0 ? [linear(wrong, x: 200, seq: seq)] : []
        }
        #expect(first.added.map(\.text) == [right] && first.added.first?.seq == 2)
        #expect(first.counts == ReadingCheckCounts(misread: 1), "\(first.counts)")
    }

    @Test func aRepeatedMisreadingBesideTheLabelsOwnReadingIsNeverReported() {
        // One decoder alone (nothing confirms a reading in its frame) reads an EAN-13 label in
        // frames 0-1 and 3-9, and misreads it, along a line 25 px lower, in frames 2-9: in frame 2
        // the misreading alone (a tentative item), then beside the right reading in every frame.
        let right = "5901234123457", wrong = "3901111020420"
        let run = runChecked(frames: 10, { _ in [] }) { seq in
            (seq == 2 ? [] : [linear(right, x: 600 - 7 * Int(seq), seq: seq)])
                + (seq >= 2 ? [linear(wrong, x: 600 - 7 * Int(seq), y: 385, seq: seq)] : [])
        }
        #expect(run.added.map(\.text) == [right], "the misreading is never reported: \(run.added)")
        // Frame 3 would have confirmed it: its two readings are misreads; frames 4-9 one each.
        #expect(run.counts.misread == 8, "\(run.counts)")
    }

    @Test func aPartOfAReportedLabelsPayloadReadWhereItLiesIsAMisreadThoughTheLabelWasNotReadThen() {
        // An ITF label read whole (confirmed) in frames 0-2 and 6-9; in frames 3 and 5, when the
        // whole is not read, a line across its left part reads its first six digits.
        func itf(_ digits: String, x: Int, seq: UInt64) -> MachineReadableCodeObject {
            var code = linear(digits, x: x, seq: seq)
            code.symbology = .i25
            return code
        }
        let whole = "1194808724", part = "119480"
        let run = runChecked(frames: 10, { seq in [3, 4, 5].contains(seq) ? [] : [itf(whole, x: 400, seq: seq)] }) { seq in
            [3, 5].contains(seq) ? [itf(part, x: 340, seq: seq)] : []
        }
        #expect(run.added.map(\.text) == [whole], "the part is never reported: \(run.added)")
        #expect(run.counts.misread == 2, "\(run.counts)")
        // Another ITF payload there is no part of it: it waits for confirmation as any reading does.
        let other = runChecked(frames: 10, { seq in [3, 4, 5].contains(seq) ? [] : [itf(whole, x: 400, seq: seq)] }) { seq in
            [3, 5].contains(seq) ? [itf("5566778899", x: 340, seq: seq)] : []
        }
        #expect(Set(other.added.map(\.text)) == [whole, "5566778899"], "\(other.added)")
        #expect(ItemTracker.isPart(Array("0724".utf8), of: Array(whole.utf8)) == false && ItemTracker.isPart(Array("8087".utf8), of: Array(whole.utf8)))
    }

    @Test func aTentativeItemReadOnceLongAgoDoesNotContestANewLabelAtItsPlace() {
        // A UPC-A read once in frame 0 at the belt's right end (a tentative item, alive for the
        // grace), then another UPC-A label riding through that place, read in frames 11-17.
        func upca(_ digits: String, x: Int, seq: UInt64) -> MachineReadableCodeObject {
            var code = linear(digits, x: x, seq: seq)
            code.symbology = .upca
            return code
        }
        let run = runChecked(frames: 20, { _ in [] }) { seq in
            seq == 0 ? [upca("619464214108", x: 300, seq: seq)] : (11..<18).contains(seq) ? [upca("388368215329", x: 195 + 40 * Int(seq - 11), seq: seq)] : []
        }
        #expect(run.added.map(\.text) == ["388368215329"] && run.added.first?.seq == 12, "\(run.added)")
        #expect(run.counts.misread + run.counts.dropped == 1, "the lone reading never reported, counted once: \(run.counts)")
    }

    @Test func anUnconfirmedReadingBesideAnotherLabelIsNotAMisread() {
        // Two labels side by side, 400 px apart: the right one read by zxing-cpp, the left one by zbar alone in two frames.
        let run = runChecked(frames: 6, { seq in [linear("4006381333931", x: 800, seq: seq)] }) { seq in
            seq < 2 ? [linear("5901234123457", x: 400, seq: seq)] : []
        }
        #expect(Set(run.added.map(\.text)) == ["4006381333931", "5901234123457"])
        #expect(run.counts == ReadingCheckCounts(confirmed: 2))
    }

    @Test func twoUnconfirmedPayloadsAtOnePlaceConfirmNeitherUntilAFrameConfirmsOne() {
        // zbar alone reads a UPC-E label in frames 0-5, now right, now a misreading, both along few lines.
        let right = "03525470", wrong = "03121474"
        func upce(_ digits: String, seq: UInt64) -> MachineReadableCodeObject {
            var code = linear(digits, x: 300, seq: seq)
            code.symbology = .upce
            return code
        }
        let contested = runChecked(frames: 6, { _ in [] }) { seq in [upce(seq % 3 == 1 ? right : wrong, seq: seq)] }
        #expect(contested.added.isEmpty, "neither is written: \(contested.added)")
        #expect(contested.counts == ReadingCheckCounts(misread: 6), "\(contested.counts)")
        // The same, then zxing-cpp reads the right one in frame 6: it is written, the misreading is not.
        let settled = runChecked(frames: 8, { seq in seq == 6 ? [upce(right, seq: seq)] : [] }) { seq in
            seq < 6 ? [upce(seq % 3 == 1 ? right : wrong, seq: seq)] : []
        }
        #expect(settled.added.map(\.text) == [right] && settled.added.first?.seq == 6)
        #expect(settled.counts == ReadingCheckCounts(confirmed: 2, misread: 4), "\(settled.counts)")
    }

    @Test func comparableSymbologiesAreOneDimensionalAndOfOneFamily() {
        #expect(ItemTracker.comparable(.ean13, .upce) && ItemTracker.comparable(.code128, .code128))
        #expect(!ItemTracker.comparable(.code128, .code39) && !ItemTracker.comparable(.qrcode, .qrcode))
    }
}


@Suite struct MovingItemGraceTests {
    /// A label riding at 600 px a second, read in frames 0-9, missed for `gap` frames, read again after.
    private func ride(gap: UInt64, settings: ItemTracker.Settings = .init(grace: shortGrace)) -> [(item: UInt64, text: String, seq: UInt64)] {
        var tracker = ItemTracker(settings: settings)
        return run(&tracker, frames: 10 + gap + 10) { seq in
            seq >= 10 && seq < 10 + gap ? [] : [reading("BELT", x: 60 + 20 * Int(seq), y: 360, seq: seq)]
        }.added
    }

    @Test func aMovingLabelMissedLongerThanTheGraceButWithinTheMovingGraceIsOneItem() {
        #expect(ride(gap: 15).count == 1, "0.5 s unread while it rides through the frame")
        #expect(ride(gap: 15, settings: .init(grace: shortGrace, movingGrace: .zero)).count == 2, "with the moving grace at the grace, two")
        #expect(ride(gap: 31).count == 2, "past the moving grace, a new item")
    }

    @Test func aStillCodeGoneLongerThanTheGraceIsANewItemWhateverTheMovingGrace() {
        var tracker = ItemTracker(settings: .init(grace: shortGrace))
        // A ticket held still (a pixel of tremor), taken away for 0.5 s, shown again.
        let added = run(&tracker, frames: 60) { seq in
            seq >= 20 && seq < 35 ? [] : [reading("TICKET", x: 400 + Int(seq % 2), y: 300, seq: seq)]
        }.added
        #expect(added.map(\.seq) == [0, 35])
    }

    @Test func aMovingLabelWhosePredictedPlaceLeftTheFrameHasOnlyTheGrace() {
        var tracker = ItemTracker(settings: .init(grace: shortGrace))
        // Riding out at the right edge at 600 px a second, last read in frame 9 (x 1280).
        var removedAt: UInt64?
        for seq in UInt64(0)..<40 where removedAt == nil {
            let codes = seq < 10 ? [reading("BELT", x: 1100 + 20 * Int(seq), y: 360, seq: seq)] : []
            let result = tracker.track(codes, undecoded: [], sequenceNumber: seq, pts: MediaTime(nanoseconds: Int64(seq) * frameInterval),
                                       width: 1280, height: 720)
            if !result.removed.isEmpty { removedAt = seq }
        }
        #expect(removedAt == 19, "removed after the 0.3 s grace, not the moving one: its predicted place is out of the frame")
    }
}

@Suite struct ItemMotionTests {
    @Test func aBurstOfFramesWithCrowdedTimestampsAndAWaveBackStayOneItem() {
        var tracker = ItemTracker()
        // A live pipe's first frames arrive together (1 ms apart) while the label moves 30 px a
        // frame; then frames come 33 ms apart, the label turning back after frame 10; frame 6
        // only detects it (zxing-cpp's undecoded code), without a reading.
        var added: [UInt64] = []
        var pts = MediaTime.zero
        for seq in UInt64(0)..<20 {
            pts = pts + MediaTime(nanoseconds: seq < 4 ? 1_000_000 : frameInterval)
            let x = seq <= 10 ? 200 + 30 * Int(seq) : 500 - 30 * Int(seq - 10)
            let codes = seq == 6 ? [] : [reading("WAVE", x: x, y: 300, seq: seq)]
            let result = tracker.track(codes, undecoded: seq == 6 ? [sighting(x: x, y: 300)] : [], sequenceNumber: seq, pts: pts,
                                       width: 1280, height: 720)
            added += result.added.map(\.item)
            #expect(result.removed.isEmpty, "frame \(seq)")
        }
        #expect(added == [1])
    }
}

@Suite struct DroppedFramesTests {
    @Test func framesDroppedUnscannedDoNotUseUpAnItemsGrace() {
        var tracker = ItemTracker()
        func track(_ seq: UInt64, _ codes: [MachineReadableCodeObject]) -> ItemTracker.FrameResult {
            tracker.track(codes, undecoded: [], sequenceNumber: seq, pts: MediaTime(nanoseconds: Int64(seq) * frameInterval), width: 1280, height: 720)
        }
        // A code held still, read in frames 0-9; frames 10-45 (1.2 s) dropped late by a stalled machine; read again in frame 46.
        for seq in UInt64(0)..<10 { #expect(track(seq, [reading("HELD", x: 400, y: 300, seq: seq)]).removed.isEmpty) }
        for seq in UInt64(10)..<46 { tracker.unscanned(pts: MediaTime(nanoseconds: Int64(seq) * frameInterval)) }
        let back = track(46, [reading("HELD", x: 400, y: 300, seq: 46)])
        #expect(back.removed.isEmpty && back.added.isEmpty, "the same item")
        // Scanned frames without it still end it after the grace.
        var removedAt: UInt64?
        for seq in UInt64(47)..<100 where removedAt == nil { if !track(seq, []).removed.isEmpty { removedAt = seq } }
        #expect(removedAt == 77, "31 frames (1.03 s) past its last reading: the 1 s grace")
    }
}
