import Foundation
import SystemPackage
import Testing
import TestSupport
@testable import Y4M

@Suite("Y4M channel reads", .offThePool)
struct Y4MChannelTests {
    @Test("bytes already in a pipe are read with read(2) alone; poll(2) only waits for an empty one")
    func waitingBytesAreReadWithoutPolling() throws {
        let pipe = try Y4MTestPipe()
        let channel = try Y4MChannel(path: pipe.path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        pipe.write([1, 2, 3])
        #expect(try channel.read(into: buffer) == .bytes(3))
        #expect(Array(buffer.prefix(3)) == [1, 2, 3])
        pipe.write([4, 5])
        #expect(try channel.read(into: buffer) == .bytes(2))
        #expect(channel.pollCount == 0)
        pipe.closeWriteEnd()
        #expect(try channel.read(into: buffer) == .endOfStream)
        #expect(channel.pollCount == 1)
    }

    @Test("once woken, a read returns stopped even with bytes waiting in the pipe")
    func wokenChannelStopsBeforeWaitingBytes() throws {
        let pipe = try Y4MTestPipe()
        let channel = try Y4MChannel(path: pipe.path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        pipe.write([1, 2, 3])
        channel.wake()
        #expect(try channel.read(into: buffer) == .stopped)
        #expect(try channel.read(into: buffer) == .stopped)
    }
}
