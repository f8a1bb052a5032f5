import Foundation
import Logging
import Media
import SystemCalls
import TestSupport
import Testing
@testable import Capture

private let width = 320, height = 240

/// Scenes of 320x240 GREY frames: nothing, a texture with no code, one QR code, two QR codes.
private enum Scene {
    static let blank = GreyFrame(width: width, height: height).packedPixels
    static let texture: [UInt8] = {
        var f = GreyFrame(width: width, height: height)
        for y in 0..<height { for x in 0..<width { f[x, y] = ((x / 6 + y / 6) % 2 == 0) ? 40 : 210 } }
        return f.packedPixels
    }()
    static func one() throws -> [UInt8] { try GreyFrame.withQRCode("first").frame.packedPixels }
    static func two() throws -> [UInt8] {
        var f = GreyFrame(width: width, height: height)
        f.draw(try ModuleMatrix.qrCode("left"), centerX: 80, centerY: 120, moduleSize: 3)
        f.draw(try ModuleMatrix.qrCode("right"), centerX: 240, centerY: 120, moduleSize: 3)
        return f.packedPixels
    }
}

/// A frame source that pulls the trigger just before it hands out the frames named in `pulls`
/// (a source without capture times: the pipeline takes them with that frame, the window opens
/// there; one that stamps them: the frame was captured before the pull, the window opens at the next).
private final class PullingSource: FrameSource, @unchecked Sendable {
    let inner: ScriptedFrameSource
    let triggers: TriggerSwitch
    let pulls: [UInt64: [TriggerSwitch.Pull.Kind]]
    /// Frames handed out so far.
    let handedOut = LockedValue<UInt64>(0)
    /// Before handing out the frame with this number, waits until `released` holds.
    let hold: (frame: UInt64, released: @Sendable () -> Bool)?
    var uri: String { inner.uri }
    var isLive: Bool { inner.isLive }
    var report: SourceReport { inner.report }

    init(_ inner: ScriptedFrameSource, triggers: TriggerSwitch, pulls: [UInt64: [TriggerSwitch.Pull.Kind]],
         hold: (frame: UInt64, released: @Sendable () -> Bool)? = nil) {
        (self.inner, self.triggers, self.pulls, self.hold) = (inner, triggers, pulls, hold)
    }

    func start() throws { try inner.start() }
    func stop() { inner.stop() }
    func next() throws -> SourceEvent? {
        let event = try inner.next()
        if case .frame(let frame)? = event {
            if let hold, frame.sequenceNumber == hold.frame { waitUntil(hold.released) }
            handedOut.withLock { $0 += 1 }
            for kind in pulls[frame.sequenceNumber] ?? [] {
                kind == .press ? triggers.press(origin: "test") : triggers.release(origin: "test")
            }
        }
        return event
    }
}

/// Records the results, codes and frames a pipeline hands its handler, in order.
private final class ResultsRecorder: ResultsHandler, @unchecked Sendable {
    enum Event: Equatable { case code(String, UInt64), result(ReadResult.Kind, UInt64), removed(UInt64) }
    private let seen = LockedValue<(events: [Event], results: [ReadResult], frames: [UInt64: DroppedReason?])>(([], [], [:]))

    func handle(_ code: inout DeliveredCode) throws {
        let event = Event.code(code.code.text ?? "", code.code.frame.sequenceNumber)
        seen.withLock { $0.events.append(event) }
    }
    func readResult(_ result: inout ReadResult) throws {
        let r = result
        seen.withLock { $0.events.append(.result(r.kind, r.window)); $0.results.append(r) }
    }
    func itemRemoved(_ item: RemovedItem) throws { seen.withLock { $0.events.append(.removed(item.id)) } }
    func frameCompleted(_ collection: SynchronizedDataCollection) throws {
        seen.withLock { $0.frames[collection.sequenceNumber] = .some(collection.video.droppedReason) }
    }

    var events: [Event] { seen.withLock { $0.events } }
    var results: [ReadResult] { seen.withLock { $0.results } }
    var frames: [UInt64: DroppedReason?] { seen.withLock { $0.frames } }
}

/// Runs `steps` (frames 1/30 s apart) through a pipeline in `trigger.mode: triggered` with `window`,
/// pulling the trigger as `pulls` says; returns the recorder, the counts and the statistics.
private func run(_ steps: [ScriptedFrameSource.Step], pulls: [UInt64: [TriggerSwitch.Pull.Kind]], window: TriggerSettings.Window,
                 expected: Int = 1, reporting: CodeReporting = .items(ItemTracker.Settings()), live: Bool = false,
                 stampsCapture: Bool = false, triggers: TriggerSwitch = TriggerSwitch(),
                 hold: (frame: UInt64, released: @Sendable () -> Bool)? = nil,
                 started: (PullingSource) -> Void = { _ in }) async throws -> (ResultsRecorder, ReadWindowCounts.Counts, CaptureStatistics) {
    let recorder = ResultsRecorder()
    let counts = ReadWindowCounts()
    let source = PullingSource(ScriptedFrameSource(steps: steps, isLive: live, width: width, height: height,
                                                   interval: live ? .milliseconds(10) : nil, stampsCapture: stampsCapture),
                               triggers: triggers, pulls: pulls, hold: hold)
    started(source)
    var settings = MetadataOutput.Settings(engine: .zbar)
    settings.trigger = TriggerSettings(mode: .triggered, window: window, expected: expected)
    let pipeline = CapturePipeline(input: source, videoDataOutput: VideoDataOutput(), metadataOutput: MetadataOutput(settings: settings, scanningThreads: 2),
                                   handler: recorder, reporting: reporting,
                                   readWindows: ReadWindows(triggers: triggers, counts: counts), logger: Logger(label: "test"))
    let statistics = try await pipeline.run()
    return (recorder, counts.current, statistics)
}

