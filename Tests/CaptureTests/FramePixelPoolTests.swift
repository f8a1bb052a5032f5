import Decoders
import Foundation
import Logging
import SystemCalls
import Media
import TestSupport
import Testing
@testable import Capture

/// A `width`×`height` frame of `format` whose every byte is its index (mod 251), so a copy shows where each byte came from.
private func patternFrame(_ format: PixelFormat, width: Int = 16, height: Int = 8, padding: Int = 4, sequenceNumber: UInt64 = 3) -> (VideoFrame, [UInt8]) {
    let stride = format.minimumBytesPerLine(width: width) + padding
    let bytes = (0..<format.frameSize(width: width, height: height, bytesPerLine: stride)).map { UInt8($0 % 251) }
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 64)
    bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
    let buffer = PixelBuffer(bytes: UnsafeRawBufferPointer(storage)) { storage.deallocate() }
    return (VideoFrame(sequenceNumber: sequenceNumber, presentationTime: .zero, width: width, height: height, bytesPerLine: stride,
                       format: format, buffer: buffer), bytes)
}

@Suite(.offThePool) struct FramePixelPoolTests {
    @Test("a crop copies exactly the source bytes of its rows and columns, plane by plane", arguments: PixelFormat.allCases.filter { !$0.isCompressed })
    func cropCopiesThePlanesRows(format: PixelFormat) throws {
        let (frame, bytes) = patternFrame(format)
        let pool = FramePixelPool(capacity: 2)
        // x 5 and y 3 are widened down to the format's alignment (4 and 2 for 4:2:0).
        let pixels = try #require(pool.copy(frame, region: PixelRect(x: 5, y: 3, width: 6, height: 4)))
        let (ax, ay) = format.cropAlignment
        #expect(pixels.region.x == 5 / ax * ax && pixels.region.y == 3 / ay * ay)
        #expect(pixels.region.x + pixels.width >= 11 && pixels.region.y + pixels.height >= 7)
        #expect(pixels.bytesPerLine == format.minimumBytesPerLine(width: pixels.width))
        let source = format.planes(height: frame.height, bytesPerLine: frame.bytesPerLine)
        let copy = format.planes(height: pixels.height, bytesPerLine: pixels.bytesPerLine)
        pixels.withUnsafeBytes { out in
            #expect(out.count == format.frameSize(width: pixels.width, height: pixels.height, bytesPerLine: pixels.bytesPerLine))
            for (from, to) in zip(source, copy) {
                let columns = from.columnBytes(x: pixels.region.x, width: pixels.width)
                for (row, outRow) in zip(from.rowRange(y: pixels.region.y, height: pixels.height), 0...) {
                    let expected = Array(bytes[(from.offset + row * from.bytesPerLine + columns.lowerBound)...].prefix(columns.count))
                    let got = Array(out[(to.offset + outRow * to.bytesPerLine)...].prefix(columns.count))
                    #expect(got == expected, "\(format) plane at \(from.offset) row \(row)")
                }
            }
        }
    }

    @Test func theWholeFrameIsCopiedWithoutItsRowPadding() throws {
        let (frame, bytes) = patternFrame(.grey, padding: 5)
        let pixels = try #require(FramePixelPool(capacity: 1).copy(frame))
        #expect(pixels.region == PixelRect(x: 0, y: 0, width: 16, height: 8) && pixels.bytesPerLine == 16)
        let expected = (0..<8).flatMap { row in bytes[(row * 21)..<(row * 21 + 16)] }
        #expect(pixels.withUnsafeBytes { Array($0) } == expected)
        #expect(pixels.frame == frame.info)
    }

    @Test func aFullPoolSkipsAndCountsAndARecycledBufferIsReused() throws {
        let (frame, _) = patternFrame(.grey)
        let pool = FramePixelPool(capacity: 2)
        var held = [pool.copy(frame), pool.copy(frame)]
        #expect(held.allSatisfy { $0 != nil } && pool.lentCount == 2)
        #expect(pool.copy(frame) == nil)
        #expect(pool.skipped == 1 && pool.copied == 2)
        held.removeLast()
        #expect(pool.lentCount == 1)
        #expect(pool.copy(frame) != nil)
        #expect(pool.copied == 3 && pool.skipped == 1)
    }

