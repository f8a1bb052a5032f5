import Decoders
import Media
import TestSupport
import Testing
import ZBar
@testable import Capture

private func code(_ text: String, at seconds: Double) -> MachineReadableCodeObject {
    let info = FrameInfo(sequenceNumber: 0, presentationTime: MediaTime(seconds: seconds), width: 10, height: 10, format: .grey)
    return MachineReadableCodeObject(symbology: .qrcode, data: Array(text.utf8), text: text, quality: 1, orientation: .up,
                                     corners: [PixelPoint(x: 0, y: 0)], frame: info, pass: .zbar)
}

@Suite(.offThePool) struct DuplicateSuppressorTests {
    @Test func aCodeInViewIsReportedOnceAndAgainAfterAnAbsenceLongerThanTheWindow() {
        var s = DuplicateSuppressor(window: MediaTime(seconds: 1))
        var reported: [Double] = []
        // Seen every 0.1 s from 0 to 2 s, gone until 3.5 s, back at 3.5 s.
        let times = stride(from: 0.0, through: 2.0, by: 0.1).map { $0 } + [3.5, 3.6]
        for t in times where !s.filter([code("A", at: t)], at: MediaTime(seconds: t)).isEmpty { reported.append(t) }
        #expect(reported == [0.0, 3.5])
    }

    @Test func differentPayloadsAndSymbologiesAreIndependent() {
        var s = DuplicateSuppressor(window: MediaTime(seconds: 1))
        let t = MediaTime(seconds: 0)
        #expect(s.filter([code("A", at: 0), code("B", at: 0)], at: t).count == 2)
        var ean = code("A", at: 0.1); ean.symbology = .ean13
        #expect(s.filter([code("A", at: 0.1), ean], at: MediaTime(seconds: 0.1)).map(\.symbology) == [.ean13])
    }

    /// The decoder's notion of a duplicate: identical labels in view together are one line
    /// (`MetadataOutput` reports each; items count them apart).
    @Test func identicalPayloadsAtSeveralPlacesOfOneFrameAreReportedOnce() {
        var s = DuplicateSuppressor(window: MediaTime(seconds: 1))
        #expect(s.filter([code("A", at: 0), code("A", at: 0), code("B", at: 0)], at: .zero).map(\.text) == ["A", "B"])
        #expect(s.filter([code("A", at: 0.1), code("A", at: 0.1)], at: MediaTime(seconds: 0.1)).isEmpty)
    }

    /// An EAN/UPC code is its main code: read without its add-on after it was read with one, it is
    /// the same code; read with its add-on at last, or with another (a periodical's next issue), it is new.
    @Test func anEANCodeWithAndWithoutItsAddOnIsOneCodeAndAnotherAddOnIsNew() {
        func ean(_ main: String, _ addOn: String?, at t: Double) -> MachineReadableCodeObject {
            var c = code(addOn.map { main + " " + $0 } ?? main, at: t)
            (c.symbology, c.addOn) = (.ean13, addOn.map { Array($0.utf8) })
            return c
        }
        var s = DuplicateSuppressor(window: MediaTime(seconds: 1))
        let sightings: [(String?, Double)] = [("51299", 0), (nil, 0.1), ("51299", 0.2), (nil, 0.3), ("51300", 0.4), ("51300", 0.5)]
        let reported = sightings.filter { !s.filter([ean("9780735200449", $0.0, at: $0.1)], at: MediaTime(seconds: $0.1)).isEmpty }
        #expect(reported.map(\.1) == [0, 0.4])
        var t = DuplicateSuppressor(window: MediaTime(seconds: 1))
        let late = [(nil, 0.0), (nil, 0.1), ("51299", 0.2), (nil, 0.3)] as [(String?, Double)]
        #expect(late.filter { !t.filter([ean("9780735200449", $0.0, at: $0.1)], at: MediaTime(seconds: $0.1)).isEmpty }.map(\.1) == [0, 0.2])
    }

    @Test func aZeroWindowReportsEverySighting() {
        var s = DuplicateSuppressor(window: .zero)
        for t in [0.0, 0.1, 0.2] { #expect(s.filter([code("A", at: t)], at: MediaTime(seconds: t)).count == 1) }
    }

    @Test func memoryIsBoundedByCodesSeenWithinTheWindow() {
        var s = DuplicateSuppressor(window: MediaTime(seconds: 1))
        for i in 0..<1000 {
            let t = Double(i) * 0.1
            _ = s.filter([code("code-\(i)", at: t)], at: MediaTime(seconds: t))
        }
        #expect(s.trackedCount <= 25)
    }
}