/// 130 ms: four frames at 30 fps (0, 33, 67, 100 ms after the first).
private let fourFrames = TriggerSettings.Window(duration: MediaTime(nanoseconds: 130_000_000))

@Suite(.offThePool) struct TriggeredReadsTests {
    /// A window over nothing is a no_read, over one code good, over two codes multiple; frames
    /// outside the windows are untriggered, never scanned, and their codes never reported.
    @Test func windowsWithNoCodeOneCodeAndTwoCodesAreNoReadGoodAndMultiple() async throws {
        let (one, two) = (try Scene.one(), try Scene.two())
        // 0–9 one code (outside any window), 10–19 nothing, 20–29 one code, 30–39 two codes.
        let scenes: [[UInt8]] = [one, Scene.texture, one, two]
        let steps: [ScriptedFrameSource.Step] = (0..<40).map { (seq: Int) -> ScriptedFrameSource.Step in
            .frame(UInt64(seq), pixels: scenes[seq / 10])
        }
        let (recorder, counts, statistics) = try await run(steps, pulls: [12: [.press], 22: [.press], 32: [.press]], window: fourFrames)
        let results = recorder.results
        #expect(results.map(\.kind) == [.noRead, .good, .multiple])
        #expect(results.map(\.window) == [1, 2, 3])
        #expect(results.map(\.opened.sequenceNumber) == [12, 22, 32] && results.map(\.closed.sequenceNumber) == [15, 25, 35])
        #expect(results.map(\.framesScanned) == [4, 4, 4] && results.map(\.codes) == [0, 1, 2])
        #expect(results.map(\.trigger) == ["test", "test", "test"])
        #expect(results[1].items.count == 1 && results[2].items.count == 2)
        #expect(results[0].diagnosis != nil && results[1].diagnosis == nil, "a no_read keeps a frame for diagnosis, a good one none")
        #expect(statistics.scanned == 12 && statistics.dropped[.untriggered] == 28)
        #expect(recorder.frames[0] == .some(.untriggered) && recorder.frames[12] == .some(nil) && recorder.frames[16] == .some(.untriggered))
        #expect(counts.good == 1 && counts.noRead == 1 && counts.multiple == 1 && counts.ignored == 0)
        // In frame order: a window's codes, then its result, then its items leave.
        let events = recorder.events
        #expect(events.first { if case .code = $0 { true } else { false } } == .code("first", 22), "frames 0–9 were never scanned")
        let goodResult = try #require(events.firstIndex(of: .result(.good, 2)))
        #expect(events[goodResult + 1] == .removed(results[1].items[0]))
        #expect(events.last == .removed(results[2].items[1]))
    }

    /// A patterned frame is sharper than a flat one, also a pattern of an even period.
    @Test func sharpnessTellsATextureFromAFlatFrame() throws {
        func energy(_ pixels: [UInt8]) -> Double {
            pixels.withUnsafeBytes { raw in
                Sharpness.gradientEnergy(of: VideoFrame(sequenceNumber: 0, presentationTime: .zero, width: width, height: height,
                                                        bytesPerLine: width, format: .grey, buffer: PixelBuffer(bytes: raw) {}))
            }
        }
        #expect(energy(Scene.blank) == 0)
        #expect(energy(Scene.texture) > 1000)
    }

    /// The no_read's diagnosis frame is its sharpest: the texture, not the blank frames around it.
    @Test func aNoReadKeepsItsSharpestFrame() async throws {
        let steps: [ScriptedFrameSource.Step] = (0..<12).map { (seq: Int) -> ScriptedFrameSource.Step in
            .frame(UInt64(seq), pixels: seq == 6 ? Scene.texture : Scene.blank)
        }
        let (recorder, _, _) = try await run(steps, pulls: [4: [.press]], window: fourFrames)
        let diagnosis = try #require(recorder.results.first?.diagnosis)
        #expect(diagnosis.pixels.frame.sequenceNumber == 6)
        let copied = diagnosis.pixels.withUnsafeBytes { Array($0.prefix(width * height)) }
        #expect(copied.elementsEqual(Scene.texture), "the copy is the frame's own pixels")
        #expect(diagnosis.score.sharpness > 0)
    }

