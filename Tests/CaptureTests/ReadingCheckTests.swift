@testable import Capture
import Media
import SystemCalls
import Testing
import TestSupport

/// A reading check that keeps no reading: each is passed on when asked to, else dropped. Its
/// checks note what each frame's scan told them in the state one output's checks share.
private struct DroppingCheck: ReadingCheckKind {
    final class Told: Sendable {
        let outcomes = LockedValue<[UnconfirmedReadings]>([])
    }

    struct Check: ReadingCheck {
        let told: Told
        func check(_ codes: [MachineReadableCodeObject], frame: VideoFrame, symbologies: Set<Symbology>,
                   unconfirmed: UnconfirmedReadings) -> CheckedReadings {
            told.outcomes.withLock { $0.append(unconfirmed) }
            return unconfirmed == .passedOn ? CheckedReadings(codes: [], unconfirmed: codes, counts: ReadingCheckCounts(held: codes.count))
                : CheckedReadings(codes: [], counts: ReadingCheckCounts(dropped: codes.count))
        }
    }

    func makeSharedState() -> any Sendable { Told() }
    func makeCheck(engine: DecoderEngine, shared: any Sendable) -> (any ReadingCheck)? {
        (shared as? Told).map { Check(told: $0) }
    }
}

@Suite(.offThePool) struct ReadingCheckTests {
    @Test("a frame's check counts reach CaptureStatistics, and add up across runs")
    func countersAddUp() {
        var statistics = CaptureStatistics()
        let metadata = SynchronizedMetadataObjectData(presentationTime: .zero, metadataObjects: [],
                                                      readingCheck: ReadingCheckCounts(confirmed: 1, settled: 2, held: 3, dropped: 4))
        statistics.record(SynchronizedDataCollection(
            video: SynchronizedVideoData(sequenceNumber: 0, presentationTime: .zero, frame: nil, droppedReason: nil), metadata: metadata))
        #expect(statistics.readingCheck == ReadingCheckCounts(confirmed: 1, settled: 2, held: 3, dropped: 4))
        var total = statistics
        total.add(statistics)
        #expect(total.readingCheck == ReadingCheckCounts(confirmed: 2, settled: 4, held: 6, dropped: 8))
    }

    @Test("an engine's own check gets every frame's readings and what becomes of the unconfirmed ones; one output's checks share one state")
    func theEngineChecksItsReadings() throws {
        var grey = GreyFrame(width: 64, height: 48)
        grey[10, 20] = 7
        let frame = grey.videoFrame(sequenceNumber: 3, presentationTime: MediaTime(nanoseconds: 100_000_000))
        let engine = DecoderEngine(name: "dot", libraries: [DotDecoderLibrary()], passes: [DotDecoderLibrary.pass], readingCheck: DroppingCheck())
        var settings = MetadataOutput.Settings(engine: engine, scanner: ScannerSettings(symbologies: [.code93]))
        let live = MetadataOutput(settings: settings)
        let (a, b) = (live.makeScanner(live: true).scanReport(frame), live.makeScanner(live: true).scanReport(frame))
        #expect(a.codes.isEmpty && a.readings[DotDecoderLibrary.pass]?.map(\.text) == ["dot 10,20"])
        #expect(a.readingCheck == ReadingCheckCounts(dropped: 1) && b.readingCheck == ReadingCheckCounts(dropped: 1))
        let told = try #require(live.readingCheckStates.state(for: DroppingCheck()) as? DroppingCheck.Told)
        #expect(told.outcomes.withLock { $0 } == [.held, .held], "both scanners' checks share the output's state")

        let file = MetadataOutput(settings: settings).makeScanner().scanReport(frame)
        #expect(file.codes.isEmpty && file.unconfirmed.isEmpty && file.readingCheck == ReadingCheckCounts(dropped: 1))
        settings.confirmsByItem = true
        let items = MetadataOutput(settings: settings).makeScanner().scanReport(frame)
        #expect(items.codes.isEmpty && items.unconfirmed.map(\.text) == ["dot 10,20"] && items.readingCheck == ReadingCheckCounts(held: 1))
    }
}
