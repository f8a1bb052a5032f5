import Foundation
import SystemPackage
import Testing
import TestSupport
@testable import Y4M
#if canImport(Glibc)
import Glibc
#endif

/// `fcntl(2)`'s F_GETPIPE_SZ (Linux's value; Glibc exports it only with _GNU_SOURCE).
private let getPipeSize: Int32 = 1032

@Suite("Y4M pipe capacity", .offThePool)
struct Y4MPipeCapacityTests {
    @Test("a pipe input is made to hold a whole 1280x720 GREY frame and its FRAME line (the default holds 64 KiB)")
    func aPipeHoldsAFrame() throws {
        let pipe = try Y4MTestPipe()
        let writeEnd = try #require(pipe.writeEnd)
        #expect(fcntl(writeEnd.rawValue, getPipeSize) == 65_536)
        pipe.write(Array("YUV4MPEG2 W1280 H720 F30:1 Cmono\n".utf8))
        let source = Y4MSource(path: pipe.path, logger: y4mTestLogger)
        try source.start()
        defer { source.stop() }
        let capacity = fcntl(writeEnd.rawValue, getPipeSize)
        #expect(capacity >= 1280 * 720 + 6)
        guard capacity >= 1280 * 720 + 6 else { return }  // the write below would wait for a reader
        // A frame written in one call now fits whole, with no reader yet: the reader is woken once for it.
        let frame = [UInt8](repeating: 0x80, count: 1280 * 720)
        pipe.write(Array("FRAME\n".utf8) + frame)
        guard case .frame(let video)? = try source.next() else { Issue.record("no frame"); return }
        #expect(video.width == 1280 && video.buffer.count >= 1280 * 720)
    }
}