    /// A press while a window is open is ignored and counted; a release without a window too
    /// (not counted); with until_release a release closes the window.
    @Test func aPressWhileAWindowIsOpenIsIgnoredAndAReleaseClosesAnUntilReleaseWindow() async throws {
        let steps = ScriptedFrameSource.frames(30)
        let (ignoring, counts, _) = try await run(steps, pulls: [2: [.release], 5: [.press, .press], 6: [.press]], window: fourFrames)
        #expect(ignoring.results.map(\.window) == [1] && ignoring.results.map(\.opened.sequenceNumber) == [5])
        #expect(ignoring.results.map(\.closed.sequenceNumber) == [8])
        #expect(counts.ignored == 2)

        let long = TriggerSettings.Window(duration: MediaTime(seconds: 60), untilRelease: true)
        let (released, _, _) = try await run(steps, pulls: [5: [.press], 9: [.release], 12: [.press, .release]], window: long)
        #expect(released.results.map(\.opened.sequenceNumber) == [5, 12])
        #expect(released.results.map(\.closed.sequenceNumber) == [8, 12], "a release in the frame its press opened keeps that one frame")
    }

    /// window.codes closes the window at the frame that read them; its later frames are untriggered.
    @Test func aWindowClosesWhenItReadItsCodes() async throws {
        let one = try Scene.one()
        let steps: [ScriptedFrameSource.Step] = (0..<20).map { (seq: Int) -> ScriptedFrameSource.Step in
            .frame(UInt64(seq), pixels: seq >= 8 ? one : Scene.blank)
        }
        let window = TriggerSettings.Window(duration: MediaTime(seconds: 60), codes: 1)
        let (recorder, _, statistics) = try await run(steps, pulls: [5: [.press]], window: window)
        let result = try #require(recorder.results.first)
        #expect(recorder.results.count == 1 && result.kind == .good && result.closed.sequenceNumber == 8)
        #expect(statistics.scanned < 20)
        #expect(recorder.frames[19] == .some(.untriggered))
    }

    /// On a live source that stamps capture times, a press made after a frame was captured (here
    /// while the source hands it out, as one waiting in the driver or the pipe) opens the window
    /// at the next frame: the frame captured before the press stays untriggered.
    @Test func aPressOpensTheWindowAtTheFirstFrameCapturedAfterIt() async throws {
        let (recorder, _, _) = try await run(ScriptedFrameSource.frames(20), pulls: [5: [.press]], window: fourFrames, live: true,
                                             stampsCapture: true)
        #expect(recorder.results.map(\.opened.sequenceNumber) == [6], "\(recorder.results.map(\.opened))")
        #expect(recorder.frames[5] == .some(.untriggered), "frame 5 was captured before the press")
        #expect(recorder.frames[6] != .some(.untriggered))
    }

    /// A window longer than the run closes at the end of the source with its result.
    @Test func aWindowLongerThanTheRunClosesAtTheEnd() async throws {
        let one = try Scene.one()
        let steps: [ScriptedFrameSource.Step] = (0..<10).map { (seq: Int) -> ScriptedFrameSource.Step in
            .frame(UInt64(seq), pixels: seq == 9 ? one : Scene.blank)
        }
        let (recorder, counts, _) = try await run(steps, pulls: [6: [.press]], window: TriggerSettings.Window(duration: MediaTime(seconds: 3600)))
        #expect(recorder.results.map(\.kind) == [.good])
        #expect(recorder.results.map(\.closed.sequenceNumber) == [9] && recorder.results.map(\.framesScanned) == [4])
        #expect(counts.good == 1)
    }

    /// 1,000 presses in bursts of ten, one burst per frame of a live source (10 ms apart): the
    /// switch keeps a bounded number, the rest are dropped or ignored, every press is accounted
    /// for, and every frame is delivered.
    ///
    /// The storm is paced by the frames the source hands out, not by the clock: a slow start
    /// (a sanitizer, a loaded machine) cannot let the storm end before the scan begins. The
    /// source holds frame 120 back until the storm is over, so every press falls within the run.
    @Test func aStormOfAThousandPressesIsBoundedAndCounted() async throws {
        let triggers = TriggerSwitch()
        let stormOver = LockedValue(false)
        let (recorder, counts, statistics) = try await run(ScriptedFrameSource.frames(150), pulls: [:], window: fourFrames, live: true,
                                                          triggers: triggers, hold: (120, { stormOver.withLock { $0 } })) { source in
            let storm = Thread {
                for burst in 0..<UInt64(100) {
                    waitUntil { source.handedOut.withLock { $0 > burst } }
                    for _ in 0..<10 { triggers.press(origin: "storm") }
                }
                stormOver.withLock { $0 = true }
            }
            storm.start()
        }
        let pulls = triggers.counts
        #expect(pulls.pulls == 1_000)
        #expect(pulls.dropped + counts.ignored + recorder.results.count == 1_000, "each press opened a window, was ignored or dropped")
        #expect(recorder.results.count >= 5, "windows kept opening while the storm lasted (a burst at each of 100 frames, four-frame windows)")
        #expect(statistics.frames == 150 && recorder.frames.count == 150, "the scan went on")
    }
}
