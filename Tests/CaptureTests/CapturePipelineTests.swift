import Foundation
import Logging
import Media
import SystemCalls
import TestSupport
import Testing
@testable import Capture

/// Records what a pipeline hands its results handler.
private final class RecordingHandler: ResultsHandler, @unchecked Sendable {
    let pixelsRequest: PixelsRequest? = .frame
    let pixelCopiesHeld = 3
    private let seen = LockedValue<(codes: [(text: String?, seq: UInt64, hasPixels: Bool)], frames: [UInt64])>(([], []))

    func handle(_ code: inout DeliveredCode) throws {
        let entry = (code.code.text, code.code.frame.sequenceNumber, code.pixels != nil)
        seen.withLock { $0.codes.append(entry) }
    }

    func frameCompleted(_ collection: SynchronizedDataCollection) throws { seen.withLock { $0.frames.append(collection.sequenceNumber) } }

    var codes: [(text: String?, seq: UInt64, hasPixels: Bool)] { seen.withLock { $0.codes } }
    var frames: [UInt64] { seen.withLock { $0.frames } }
}

/// Six frames of a file, 1/30 s apart: "first" in frames 0–2, "second" in frames 3–5.
private func twoCodesThreeFramesEach() throws -> ScriptedFrameSource {
    let first = try GreyFrame.withQRCode("first").0.packedPixels
    let second = try GreyFrame.withQRCode("second").0.packedPixels
    let steps: [ScriptedFrameSource.Step] = (0..<6).map { .frame(UInt64($0), pixels: $0 < 3 ? first : second) }
    return ScriptedFrameSource(steps: steps, isLive: false, width: 320, height: 240)
}

@Suite(.offThePool) struct CapturePipelineTests {
    @Test func eachFrameGoesFromTheSourceThroughDuplicateSuppressionToTheHandlerWithItsPixels() async throws {
        let handler = RecordingHandler()
        let delivered = LockedValue(0)
        let pipeline = CapturePipeline(input: try twoCodesThreeFramesEach(), videoDataOutput: VideoDataOutput(),
                                       metadataOutput: MetadataOutput(settings: .init(engine: .zbar), scanningThreads: 2),
                                       handler: handler, reporting: .window(MediaTime(seconds: 1)),
                                       frameDelivered: { delivered.withLock { $0 += 1 } }, logger: Logger(label: "test"))
        let statistics = try await pipeline.run()
        // Within the window a code is delivered once, at the frame it was first seen in.
        #expect(handler.codes.map(\.text) == ["first", "second"])
        #expect(handler.codes.map(\.seq) == [0, 3])
        #expect(handler.codes.allSatisfy { $0.hasPixels }, "the handler's pixelsRequest reached the session")
        #expect(handler.frames == [0, 1, 2, 3, 4, 5])
        #expect(delivered.withLock { $0 } == 6)
        #expect(statistics.scanned == 6 && pipeline.statistics.scanned == 6)
        #expect(pipeline.emitted == 2)
        // Its pool makes room for what the handler holds, one copy per scanning thread, two more.
        #expect(pipeline.session.pixelPool?.capacity == 3 + 2 + 2)
    }

    @Test func appliedSettingsAndWindowTakeEffectOnTheFollowingFrames() async throws {
        let handler = RecordingHandler()
        let pipeline = CapturePipeline(input: try twoCodesThreeFramesEach(), videoDataOutput: VideoDataOutput(),
                                       metadataOutput: MetadataOutput(settings: .init(engine: .zbar, scanner: .init(symbologies: [.ean13]))),
                                       handler: handler, reporting: .window(MediaTime(seconds: 1)), logger: Logger(label: "test"))
        pipeline.apply(.init(engine: .zbar), reporting: .everyReading)
        try await pipeline.run()
        // QR codes read (the symbologies applied), and no window: every frame's code delivered.
        #expect(handler.codes.map(\.seq) == [0, 1, 2, 3, 4, 5])
        #expect(pipeline.emitted == 6)
    }
}
