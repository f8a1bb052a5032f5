import Foundation
import SystemCalls
import TestSupport
import Testing

/// Only a regular file is read, within its limit; anything else is named as what it is.
@Suite(.offThePool) struct BoundedFileReadTests {
    @Test func aRegularFileIsReadWithinItsLimitAndRefusedPastIt() throws {
        let file = try TemporaryFile(contents: Array("twelve bytes".utf8), suffix: ".txt")
        #expect(try BoundedFileRead.bytes(of: file.path, limit: 12) == Array("twelve bytes".utf8))
        #expect(throws: BoundedFileRead.Failure.tooLarge(size: 12, limit: 11)) { try BoundedFileRead.bytes(of: file.path, limit: 11) }
        #expect(BoundedFileRead.nonRegularKind(at: file.path) == nil)
        #expect(throws: BoundedFileRead.Failure.system(call: "open", errno: .noSuchFileOrDirectory)) {
            try BoundedFileRead.bytes(of: file.path + ".absent", limit: 12)
        }
        #expect(BoundedFileRead.nonRegularKind(at: file.path + ".absent") == nil, "a missing file is for its reader to name")
    }

    /// `open(2)` of a socket fails with ENXIO: the socket is named by `stat(2)` of its path.
    @Test func aSocketADirectoryAndADeviceAreNamed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/s.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, byte) in path.utf8.enumerated() { raw[i] = byte } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind \(path): errno \(errno)")
        #expect(throws: BoundedFileRead.Failure.notRegular(kind: "a socket")) { try BoundedFileRead.bytes(of: path, limit: 10) }
        #expect(BoundedFileRead.nonRegularKind(at: path) == "a socket")
        #expect(throws: BoundedFileRead.Failure.notRegular(kind: "a directory")) { try BoundedFileRead.bytes(of: directory.path, limit: 10) }
        #expect(BoundedFileRead.nonRegularKind(at: "/dev/null") == "a character device")
        #expect(BoundedFileRead.Failure.notRegular(kind: "a socket").message == "it is a socket, not a regular file: name a regular file")
    }
}
