import Decoders
import Foundation
import Logging
import Media
import TestSupport
import Testing
@testable import Capture

private let logger = Logger(label: "test")

/// Runs `source` through a session and returns what the synchronizer delivered.
private func run(_ source: ScriptedFrameSource, video: VideoDataOutput = VideoDataOutput(), threads: Int = 1,
                 frameLimit: Int? = nil) async throws -> (collections: [SynchronizedDataCollection], stats: CaptureStatistics) {
    let recorder = CollectionRecorder()
    let session = CaptureSession(input: source, videoDataOutput: video,
                                 metadataOutput: MetadataOutput(settings: .init(engine: .zbar), scanningThreads: threads), logger: logger)
    let sync = DataOutputSynchronizer { recorder.append($0) }
    let stats = try await session.run(synchronizer: sync, frameLimit: frameLimit)
    return (recorder.collections, stats)
}

/// Every sequence number from the first to the last comes out exactly once, in order.
private func expectLedgerComplete(_ collections: [SynchronizedDataCollection], first: UInt64, last: UInt64,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(collections.map(\.sequenceNumber) == Array(first...last), sourceLocation: sourceLocation)
    for c in collections {
        // Scanned frames carry metadata (maybe empty); dropped ones carry a reason and no metadata.
        #expect(c.video.wasDropped == (c.metadata == nil), sourceLocation: sourceLocation)
    }
}

@Suite(.offThePool) struct CaptureSessionTests {
    @Test func aFileSourceHasEveryFrameScanned() async throws {
        let source = ScriptedFrameSource(steps: ScriptedFrameSource.frames(50), isLive: false, width: 320, height: 240)
        let (out, stats) = try await run(source)
        expectLedgerComplete(out, first: 0, last: 49)
        #expect(stats.scanned == 50 && stats.droppedTotal == 0)
        #expect(source.liveBuffers == 0)
    }

    @Test func aLiveSourceDropsLateFramesWithoutQueueing() async throws {
        // 640x480 frames cost zbar milliseconds each; the source delivers them back to back.
        let source = ScriptedFrameSource(steps: ScriptedFrameSource.frames(200), isLive: true, width: 640, height: 480)
        let (out, stats) = try await run(source)
        expectLedgerComplete(out, first: 0, last: 199)
        #expect(stats.dropped[.lateData, default: 0] > 0)
        #expect(stats.scanned >= 1)
        #expect(stats.scanned + stats.dropped[.lateData, default: 0] == 200)
        // One frame being scanned plus the one the source thread is holding: nothing queued.
        #expect(source.maximumLiveBuffers <= 2)
        #expect(source.liveBuffers == 0)
    }

    @Test func keepingLateFramesOnALiveSourceBoundsTheQueueAndReportsOutOfBuffers() async throws {
        let source = ScriptedFrameSource(steps: ScriptedFrameSource.frames(200), isLive: true, width: 640, height: 480)
        let video = VideoDataOutput(alwaysDiscardsLateVideoFrames: false, maximumQueuedFrames: 3)
        let (out, stats) = try await run(source, video: video)
        expectLedgerComplete(out, first: 0, last: 199)
        #expect(stats.dropped[.outOfBuffers, default: 0] > 0)
        #expect(stats.dropped[.lateData, default: 0] == 0)
        #expect(source.maximumLiveBuffers <= 1 + 3 + 1)
    }

    @Test func sequenceGapsBecomeDiscontinuityEntries() async throws {
        let steps: [ScriptedFrameSource.Step] = [.frame(7), .frame(8), .frame(12), .frame(13)]
        let (out, stats) = try await run(ScriptedFrameSource(steps: steps, isLive: false))
        expectLedgerComplete(out, first: 7, last: 13)
        #expect(out.filter { $0.video.droppedReason == .discontinuity }.map(\.sequenceNumber) == [9, 10, 11])
        #expect(out[2].video.presentationTime == nil)
        #expect(stats.scanned == 4)
    }

    @Test func framesTheSourceLostKeepTheirReason() async throws {
        let steps: [ScriptedFrameSource.Step] = [.frame(0), .dropped(1, .discontinuity), .frame(2), .dropped(3, .outOfBuffers)]
        let (out, _) = try await run(ScriptedFrameSource(steps: steps, isLive: false))
        expectLedgerComplete(out, first: 0, last: 3)
        #expect(out.map(\.video.droppedReason) == [nil, .discontinuity, nil, .outOfBuffers])
    }

    @Test func aRestartedSequenceIsRenumberedToKeepIncreasing() async throws {
        // A reopened camera starts counting at 0 again.
        let steps: [ScriptedFrameSource.Step] = [.frame(40), .frame(41), .frame(0), .frame(1)]
        let (out, _) = try await run(ScriptedFrameSource(steps: steps, isLive: false))
        expectLedgerComplete(out, first: 40, last: 43)
        #expect(out.allSatisfy { !$0.video.wasDropped })
    }

    @Test func aRepeatedSequenceNumberIsLeftOutAndCountedAndLaterNumbersStayTheSources() async throws {
        // vivid under emulation delivers e.g. 6, 7, 7, 8: the second 7 has no number of its own.
        let steps: [ScriptedFrameSource.Step] = [.frame(6), .frame(7), .frame(7), .frame(8), .frame(10)]
        let source = ScriptedFrameSource(steps: steps, isLive: false)
        let (out, stats) = try await run(source)
        expectLedgerComplete(out, first: 6, last: 10)
        #expect(out.map(\.video.droppedReason) == [nil, nil, nil, .discontinuity, nil])
        #expect(stats.repeatedSequenceNumbers == 1)
        #expect(source.liveBuffers == 0)
    }

