import Foundation
import SystemPackage
import Testing
import TestSupport
@testable import Y4M

@Suite("Y4M channel reads", .offThePool)
struct Y4MChannelTests {
    @Test("bytes expected and already in a pipe are read with read(2) alone; poll(2) waits for an empty pipe and for a read not told to expect data")
    func waitingBytesAreReadWithoutPolling() throws {
        let pipe = try Y4MTestPipe()
        let channel = try Y4MChannel(path: pipe.path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        pipe.write([1, 2, 3])
        #expect(try channel.read(into: buffer, dataExpected: true) == .bytes(3))
        #expect(Array(buffer.prefix(3)) == [1, 2, 3])
        pipe.write([4, 5])
        #expect(try channel.read(into: buffer, dataExpected: true) == .bytes(2))
        #expect(channel.pollCount == 0)
        pipe.write([6])
        #expect(try channel.read(into: buffer) == .bytes(1))
        #expect(channel.pollCount == 1)
        pipe.closeWriteEnd()
        #expect(try channel.read(into: buffer, dataExpected: true) == .endOfStream)
        #expect(channel.pollCount == 2)
    }

    @Test("once woken, a read returns stopped even with bytes waiting in the pipe")
    func wokenChannelStopsBeforeWaitingBytes() throws {
        let pipe = try Y4MTestPipe()
        let channel = try Y4MChannel(path: pipe.path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        pipe.write([1, 2, 3])
        channel.wake()
        #expect(try channel.read(into: buffer, dataExpected: true) == .stopped)
        #expect(try channel.read(into: buffer) == .stopped)
    }
}

@Suite("Y4M reader copies", .offThePool)
struct Y4MReaderCopyTests {
    @Test("a frame larger than the read buffer passes at most a few KiB of itself through it; a small one goes through it whole")
    func largeFramesAreReadInPlace() throws {
        let large = y4mPattern(count: 640 * 480, seed: 3), small = y4mPattern(count: 8 * 4, seed: 4)
        let file = try Y4MTemporaryFile(bytes: y4mStream(header: "YUV4MPEG2 W640 H480 F30:1 Cmono", frames: [large, large, large]))
        let reader = Y4MReader(channel: try Y4MChannel(path: file.path))
        #expect(try reader.readHeader() != nil)
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: large.count, alignment: 64)
        defer { storage.deallocate() }
        // The header's read fills the buffer (the frame's size is not known yet): from the second frame on.
        for number in 0..<3 {
            guard case .frame = try reader.readFrame(number: UInt64(number), into: storage) else { Issue.record("no frame \(number)"); return }
            #expect(Array(storage) == large)
            if number > 0 { #expect(reader.lastFrameBufferedBytes <= Y4MReader.frameLineRead, "frame \(number)") }
        }

        let smallFile = try Y4MTemporaryFile(bytes: y4mStream(header: "YUV4MPEG2 W8 H4 Cmono", frames: [small, small]))
        let smallReader = Y4MReader(channel: try Y4MChannel(path: smallFile.path))
        #expect(try smallReader.readHeader() != nil)
        let smallStorage = UnsafeMutableRawBufferPointer.allocate(byteCount: small.count, alignment: 64)
        defer { smallStorage.deallocate() }
        guard case .frame = try smallReader.readFrame(number: 0, into: smallStorage) else { Issue.record("no small frame"); return }
        #expect(Array(smallStorage) == small && smallReader.lastFrameBufferedBytes == small.count)
    }
}
