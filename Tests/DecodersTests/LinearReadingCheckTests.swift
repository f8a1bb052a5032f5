import Capture
@testable import Decoders
import Media
import SystemCalls
import Testing
import TestSupport

/// A 320x160 frame with one 1-D code across its middle (zint's modules 2 px wide), as frame `seq` at `seq` × 100 ms.
private func linearFrame(_ zint: String, _ data: String, seq: UInt64 = 0) throws -> VideoFrame {
    var grey = GreyFrame(width: 320, height: 160)
    grey.draw(try ModuleMatrix.linearBarcode(zintSymbology: zint, data: data).stretched(toRows: 40), centerX: 160, centerY: 80, moduleSize: 2)
    return grey.videoFrame(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 100_000_000))
}

/// zbar's own reading of `frame` (the one 1-D code in it).
private func zbarReading(of frame: VideoFrame) throws -> MachineReadableCodeObject {
    let settings = MetadataOutput.Settings(engine: .zbar, scanner: ScannerSettings(symbologies: [.ean13, .code39, .code128]))
    return try #require(MetadataOutput(settings: settings).makeScanner().scan(frame).first)
}

/// `code` with another payload: what a misreading looks like (same place, same symbology, read
/// along a few scan lines).
private func misread(_ code: MachineReadableCodeObject, as payload: String) -> MachineReadableCodeObject {
    var wrong = code
    (wrong.data, wrong.text, wrong.quality) = (Array(payload.utf8), payload, 3)
    return wrong
}

/// `code` as read along `lines` scan lines only.
private func readAlong(_ lines: Int, _ code: MachineReadableCodeObject) -> MachineReadableCodeObject {
    var few = code
    few.quality = lines
    return few
}

private let linear: Set<Symbology> = [.ean13, .upca, .upce, .code39, .code128, .i25]

/// `hybrid`'s check (zbar's readings checked by zxing-cpp) with `look` as its second look, holding readings in `held`.
private func hybridCheck(_ look: any SecondLook, held: LockedValue<HeldReadings> = LockedValue(HeldReadings())) -> LinearReadingCheck {
    LinearReadingCheck(checked: .zbar, checker: .zxing, checkerReadable: ZXingDecoder().readable, secondLook: look, held: held)
}

@Suite(.offThePool) struct LinearReadingCheckTests {
    @Test("on a file, a zbar-only reading the second look does not confirm is not emitted, and is counted dropped")
    func unconfirmedIsDropped() throws {
        let frame = try linearFrame("EANX", "590123412345")
        let wrong = misread(try zbarReading(of: frame), as: "5901234123464")
        let look = ScriptedSecondLook(reading: [])
        let checked = hybridCheck(look).check([wrong], frame: frame, symbologies: linear, unconfirmed: .dropped)
        #expect(checked.codes.isEmpty)
        #expect(checked.counts == ReadingCheckCounts(dropped: 1))
        #expect(look.lookedAt.map(\.data) == [wrong.data])
    }

    @Test("a zbar-only reading zxing-cpp reads the same in the second look (real libraries, stretched band) is emitted, counted confirmed")
    func secondLookConfirms() throws {
        let frame = try linearFrame("EANX", "590123412345")
        let reading = try zbarReading(of: frame)
        let checked = hybridCheck(BandSecondLook(checker: ZXingDecoder(), checked: ZBarDecoder())).check([reading], frame: frame, symbologies: linear, unconfirmed: .dropped)
        #expect(checked.codes.map(\.text) == ["5901234123457"])
        #expect(checked.codes.first?.engine == .zbar)
        #expect(checked.counts == ReadingCheckCounts(confirmed: 1))
    }

    @Test("the real second look puts zxing-cpp's reading back in frame pixels, over the code")
    func secondLookIsInFramePixels() throws {
        let frame = try linearFrame("CODE128", "BAND-128")
        let reading = try zbarReading(of: frame)
        let found = BandSecondLook(checker: ZXingDecoder(), checked: ZBarDecoder()).read(around: reading, in: frame, symbologies: linear)
        let code = try #require(found.first)
        #expect(code.engine == .zxing && code.text == "BAND-128")
        #expect(LinearReadingCheck.covers(code, reading), "\(code.bounds) vs zbar's \(reading.bounds)")
        #expect(code.bounds.x >= 0 && code.bounds.x + code.bounds.width <= 320 && code.bounds.y >= 40 && code.bounds.y <= 120, "\(code.bounds)")
    }

