import Media
import Testing
@testable import Capture

/// 30 frames a second.
private let interval: Int64 = 33_333_333

/// A code of `text` centred at (`x`, 360), 120x60 pixels, read in frame `seq` by `pass`.
private func reading(_ text: String, x: Int = 400, seq: UInt64, symbology: Symbology = .ean13,
                     pass: DecoderPass = .zxingFast) -> MachineReadableCodeObject {
    let frame = FrameInfo(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * interval), width: 1280, height: 720, format: .grey)
    return MachineReadableCodeObject(symbology: symbology, data: Array(text.utf8), text: text, quality: nil, orientation: .up,
                                     corners: [PixelPoint(x: x - 60, y: 330), PixelPoint(x: x - 60, y: 390),
                                               PixelPoint(x: x + 60, y: 390), PixelPoint(x: x + 60, y: 330)],
                                     frame: frame, pass: pass)
}

/// Each frame's readings as `MetadataOutput` hands them on with `confirmation`: those needing
/// confirmation as unconfirmed (one library each), then tracked; the items added (text, frame),
/// the tracker after the source ended, and the readings' counts.
private func track(_ confirmation: ItemConfirmation, frames: UInt64, _ scene: (UInt64) -> [MachineReadableCodeObject])
    -> (added: [(text: String, seq: UInt64)], tracker: ItemTracker, counts: ReadingCheckCounts) {
    var tracker = ItemTracker(settings: ItemTracker.Settings(confirmation: confirmation))
    var added: [(text: String, seq: UInt64)] = []
    var counts = ReadingCheckCounts()
    for seq in 0..<frames {
        var report = MetadataOutput.ScanReport(codes: scene(seq), passesRun: [.zxingFast], passesCut: [])
        report.readings[.zxingFast] = report.codes
        report.passOnUnconfirmed(confirmation)
        let result = tracker.track(report.codes, unconfirmed: report.unconfirmed, undecoded: [], sequenceNumber: seq,
                                   pts: MediaTime(nanoseconds: Int64(seq) * interval), width: 1280, height: 720)
        added += result.added.map { ($0.code.text ?? "", seq) }
        counts.add(result.readingCheck)
    }
    _ = tracker.finish(counts: &counts)
    return (added, tracker, counts)
}

@Suite struct ItemConfirmationRuleTests {
    @Test func anEANReadInOneFrameOnlyIsNeverReportedAndCountedUnconfirmed() {
        let (added, tracker, _) = track(ItemConfirmation(), frames: 12) { seq in seq == 3 ? [reading("4006381333931", seq: seq)] : [] }
        #expect(added.isEmpty)
        #expect(tracker.unconfirmedItems == 1)
    }

    @Test func anEANIsReportedAtItsSecondAgreeingReadingAndAQRCodeAtItsFirst() {
        let (added, tracker, _) = track(ItemConfirmation(), frames: 10) { seq in
            [reading("4006381333931", seq: seq), reading("QR-PAYLOAD", x: 900, seq: seq, symbology: .qrcode)]
        }
        #expect(added.filter { $0.text == "QR-PAYLOAD" }.map(\.seq) == [0])
        #expect(added.filter { $0.text == "4006381333931" }.map(\.seq) == [1])
        #expect(tracker.unconfirmedItems == 0)
    }

    @Test func confirmReadingsSetsHowManyFramesMustAgree() {
        let (added, _, _) = track(ItemConfirmation(readings: 4), frames: 10) { seq in [reading("12345670", seq: seq, symbology: .ean8)] }
        #expect(added.map(\.seq) == [3])
        let (none, _, _) = track(.none, frames: 10) { seq in [reading("12345670", seq: seq, symbology: .ean8)] }
        #expect(none.map(\.seq) == [0])
    }