    /// A waiting copy waits for a delivered copy (a handler frees it) to come back.
    @Test func aWaitingCopyWaitsForADeliveredCopy() throws {
        let pool = FramePixelPool(capacity: 1)
        var first = pool.copy(patternFrame(.grey, sequenceNumber: 3).0)
        first?.markDelivered()
        let second = copyAfterARelease(of: &first, in: pool, frame: patternFrame(.grey, sequenceNumber: 4).0)
        #expect(second != nil && pool.skipped == 0)
    }

    /// A waiting copy waits for the undelivered copy of an earlier frame: that frame is
    /// delivered before this one, so its copy comes back without this one's help.
    @Test func aWaitingCopyWaitsForAnEarlierFramesUndeliveredCopy() throws {
        let pool = FramePixelPool(capacity: 1)
        var earlier = pool.copy(patternFrame(.grey, sequenceNumber: 3).0)
        let later = copyAfterARelease(of: &earlier, in: pool, frame: patternFrame(.grey, sequenceNumber: 4).0)
        #expect(later != nil && pool.skipped == 0)
    }

    /// A frame earlier than every undelivered copy is not made to wait for them (they are
    /// delivered only after it): its copy is one beyond the capacity, never a skip.
    @Test func theEarliestFrameTakesACopyBeyondTheCapacityRatherThanWait() throws {
        let pool = FramePixelPool(capacity: 1)
        let later = pool.copy(patternFrame(.grey, sequenceNumber: 5).0)
        let earliest = pool.copy(patternFrame(.grey, sequenceNumber: 4).0, wait: true)
        #expect(later != nil && earliest != nil && pool.lentCount == 2 && pool.skipped == 0)
        // Without waiting (a live source) a full pool still skips.
        #expect(pool.copy(patternFrame(.grey, sequenceNumber: 3).0) == nil && pool.skipped == 1)
    }

    /// Copies `frame` with `wait` while a thread of its own releases `held` (the pool's one copy):
    /// the copy must return only after that release, however long the machine takes. The thread
    /// takes the copy out of a box (its closure would keep a capture alive with the thread).
    private func copyAfterARelease(of held: inout FramePixels?, in pool: FramePixelPool, frame: VideoFrame) -> FramePixels? {
        let released = LockedValue(false)
        let box = LockedValue(held)
        held = nil
        Thread {
            pause(.milliseconds(200))
            released.withLock { $0 = true }
            box.withLock { $0 = nil }
        }.start()
        let copy = pool.copy(frame, wait: true)
        #expect(released.withLock { $0 }, "the copy returned before the held copy was released")
        return copy
    }
}

/// A handler-free recorder of collections that keeps every frame's pixels until the test ends.
private final class PixelRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _collections: [SynchronizedDataCollection] = []
    var collections: [SynchronizedDataCollection] { lock.withLock { _collections } }
    func append(_ c: SynchronizedDataCollection) { lock.withLock { _collections.append(c) } }
}

@Suite(.offThePool) struct CaptureSessionPixelTests {
    /// 8 frames 160x120, a QR code in the even ones.
    private func source(isLive: Bool = false, interval: Duration? = nil) throws -> ScriptedFrameSource {
        var code = GreyFrame(width: 160, height: 120)
        code.draw(try ModuleMatrix.qrCode("pixels"), x: 40, y: 20, moduleSize: 3)
        let blank = GreyFrame(width: 160, height: 120)
        return ScriptedFrameSource(steps: (0..<8).map { .frame(UInt64($0), pixels: $0 % 2 == 0 ? code.bytes : blank.bytes) },
                                   isLive: isLive, width: 160, height: 120, interval: interval)
    }

    @Test func withoutARequestNoPixelsAreCopied() async throws {
        let recorder = PixelRecorder()
        let session = CaptureSession(input: try source(), metadataOutput: MetadataOutput(settings: .init(engine: .zbar)), logger: Logger(label: "test"))
        try await session.run(synchronizer: DataOutputSynchronizer { recorder.append($0) })
        #expect(session.pixelPool == nil)
        #expect(recorder.collections.count == 8 && recorder.collections.allSatisfy { $0.video.pixels == nil })
        #expect(recorder.collections.filter { !($0.metadata?.metadataObjects.isEmpty ?? true) }.count == 4)
    }