    @Test("a zbar reading zxing-cpp read differently in the same place is settled: zxing-cpp's is emitted, zbar's is not")
    func disagreementIsSettled() throws {
        let frame = try linearFrame("EANX", "590123412345")
        let right = try zbarReading(of: frame)
        let wrong = misread(right, as: "5901234123464")
        var zxing = right
        (zxing.engine, zxing.pass) = (.zxing, .zxingFull)
        // In the frame's own passes…
        let inFrame = hybridCheck(ScriptedSecondLook(reading: [])).check([wrong, zxing], frame: frame, symbologies: linear, unconfirmed: .dropped)
        #expect(inFrame.codes.map(\.text) == ["5901234123457"] && inFrame.codes.first?.engine == .zxing)
        #expect(inFrame.counts == ReadingCheckCounts(settled: 1))
        // …and in the second look.
        let second = hybridCheck(ScriptedSecondLook(reading: [zxing])).check([wrong], frame: frame, symbologies: linear, unconfirmed: .dropped)
        #expect(second.codes.map(\.text) == ["5901234123457"] && second.codes.first?.engine == .zxing)
        #expect(second.counts == ReadingCheckCounts(settled: 1))
    }

    @Test("on a live source an unconfirmed reading is held, emitted when zbar reads it in another frame, dropped when the window passes")
    func liveHoldsUntilAnotherFrame() throws {
        let check = hybridCheck(ScriptedSecondLook(reading: []))
        let first = try linearFrame("EANX", "590123412345", seq: 1), second = try linearFrame("EANX", "590123412345", seq: 2)
        let reading = readAlong(3, try zbarReading(of: first))
        let a = check.check([reading], frame: first, symbologies: linear, unconfirmed: .held)
        #expect(a.codes.isEmpty && a.counts == ReadingCheckCounts(held: 1))
        let again = check.check([reading], frame: first, symbologies: linear, unconfirmed: .held)
        #expect(again.codes.isEmpty && again.counts == ReadingCheckCounts(), "the same frame is no confirmation")
        let b = check.check([reading], frame: second, symbologies: linear, unconfirmed: .held)
        #expect(b.codes.count == 1 && b.counts == ReadingCheckCounts(confirmed: 1))

        let other = misread(reading, as: "5901234123464")
        _ = check.check([other], frame: second, symbologies: linear, unconfirmed: .held)
        let late = try linearFrame("EANX", "590123412345", seq: 2 + 11)  // 1.1 s later
        let d = check.check([reading], frame: late, symbologies: linear, unconfirmed: .held)
        #expect(d.codes.isEmpty && d.counts == ReadingCheckCounts(held: 1, dropped: 1), "\(d.counts)")
    }

    @Test("hybrid's kind of check gives each scanning thread's check the output's one store of held readings: one thread holds, another confirms")
    func scanningThreadsShareHeldReadings() throws {
        let kind = try #require(DecoderEngine.hybrid.readingCheck)
        let shared = kind.makeSharedState()
        let a = try #require(kind.makeCheck(engine: .hybrid, shared: shared) as? LinearReadingCheck)
        let b = try #require(kind.makeCheck(engine: .hybrid, shared: shared) as? LinearReadingCheck)
        #expect(a.held === b.held && a.held === (shared as? LockedValue<HeldReadings>))
        #expect(a.checkerReadable == ZXingDecoder().readable)
        let first = try linearFrame("EANX", "590123412345", seq: 1), second = try linearFrame("EANX", "590123412345", seq: 2)
        let reading = readAlong(3, try zbarReading(of: first))
        let held = hybridCheck(ScriptedSecondLook(reading: []), held: a.held).check([reading], frame: first, symbologies: linear, unconfirmed: .held)
        let confirmed = hybridCheck(ScriptedSecondLook(reading: []), held: b.held).check([reading], frame: second, symbologies: linear, unconfirmed: .held)
        #expect(held.codes.isEmpty && held.counts == ReadingCheckCounts(held: 1))
        #expect(confirmed.codes.count == 1 && confirmed.counts == ReadingCheckCounts(confirmed: 1))
    }