    /// vivid's `wrap_timestamp`: a 64-bit nanosecond clock wraps from 2^63 − 1 to −2^63, then a
    /// clock reset runs it back; presentation times start at zero and keep the source's steps.
    @Test func presentationTimesStartAtZeroAndKeepIncreasingAcrossAClockWrapAndAReset() async throws {
        let step: Int64 = 16_683_350
        var raw = Int64.max - 3 * step
        var steps: [ScriptedFrameSource.Step] = []
        for seq in UInt64(0)..<10 {
            if seq == 7 { raw = Int64.min }                      // the clock is reset, back past the wrap
            steps.append(.frame(seq, pts: MediaTime(nanoseconds: raw)))
            raw = raw &+ step                                    // wraps after frame 3
        }
        let (out, _) = try await run(ScriptedFrameSource(steps: steps, isLive: false, width: 32, height: 32))
        expectLedgerComplete(out, first: 0, last: 9)
        let times = out.compactMap { $0.video.presentationTime?.nanoseconds }
        #expect(times == (0..<10).map { Int64($0) * step })
        #expect(out.allSatisfy { $0.video.frame?.presentationTime == $0.video.presentationTime })
        #expect(out.allSatisfy { $0.metadata?.presentationTime == $0.video.presentationTime })
    }

    @Test func framesBeforeASourceErrorAreDeliveredThenTheErrorIsThrown() async throws {
        let steps = ScriptedFrameSource.frames(5) + [.fail("frame 5 truncated")]
        let source = ScriptedFrameSource(steps: steps, isLive: false)
        let recorder = CollectionRecorder()
        let session = CaptureSession(input: source, metadataOutput: MetadataOutput(settings: .init(engine: .zbar)), logger: logger)
        let sync = DataOutputSynchronizer { recorder.append($0) }
        await #expect(throws: ScriptedFrameSource.ScriptError.self) {
            try await session.run(synchronizer: sync)
        }
        #expect(recorder.collections.map(\.sequenceNumber) == [0, 1, 2, 3, 4])
    }

    @Test func aFrameLimitStopsAfterThatManySequenceNumbers() async throws {
        let steps: [ScriptedFrameSource.Step] = [.frame(0), .frame(1), .frame(5), .frame(6), .frame(7)]
        let (out, _) = try await run(ScriptedFrameSource(steps: steps, isLive: false), frameLimit: 4)
        expectLedgerComplete(out, first: 0, last: 3)
    }

    @Test func aDeliveryFailureStopsTheSessionAndIsThrown() async throws {
        struct StdoutClosed: Error {}
        let source = ScriptedFrameSource(steps: ScriptedFrameSource.frames(1000), isLive: false)
        let session = CaptureSession(input: source, metadataOutput: MetadataOutput(settings: .init(engine: .zbar)), logger: logger)
        let sync = DataOutputSynchronizer { c in if c.sequenceNumber == 3 { throw StdoutClosed() } }
        await #expect(throws: StdoutClosed.self) { try await session.run(synchronizer: sync) }
        #expect(sync.statistics.frames < 1000)
    }

    @Test func twoScanningThreadsStillDeliverInOrder() async throws {
        let source = ScriptedFrameSource(steps: ScriptedFrameSource.frames(60), isLive: false, width: 320, height: 240)
        let (out, stats) = try await run(source, threads: 2)
        expectLedgerComplete(out, first: 0, last: 59)
        #expect(stats.scanned == 60)
    }

    @Test func cancellingTheTaskStopsALiveSource() async throws {
        let source = ScriptedFrameSource(steps: ScriptedFrameSource.frames(100_000), isLive: true, interval: .milliseconds(1))
        let session = CaptureSession(input: source, metadataOutput: MetadataOutput(settings: .init(engine: .zbar)), logger: logger)
        let recorder = CollectionRecorder()
        let sync = DataOutputSynchronizer { recorder.append($0) }
        // The session runs in a child task, on this suite's executor: a `Task {}` would run on
        // Swift's concurrency pool, and with the pool's threads blocked elsewhere it does not
        // start at all (0 collections, however long the test waits).
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await session.run(synchronizer: sync) }
            // Frames flow (the event, however loaded the machine), then the task is cancelled.
            #expect(waitUntil { recorder.collections.count >= 5 }, "frames flowing before the cancel")
            group.cancelAll()
            try await group.waitForAll()
        }
        let n = recorder.collections.count
        #expect(n >= 5 && n < 100_000)
        #expect(recorder.collections.map(\.sequenceNumber) == Array(0..<UInt64(n)))
    }
}

@Suite(.offThePool) struct VideoDataOutputPolicyTests {
    @Test func framesWaitOnlyForAFileWhoseLateFramesAreKept() {
        let file = ScriptedFrameSource(steps: [], isLive: false), camera = ScriptedFrameSource(steps: [], isLive: true)
        // The default follows the source: a file keeps late frames and waits; a camera drops them.
        #expect(VideoDataOutput().framesWait(for: file) && !VideoDataOutput().framesWait(for: camera))
        #expect(!VideoDataOutput(alwaysDiscardsLateVideoFrames: true).framesWait(for: file))
        // Keeping late frames of a live source still never blocks it: a full queue drops.
        #expect(!VideoDataOutput(alwaysDiscardsLateVideoFrames: false).framesWait(for: camera))
        #expect(VideoDataOutput(alwaysDiscardsLateVideoFrames: false).framesWait(for: file))
    }
}