    @Test func framesWithCodesCarryTheirPixelsCroppedToTheCodes() async throws {
        let recorder = PixelRecorder()
        let input = try source()
        let session = CaptureSession(input: input, metadataOutput: MetadataOutput(settings: .init(engine: .zbar)), pixelsRequest: .codes(margin: 4), pixelCopies: 8, logger: Logger(label: "test"))
        try await session.run(synchronizer: DataOutputSynchronizer { recorder.append($0) })
        let collections = recorder.collections
        #expect(collections.count == 8)
        for c in collections {
            let codes = c.metadata?.metadataObjects ?? []
            #expect((c.video.pixels != nil) == !codes.isEmpty, "seq \(c.sequenceNumber)")
            guard let pixels = c.video.pixels, let code = codes.first else { continue }
            // The crop holds the code's bounds plus the margin, inside the frame.
            #expect(pixels.region.x <= code.bounds.x - 4 && pixels.region.y <= code.bounds.y - 4)
            #expect(pixels.region.x + pixels.width >= code.bounds.x + code.bounds.width + 4)
            #expect(pixels.region.width < 160, "a crop, not the frame")
            #expect(pixels.frame.sequenceNumber == c.sequenceNumber)
        }
        #expect(session.pixelPool?.copied == 4 && session.pixelPool?.skipped == 0)
        // The source's own buffers are all back: only the copies are held.
        #expect(input.liveBuffers == 0)
    }

    @Test func aFullPoolSkipsPixelsButTheCodesStillComeThrough() async throws {
        let recorder = PixelRecorder()
        // A live source (nothing waits), slow enough that every frame is scanned.
        let session = CaptureSession(input: try source(isLive: true, interval: .milliseconds(40)),
                                     videoDataOutput: VideoDataOutput(alwaysDiscardsLateVideoFrames: false),
                                     metadataOutput: MetadataOutput(settings: .init(engine: .zbar)), pixelsRequest: .frame, pixelCopies: 1, logger: Logger(label: "test"))
        // The recorder keeps every collection (and its copy): the one buffer is never returned.
        try await session.run(synchronizer: DataOutputSynchronizer { recorder.append($0) })
        let withCodes = recorder.collections.filter { !($0.metadata?.metadataObjects.isEmpty ?? true) }
        #expect(withCodes.count >= 2)
        #expect(withCodes.filter { $0.video.pixels != nil }.count == 1)
        #expect(session.pixelPool?.skipped == withCodes.count - 1)
    }

    /// The sampler's frames are copied whole, with or without codes; the others only as asked.
    @Test func aSamplerGetsTheFramesItPicksWholeThroughTheSamePool() async throws {
        final class OddFrames: FramePixelsSampler {
            func wantsPixels(of frame: FrameInfo) -> Bool { frame.sequenceNumber % 2 == 1 }
        }
        let recorder = PixelRecorder()
        let session = CaptureSession(input: try source(), metadataOutput: MetadataOutput(settings: .init(engine: .zbar)), pixelsRequest: .codes(margin: 4), pixelsSampler: OddFrames(),
                                     pixelCopies: 8, logger: Logger(label: "test"))
        try await session.run(synchronizer: DataOutputSynchronizer { recorder.append($0) })
        for c in recorder.collections {
            let pixels = try #require(c.video.pixels, "seq \(c.sequenceNumber): codes (even) or sampled (odd)")
            if c.sequenceNumber % 2 == 1 {
                #expect(c.metadata?.metadataObjects.isEmpty == true)
                #expect(pixels.region == PixelRect(x: 0, y: 0, width: 160, height: 120), "sampled: the whole frame")
            } else {
                #expect(pixels.region.width < 160, "codes: the crop asked for")
            }
        }
        #expect(session.pixelPool?.copied == 8)
    }

    /// A sampler alone makes the pool; one that picks nothing copies nothing.
    @Test func aSamplerThatPicksNothingCopiesNothing() async throws {
        final class NoFrames: FramePixelsSampler {
            func wantsPixels(of frame: FrameInfo) -> Bool { false }
        }
        let recorder = PixelRecorder()
        let session = CaptureSession(input: try source(), metadataOutput: MetadataOutput(settings: .init(engine: .zbar)), pixelsSampler: NoFrames(), logger: Logger(label: "test"))
        try await session.run(synchronizer: DataOutputSynchronizer { recorder.append($0) })
        #expect(recorder.collections.count == 8 && recorder.collections.allSatisfy { $0.video.pixels == nil })
        #expect(session.pixelPool?.copied == 0)
    }
}