    @Test("a zbar reading along many scan lines that nothing contradicts is trusted on its own frame; along few, or beside another payload read along a third as many, it is not")
    func manyScanLinesAreTrusted() throws {
        let frame = try linearFrame("EANX", "590123412345")
        let reading = try zbarReading(of: frame)
        #expect((reading.quality ?? 0) >= LinearReadingCheck.trustedQuality, "zbar's lines over a clean 40-row code: \(reading.quality ?? 0)")
        let check = hybridCheck(ScriptedSecondLook(reading: []))
        let trusted = check.check([reading], frame: frame, symbologies: linear, unconfirmed: .dropped)
        #expect(trusted.codes.map(\.text) == ["5901234123457"] && trusted.counts == ReadingCheckCounts(confirmed: 1))
        let few = check.check([readAlong(LinearReadingCheck.trustedQuality - 1, reading)], frame: frame, symbologies: linear, unconfirmed: .dropped)
        #expect(few.codes.isEmpty && few.counts == ReadingCheckCounts(dropped: 1))
        // Another EAN/UPC payload where it lies: trusted only when read along fewer than a third as many lines.
        let q = reading.quality ?? 0
        var other = readAlong(q / 3 + 1, misread(reading, as: "0590123412341"))
        other.symbology = .upca
        let contested = check.check([reading, other], frame: frame, symbologies: linear, unconfirmed: .dropped)
        #expect(contested.codes.isEmpty && contested.counts == ReadingCheckCounts(dropped: 2))
        other.quality = max(1, q / 3 - 1)
        let outnumbered = check.check([reading, other], frame: frame, symbologies: linear, unconfirmed: .dropped)
        #expect(outnumbered.codes.map(\.text) == ["5901234123457"] && outnumbered.counts == ReadingCheckCounts(confirmed: 1, dropped: 1))
    }

    @Test("with items, an unconfirmed reading goes on to the item tracker, counted held, for it to confirm")
    func unconfirmedIsPassedOnToItems() throws {
        let frame = try linearFrame("EANX", "590123412345")
        let wrong = misread(try zbarReading(of: frame), as: "5901234123464")
        let checked = hybridCheck(ScriptedSecondLook(reading: []))
            .check([wrong], frame: frame, symbologies: linear, unconfirmed: .passedOn)
        #expect(checked.codes.isEmpty && checked.unconfirmed.map(\.text) == ["5901234123464"])
        #expect(checked.counts == ReadingCheckCounts(held: 1))
    }

    @Test("zbar's Code 39 Full ASCII pairs are decoded as zxing-cpp decodes them; plain Code 39 is left alone")
    func fullASCII() throws {
        let frame = try linearFrame("CODE39", "X")
        let code = try zbarReading(of: frame)
        func decoded(_ raw: String) -> String? { LinearReadingCheck.fullASCII(misread(code, as: raw)).text }
        #expect(decoded("+C39+X912+A+B") == "c39x912ab")
        #expect(decoded("A$MB/C%V/Z") == "A\rB#@:")
        #expect(decoded("C39-1+") == "C39-1+" && decoded("A+1") == "A+1" && decoded("/P") == "/P")
    }

    @Test("hybrid on a real Extended Code 39 gives zxing-cpp's Full ASCII text once, and counts no check")
    func hybridReadsFullASCIIOnce() throws {
        let frame = try linearFrame("EXCODE39", "c39xab")
        let settings = MetadataOutput.Settings(engine: .hybrid, scanner: ScannerSettings(symbologies: [.code39]), effort: .max)
        let report = MetadataOutput(settings: settings).makeScanner().scanReport(frame)
        #expect(report.readings[.zbar]?.map(\.text) == ["+C39+X+A+B"], "zbar alone gives the plain characters")
        #expect(report.codes.map(\.text) == ["c39xab"])
        #expect(report.readingCheck == ReadingCheckCounts())
    }

    @Test("engines with different reading checks are different engines; the same check is the same")
    func engineEqualityComparesTheCheck() {
        let h = DecoderEngine.hybrid
        let unchecked = DecoderEngine(name: h.name, libraries: h.libraries, passes: h.passes, preferred: h.preferred)
        let swapped = DecoderEngine(name: h.name, libraries: h.libraries, passes: h.passes, preferred: h.preferred,
                                    readingCheck: LinearReadingCheck.Kind(checked: .zxing, checker: .zbar))
        let same = DecoderEngine(name: h.name, libraries: h.libraries, passes: h.passes, preferred: h.preferred,
                                 readingCheck: LinearReadingCheck.Kind(checked: .zbar, checker: .zxing))
        #expect(h != unchecked && unchecked != h && h != swapped)
        #expect(h == same)
    }
}
