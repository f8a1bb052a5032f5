import Foundation
import Media
import SystemCalls
import SystemPackage
import Testing
import TestSupport
@testable import Y4M

@Suite("Y4M source from files", .offThePool)
struct Y4MSourceTests {
    @Test func readsMultipleFramesInOrderThenEnds() throws {
        let frames = (0..<5).map { y4mPattern(count: 6 * 4 * 3 / 2, seed: $0 * 17) }
        let (source, file) = try y4mStartedSource(y4mStream(header: "YUV4MPEG2 W6 H4 F25:1 Ip C420jpeg", frames: frames))
        #expect(source.uri == "y4m:\(file.path)")
        #expect(!source.isLive)
        #expect(source.header?.pixelFormat == .yuv420)

        let read = try y4mReadAllFrames(source)
        #expect(read.map(\.sequenceNumber) == [0, 1, 2, 3, 4])
        for (frame, expected) in zip(read, frames) {
            #expect(frame.width == 6)
            #expect(frame.height == 4)
            #expect(frame.bytesPerLine == 6)
            #expect(frame.format == .yuv420)
            #expect(frame.buffer.copiedBytes == expected)
        }
        // The end is sticky.
        #expect(try source.next() == nil)
        source.stop()
        #expect(!source.isOpen)
    }

    @Test(arguments: [("Cmono", PixelFormat.grey, 9), ("C420", .yuv420, 17), ("C422", .yuv422p, 21), ("C444", .yuv444p, 27)])
    func oddSizedFramesKeepTheirBytes(tag: String, format: PixelFormat, bytes: Int) throws {
        // 3x3: luma 9; 4:2:0 chroma 2x2; 4:2:2 chroma 2x3; 4:4:4 chroma 3x3.
        let frames = [y4mPattern(count: bytes, seed: 1), y4mPattern(count: bytes, seed: 100)]
        let (source, _) = try y4mStartedSource(y4mStream(header: "YUV4MPEG2 W3 H3 F25:1 \(tag)", frames: frames))
        let read = try y4mReadAllFrames(source)
        #expect(read.count == 2)
        #expect(read.map { $0.buffer.copiedBytes } == frames)
        #expect(read.allSatisfy { $0.format == format && $0.buffer.count == format.frameSize(width: 3, height: 3, bytesPerLine: 3) })
    }

    @Test func framesLargerThanTheReadBufferArriveWhole() throws {
        // 320x240 4:4:4 is 230400 bytes, several times the reader's 64 KiB line buffer.
        let frames = (0..<3).map { y4mPattern(count: 320 * 240 * 3, seed: $0) }
        let (source, _) = try y4mStartedSource(y4mStream(header: "YUV4MPEG2 W320 H240 F25:1 C444", frames: frames))
        let read = try y4mReadAllFrames(source)
        #expect(read.map { $0.buffer.copiedBytes } == frames)
    }

    @Test func frameParametersAfterFrameAreAccepted() throws {
        var bytes = Array("YUV4MPEG2 W2 H2 Cmono\nFRAME Ip XFOO=1\n".utf8) + [1, 2, 3, 4]
        bytes += Array("FRAME\n".utf8) + [5, 6, 7, 8]
        let (source, _) = try y4mStartedSource(bytes)
        #expect(try y4mReadAllFrames(source).map { $0.buffer.copiedBytes } == [[1, 2, 3, 4], [5, 6, 7, 8]])
    }

    @Test func presentationTimesFollowTheFrameRate() throws {
        let frames = Array(repeating: [UInt8](repeating: 0, count: 4), count: 4)
        let (source, _) = try y4mStartedSource(y4mStream(header: "YUV4MPEG2 W2 H2 F30000:1001 Cmono", frames: frames))
        let times = try y4mReadAllFrames(source).map(\.presentationTime.nanoseconds)
        #expect(times == [0, 33_366_666, 66_733_333, 100_100_000])
    }

    @Test func missingFrameRateTimesFramesAt25PerSecond() throws {
        let frames = Array(repeating: [UInt8](repeating: 0, count: 4), count: 3)
        let (source, _) = try y4mStartedSource(y4mStream(header: "YUV4MPEG2 W2 H2 Cmono", frames: frames))
        #expect(try y4mReadAllFrames(source).map(\.presentationTime.nanoseconds) == [0, 40_000_000, 80_000_000])
    }

    // MARK: Errors