    @Test func twoLibrariesReadingItInOneFrameConfirmIt() {
        var report = MetadataOutput.ScanReport(codes: [reading("4006381333931", seq: 0)], passesRun: [.zxingFast, .zbar], passesCut: [])
        report.readings[.zxingFast] = [reading("4006381333931", seq: 0)]
        report.readings[.zbar] = [reading("4006381333931", seq: 0, pass: .zbar)]
        report.passOnUnconfirmed(ItemConfirmation())
        #expect(report.codes.count == 1 && report.unconfirmed.isEmpty)
        // Two passes of one library are one decoder's reading twice.
        var twice = MetadataOutput.ScanReport(codes: [reading("4006381333931", seq: 0)], passesRun: [.zxingFast, .zxingFull], passesCut: [])
        twice.readings[.zxingFast] = [reading("4006381333931", seq: 0)]
        twice.readings[.zxingFull] = [reading("4006381333931", seq: 0, pass: .zxingFull)]
        twice.passOnUnconfirmed(ItemConfirmation())
        #expect(twice.codes.isEmpty && twice.unconfirmed.count == 1)
    }

    @Test func aLabelWhoseReadingsAlternateBetweenTwoPayloadsIsNoItemAndItsReadingsAreMisreads() {
        // One label, read as one payload in even frames and another in odd frames.
        let (added, tracker, counts) = track(ItemConfirmation(), frames: 20) { seq in
            [reading(seq % 2 == 0 ? "4006381333931" : "4006381333948", seq: seq)]
        }
        #expect(added.isEmpty, "neither payload is confirmed: \(added)")
        #expect(counts.misread == 20 && counts.confirmed == 0, "\(counts)")
        #expect(tracker.unconfirmedItems == 0, "contested, not unconfirmed: misread")
    }

    @Test func aMisreadInOneFrameOfAConfirmedItemIsCountedNeverAnItem() {
        let (added, _, counts) = track(ItemConfirmation(), frames: 12) { seq in
            [reading(seq == 6 ? "4006381333948" : "4006381333931", seq: seq)]
        }
        #expect(added.map(\.text) == ["4006381333931"])
        #expect(counts.misread == 1, "\(counts)")
    }

    @Test func anItemThatLeftUnconfirmedIsReportedWhenAskedWithItsFirstReading() {
        var tracker = ItemTracker(settings: ItemTracker.Settings(confirmation: ItemConfirmation(reportsUnconfirmed: true)))
        _ = tracker.track([], unconfirmed: [reading("4006381333931", seq: 0)], undecoded: [], sequenceNumber: 0, pts: .zero, width: 1280, height: 720)
        var counts = ReadingCheckCounts()
        _ = tracker.finish(counts: &counts)
        let reported = tracker.takeUnconfirmed()
        #expect(reported.map { $0.code.text } == ["4006381333931"] && reported.map(\.item.framesRead) == [1])
        #expect(tracker.takeUnconfirmed().isEmpty, "taken once")
    }
}

@Suite struct CodeOutlineTests {
    /// A code flush with the frame's right and bottom edges: its outline ends on the last pixel, not one past it.
    @Test func anOutlineOnTheFramesFarBoundaryEndsOnItsLastPixel() {
        let frame = FrameInfo(sequenceNumber: 0, presentationTime: .zero, width: 640, height: 480, format: .grey)
        let decoded = DecodedCode(symbology: .qrcode, data: Array("edge".utf8), text: "edge", quality: nil, orientation: .up,
                                  corners: [PixelPoint(x: 540, y: 380), PixelPoint(x: 540, y: 480), PixelPoint(x: 640, y: 480), PixelPoint(x: 640, y: 380)])
        let code = MachineReadableCodeObject(decoded, frame: frame, pass: .zxingFast)
        #expect(code.corners.map(\.x).max() == 639 && code.corners.map(\.y).max() == 479)
        #expect(code.bounds.x + code.bounds.width == 639 && code.bounds.y + code.bounds.height == 479)
    }
}
