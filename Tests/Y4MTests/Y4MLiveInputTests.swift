import Foundation
import Media
import SystemPackage
import Testing
import TestSupport
@testable import Y4M

/// How long a test waits for another thread before calling it hung. Not a speed check:
/// every wait here normally finishes at once.
private let hangGuardSeconds = hangTimeout.seconds

@Suite("Y4M source from pipes", .offThePool)
struct Y4MLiveInputTests {
    @Test func pipeIsLiveAndStampsArrivalTimes() throws {
        let pipe = try Y4MTestPipe()
        let frames = (0..<20).map { y4mPattern(count: 32 * 24 * 3 / 2, seed: $0) }
        let stream = y4mStream(header: "YUV4MPEG2 W32 H24 F25:1 C420jpeg", frames: frames)
        let writerDone = Y4MResultBox<Bool>()
        let writer = Thread {
            pipe.write(stream)
            pipe.closeWriteEnd()
            writerDone.set(true)
        }
        writer.start()

        let source = Y4MSource(path: pipe.path, logger: y4mTestLogger)
        #expect(source.isLive)
        let before = MediaTime.monotonicNow()
        try source.start()
        #expect(source.isLive)
        let read = try y4mReadAllFrames(source)
        let after = MediaTime.monotonicNow()
        #expect(writerDone.wait(seconds: hangGuardSeconds) == true)

        #expect(read.map(\.sequenceNumber) == Array(0..<20))
        #expect(read.map { $0.buffer.copiedBytes } == frames)
        let times = read.map(\.presentationTime)
        #expect(times.allSatisfy { $0 >= before && $0 <= after }, "arrival times are monotonic clock readings")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        source.stop()
    }

    @Test func fifoIsLiveAndWaitsForItsWriter() throws {
        let fifo = try TemporaryFIFO()
        let source = Y4MSource(path: fifo.path, logger: y4mTestLogger)
        #expect(source.isLive)

        // The writer opens the FIFO on its own thread; start() must not need it to exist first.
        let stream = y4mStream(header: "YUV4MPEG2 W2 H2 Cmono", frames: [[1, 2, 3, 4], [5, 6, 7, 8]])
        let started = Y4MResultBox<String?>()
        Thread {
            do { try source.start(); started.set(nil) } catch { started.set("\(error)") }
        }.start()
        let writer = try FileDescriptor.open(fifo.path, .writeOnly)
        _ = try writer.closeAfter { try writer.writeAll(stream) }
        #expect(started.wait(seconds: hangGuardSeconds) == .some(nil))
        #expect(try y4mReadAllFrames(source).map { $0.buffer.copiedBytes } == [[1, 2, 3, 4], [5, 6, 7, 8]])
    }

    @Test func stopUnblocksNextWaitingOnAnEmptyPipe() throws {
        let pipe = try Y4MTestPipe()
        pipe.write(Array("YUV4MPEG2 W2 H2 Cmono\n".utf8))  // a header, then nothing: the writer stays open
        let source = Y4MSource(path: pipe.path, logger: y4mTestLogger)
        try source.start()
        #expect(source.isOpen)

        let result = Y4MResultBox<String>()
        Thread {
            do {
                let event = try source.next()
                result.set(event == nil ? "nil" : "an event")
            } catch {
                result.set("error: \(error)")
            }
        }.start()
        // Let the reader reach poll(2) on the empty pipe; whether or not it has, stop() must end it.
        waitUntil(timeout: .seconds(hangGuardSeconds), every: .milliseconds(1)) { source.isReading || result.current != nil }
        pause(.milliseconds(50))
        source.stop()

        #expect(result.wait(seconds: hangGuardSeconds) == "nil", "next() did not return after stop()")
        #expect(!source.isOpen)
        #expect(try source.next() == nil)
    }

    @Test func stopUnblocksStartWaitingForAHeader() throws {
        let pipe = try Y4MTestPipe()
        let source = Y4MSource(path: pipe.path, logger: y4mTestLogger)
        let result = Y4MResultBox<String>()
        Thread {
            do { try source.start(); result.set("returned") } catch { result.set("error: \(error)") }
        }.start()
        waitUntil(timeout: .seconds(hangGuardSeconds), every: .milliseconds(1)) { source.isReading || result.current != nil }
        pause(.milliseconds(50))
        source.stop()

        #expect(result.wait(seconds: hangGuardSeconds) == "returned", "start() did not return after stop()")
        #expect(!source.isOpen)
        #expect(source.header == nil)
        #expect(try source.next() == nil)
    }

    @Test func stopMidFrameOnAPipeReturnsNil() throws {
        let pipe = try Y4MTestPipe()
        // A whole frame, then half of the next: the reader blocks inside the second frame's pixels.
        pipe.write(Array("YUV4MPEG2 W4 H4 Cmono\nFRAME\n".utf8) + y4mPattern(count: 16, seed: 0)
                   + Array("FRAME\n".utf8) + y4mPattern(count: 8, seed: 1))
        let source = Y4MSource(path: pipe.path, logger: y4mTestLogger)
        try source.start()
        guard case .frame(let first)? = try source.next() else { Issue.record("expected the first frame"); return }
        #expect(first.buffer.copiedBytes == y4mPattern(count: 16, seed: 0))

        let result = Y4MResultBox<String>()
        Thread {
            do { result.set(try source.next() == nil ? "nil" : "an event") } catch { result.set("error: \(error)") }
        }.start()
        waitUntil(timeout: .seconds(hangGuardSeconds), every: .milliseconds(1)) { source.isReading || result.current != nil }
        pause(.milliseconds(50))
        source.stop()
        #expect(result.wait(seconds: hangGuardSeconds) == "nil")
        #expect(source.bufferAllocationCount == 2)
    }

    @Test func writerClosingMidFrameIsATruncatedFrame() throws {
        let pipe = try Y4MTestPipe()
        pipe.write(Array("YUV4MPEG2 W4 H4 Cmono\nFRAME\n".utf8) + y4mPattern(count: 10, seed: 0))
        pipe.closeWriteEnd()
        let source = Y4MSource(path: pipe.path, logger: y4mTestLogger)
        try source.start()
        #expect(y4mError { _ = try source.next() } == .truncatedFrame(frame: 0, expected: 16, got: 10))
    }
}