    @Test func missingFileNamesPathAndErrno() throws {
        let path = "/nonexistent/syncscan/missing.y4m"
        let source = Y4MSource(path: path, logger: y4mTestLogger)
        let error = y4mError { try source.start() }
        #expect(error == .cannotOpen(path: path, errno: .noSuchFileOrDirectory))
        #expect(error?.code == .notFound && error?.call == "open")
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("No such file or directory") == true)
        #expect(try source.next() == nil)
    }

    @Test func directoryIsNotAStream() {
        let path = FileManager.default.temporaryDirectory.path
        let error = y4mError { try Y4MSource(path: path, logger: y4mTestLogger).start() }
        #expect(error == .notAStream(path: path, kind: "a directory"))
        #expect(error?.code == .invalidArgument && error?.description.contains("is a directory, not a stream") == true)
    }

    @Test func emptyFileSaysItIsEmpty() throws {
        let file = try Y4MTemporaryFile(bytes: [])
        #expect(y4mError { try Y4MSource(path: file.path, logger: y4mTestLogger).start() } == .emptyStream(path: file.path))
    }

    @Test func garbageHeaderShowsWhatWasFound() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D] + Array("IHDR".utf8)
        let file = try Y4MTemporaryFile(bytes: png)
        let error = y4mError { try Y4MSource(path: file.path, logger: y4mTestLogger).start() }
        #expect(error == .notY4M(path: file.path, found: "'\\x89PNG\\r\\n'"))
        #expect(error?.code == .malformedInput)
        #expect(error?.description.contains("found '\\x89PNG\\r\\n'; convert it with: ffmpeg") == true)
    }

    @Test func lookalikeMagicIsNotY4M() throws {
        for text in ["YUV4MPEG3 W2 H2\n", "YUV4MPEG2W2 H2\n", "yuv4mpeg2 W2 H2\n"] {
            let file = try Y4MTemporaryFile(bytes: Array(text.utf8))
            let error = y4mError { try Y4MSource(path: file.path, logger: y4mTestLogger).start() }
            #expect(error?.code == .malformedInput && error?.message.contains("is not a Y4M stream") == true,
                    "\(text.debugDescription): expected notY4M, got \(String(describing: error))")
        }
    }

    @Test func streamEndingInsideTheHeaderIsTruncated() throws {
        let file = try Y4MTemporaryFile(bytes: Array("YUV4MPEG2 W64 H4".utf8))
        let error = y4mError { try Y4MSource(path: file.path, logger: y4mTestLogger).start() }
        #expect(error == .truncatedHeader(path: file.path, found: "'YUV4MPEG2 W64 H4'"))
    }

    @Test func headerWithoutNewlineWithinLimitIsRejected() throws {
        let file = try Y4MTemporaryFile(bytes: Array("YUV4MPEG2 W2 H2 X".utf8) + Array(repeating: UInt8(ascii: "a"), count: 5000))
        let error = y4mError { try Y4MSource(path: file.path, logger: y4mTestLogger).start() }
        #expect(error == .headerTooLong(path: file.path, limit: Y4MReader.maximumHeaderLength))
    }

    @Test func unsupportedColourSpaceFailsStart() throws {
        let file = try Y4MTemporaryFile(bytes: y4mStream(header: "YUV4MPEG2 W2 H2 C420p10", frames: []))
        let source = Y4MSource(path: file.path, logger: y4mTestLogger)
        #expect(y4mError { try source.start() } == .unsupportedColourSpace("420p10"))
        #expect(!source.isOpen)
    }

    @Test func headerOnlyStreamHasNoFrames() throws {
        let (source, _) = try y4mStartedSource(y4mStream(header: "YUV4MPEG2 W2 H2 Cmono", frames: []))
        #expect(try source.next() == nil)
    }

    @Test func streamEndingInsideFrameMarkerNamesTheFrame() throws {
        let bytes = y4mStream(header: "YUV4MPEG2 W2 H2 Cmono", frames: [[1, 2, 3, 4]], trailing: Array("FRA".utf8))
        let (source, _) = try y4mStartedSource(bytes)
        #expect(try source.next() != nil)
        let error = y4mError { _ = try source.next() }
        #expect(error == .truncatedFrameMarker(frame: 1, found: "'FRA'", offset: 32))
        // The failure is sticky.
        #expect(y4mError { _ = try source.next() } == error)
    }

    @Test func streamEndingMidFrameReportsExpectedAndReceivedBytes() throws {
        let frameBytes = 8 * 6 * 3 / 2
        let frames = (0..<17).map { y4mPattern(count: frameBytes, seed: $0) }
        let bytes = y4mStream(header: "YUV4MPEG2 W8 H6 F25:1 C420", frames: frames,
                              trailing: Array("FRAME\n".utf8) + y4mPattern(count: 30, seed: 0))
        let (source, _) = try y4mStartedSource(bytes)
        for _ in 0..<17 { #expect(try source.next() != nil) }
        let error = y4mError { _ = try source.next() }
        #expect(error == .truncatedFrame(frame: 17, expected: 72, got: 30))
        #expect(error?.code == .malformedInput)
        #expect(error?.description.hasPrefix("frame 17 truncated: expected 72 bytes, got 30") == true)
    }

    @Test func streamEndingRightAfterFrameMarkerIsTruncated() throws {
        let bytes = y4mStream(header: "YUV4MPEG2 W2 H2 Cmono", frames: [], trailing: Array("FRAME\n".utf8))
        let (source, _) = try y4mStartedSource(bytes)
        #expect(y4mError { _ = try source.next() } == .truncatedFrame(frame: 0, expected: 4, got: 0))
    }

    @Test func wrongFrameMarkerNamesFrameAndWhatWasFound() throws {
        let frames = (0..<3).map { y4mPattern(count: 4, seed: $0) }
        let bytes = y4mStream(header: "YUV4MPEG2 W2 H2 Cmono", frames: frames, trailing: Array("FRAMES\n".utf8))
        let (source, _) = try y4mStartedSource(bytes)
        for _ in 0..<3 { #expect(try source.next() != nil) }
        let error = y4mError { _ = try source.next() }
        #expect(error == .malformedFrameMarker(frame: 3, found: "'FRAMES\\n'", offset: 22 + 3 * 10, frameBytes: 4))
        #expect(error?.description.hasPrefix("frame 3: expected FRAME, found 'FRAMES\\n'") == true)
    }

    @Test func frameLongerThanHeaderSaysIsCaughtAtTheNextMarker() throws {
        // A 2x2 mono header followed by 6-byte frames: the second marker is preceded by two stray bytes.
        let bytes = Array("YUV4MPEG2 W2 H2 Cmono\nFRAME\n".utf8) + [1, 2, 3, 4, 5, 6] + Array("FRAME\n".utf8) + [1, 2, 3, 4, 5, 6]
        let (source, _) = try y4mStartedSource(bytes)
        #expect(try source.next() != nil)
        let error = y4mError { _ = try source.next() }
        // Frame 1's marker starts at byte 32 (a 22-byte header, 6-byte marker, 4 bytes of frame 0).
        #expect(error == .malformedFrameMarker(frame: 1, found: "'\\x05\\x06FRAME\\n'", offset: 32, frameBytes: 4))
        #expect(error?.description.contains("the previous frame may not be the 4 bytes") == true)
    }

    @Test func nextBeforeStartIsAnError() {
        let source = Y4MSource(path: "/nonexistent.y4m", logger: y4mTestLogger)
        let error = y4mError { _ = try source.next() }
        #expect(error == .notStarted(uri: "y4m:/nonexistent.y4m"))
        #expect(error?.code == .invalidState)
    }

    @Test func stopBeforeStartMeansNothingIsOpened() throws {
        let file = try Y4MTemporaryFile(bytes: y4mStream(header: "YUV4MPEG2 W2 H2 Cmono", frames: [[1, 2, 3, 4]]))
        let source = Y4MSource(path: file.path, logger: y4mTestLogger)
        source.stop()
        try source.start()
        #expect(!source.isOpen)
        #expect(try source.next() == nil)
    }

    @Test func stopEndsAFileStreamAndClosesIt() throws {
        let frames = (0..<3).map { y4mPattern(count: 4, seed: $0) }
        let (source, _) = try y4mStartedSource(y4mStream(header: "YUV4MPEG2 W2 H2 Cmono", frames: frames))
        #expect(try source.next() != nil)
        source.stop()
        source.stop()
        #expect(!source.isOpen)
        #expect(try source.next() == nil)
    }

    // MARK: Buffer pool

    @Test func releasedFramesReuseOneBuffer() throws {
        let frames = (0..<100).map { y4mPattern(count: 16 * 8 * 3 / 2, seed: $0) }
        let (source, _) = try y4mStartedSource(y4mStream(header: "YUV4MPEG2 W16 H8 C420", frames: frames))
        var count = 0
        while let event = try source.next() {
            guard case .frame(let frame) = event else { continue }
            #expect(frame.buffer.copiedBytes == frames[count])
            count += 1
        }
        #expect(count == 100)
        #expect(source.bufferAllocationCount == 1)
    }

    @Test func poolKeepsOnlyItsLimitOfFreeBuffers() throws {
        let frames = (0..<30).map { y4mPattern(count: 4, seed: $0) }
        let (source, _) = try y4mStartedSource(y4mStream(header: "YUV4MPEG2 W2 H2 Cmono", frames: frames))
        var held: [VideoFrame] = []
        for _ in 0..<10 {
            guard case .frame(let frame)? = try source.next() else { Issue.record("expected a frame"); return }
            held.append(frame)
        }
        #expect(source.bufferAllocationCount == 10)
        held.removeAll()
        // Ten buffers came back; the pool kept four and freed the rest. Reading on reuses those four.
        var next: [VideoFrame] = []
        for _ in 0..<4 {
            guard case .frame(let frame)? = try source.next() else { Issue.record("expected a frame"); return }
            next.append(frame)
        }
        #expect(source.bufferAllocationCount == 10)
        guard case .frame(let fifth)? = try source.next() else { Issue.record("expected a frame"); return }
        #expect(source.bufferAllocationCount == 11)
        #expect(fifth.buffer.copiedBytes == frames[14])
    }

    @Test func poolRetainsAtMostItsLimit() {
        let pool = Y4MBufferPool(byteCount: 8, retainedLimit: 2)
        let buffers = (0..<5).map { _ in pool.take() }
        #expect(pool.allocationCount == 5)
        for buffer in buffers { pool.recycle(buffer) }
        #expect(pool.freeCount == 2)
        _ = pool.pixelBuffer(pool.take())  // released at once: back to the free list
        #expect(pool.freeCount == 2)
        #expect(pool.allocationCount == 5)
    }
}
