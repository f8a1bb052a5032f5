import Foundation
import SystemCalls
import SystemPackage
import TestSupport
import Testing
@testable import Results

/// A pipe whose read end the test controls (close-on-exec: no child another test spawns keeps it open).
private struct Pipe2 {
    let read: FileDescriptor, write: FileDescriptor
    init() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        read = FileDescriptor(rawValue: fds[0]); write = FileDescriptor(rawValue: fds[1])
    }
}

/// Reads `fd` to its end on a thread of its own (a blocking read never holds a thread of Swift's
/// concurrency pool); `bytes()` waits for the end.
private final class PipeReader: @unchecked Sendable {
    private let result = LockedValue<Result<[UInt8], any Error>?>(nil)

    init(_ fd: FileDescriptor) {
        Thread { [result] in
            let read = Result<[UInt8], any Error> { try readAll(fd) }
            result.withLock { $0 = read }
            result.broadcast()
        }.start()
    }

    func bytes() throws -> [UInt8] {
        requireOffThePool()
        return try result.withLock(when: { $0 != nil }, deadline: .now + hangTimeout) { value, done in
            guard done, let value else { throw IOError(call: "read", message: "the pipe was not read to its end in time", errno: .timedOut) }
            return try value.get()
        }
    }
}

private func readAll(_ fd: FileDescriptor) throws -> [UInt8] {
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = try buf.withUnsafeMutableBytes { try fd.read(into: $0) }
        if n == 0 { return out }
        out += buf[0..<n]
    }
}

@Suite(.offThePool) struct LineWriterTests {
    @Test func writesEveryLineInOrder() throws {
        let p = try Pipe2()
        let writer = LineWriter(fileDescriptor: p.write, name: "pipe", capacity: 4, overflow: .wait)
        let reader = PipeReader(p.read)
        for i in 0..<500 { try writer.write(Array("line \(i)\n".utf8)) }
        try writer.finish()
        try p.write.close()
        let text = String(decoding: try reader.bytes(), as: UTF8.self)
        #expect(text.split(separator: "\n").map(String.init) == (0..<500).map { "line \($0)" })
        try p.read.close()
    }

    @Test func aStalledReaderMakesLinesDropNotBlock() throws {
        let p = try Pipe2()
        // Nobody reads: the pipe buffer (64 KiB) fills, then the queue of 8, then lines drop.
        let writer = LineWriter(fileDescriptor: p.write, name: "pipe", capacity: 8, overflow: .drop)
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 1023) + [UInt8(ascii: "\n")]
        for _ in 0..<200 { try writer.write(line) }
        #expect(writer.droppedLines > 0)
        #expect(writer.pendingLines <= 8)
        // Drain so the writer can finish.
        let reader = PipeReader(p.read)
        try writer.finish()
        try p.write.close()
        let got = try reader.bytes()
        #expect(got.count == (200 - writer.droppedLines) * 1024)
        try p.read.close()
    }

    @Test func aClosedReaderIsReportedAsBrokenPipe() throws {
        signal(SIGPIPE, SIG_IGN)
        let p = try Pipe2()
        try p.read.close()
        let writer = LineWriter(fileDescriptor: p.write, name: "stdout", capacity: 4, overflow: .wait)
        var caught: IOError?
        do {
            // Until the writer reports it: a child another test forks holds every descriptor for
            // a moment (until its exec closes them), and a write then still finds a reader.
            let deadline = ContinuousClock.now + hangTimeout
            while ContinuousClock.now < deadline { try writer.write(Array("x\n".utf8)) }
            try writer.finish()
        } catch { caught = error }
        let error = try #require(caught)
        #expect(error.code == .closed && error.call == "write" && error.cause == .brokenPipe)
        #expect(error.description.contains("stdout") && error.description.contains("reader closed the pipe"))
        try p.write.close()
    }
}
