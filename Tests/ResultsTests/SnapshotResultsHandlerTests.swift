import Capture
import Decoders
import Foundation
import Media
import SystemPackage
import Testing
import TestSupport
@testable import Results

/// A 160x120 grey frame with a QR code of `text`, as frame `seq`.
private func frame(_ text: String, seq: UInt64) throws -> VideoFrame {
    var f = GreyFrame(width: 160, height: 120)
    f.draw(try ModuleMatrix.qrCode(text), centerX: 80, centerY: 60, moduleSize: 3)
    return f.videoFrame(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 100_000_000))
}

/// A code object of `text` in `frame`.
private func code(_ text: String, in frame: VideoFrame) -> MachineReadableCodeObject {
    MachineReadableCodeObject(symbology: .qrcode, data: Array(text.utf8), text: text, quality: 1, orientation: .up,
                              corners: [PixelPoint(x: 40, y: 20), PixelPoint(x: 40, y: 100), PixelPoint(x: 120, y: 100), PixelPoint(x: 120, y: 20)],
                              frame: frame.info, pass: .zbar)
}

/// A clock that advances 1 ms per reading from 2026-11-22T10:15:00.000Z.
private final class SteppingClock: @unchecked Sendable {
    private let lock = NSLock()
    private var milliseconds: Int64 = 0
    func now() -> WallClockTime {
        lock.withLock {
            defer { milliseconds += 1 }
            return WallClockTime(secondsSince1970: 1_795_342_500 + milliseconds / 1000, milliseconds: Int(milliseconds % 1000))
        }
    }
}

@Suite(.offThePool) struct SnapshotResultsHandlerTests {
    @Test func oneSnapshotPerFrameNamedByTimeAndSequenceAndEveryCodeOfTheFrameNamesIt() throws {
        let directory = InMemorySnapshotDirectory()
        let clock = SteppingClock()
        let handler = SnapshotResultsHandler(settings: SnapshotSettings(directory: directory.path), directory: directory,
                                             logger: LogRecorder().logger, clock: clock.now)
        let pool = FramePixelPool(capacity: 4)
        var names: [String] = []
        for seq in UInt64(0)..<3 {
            let f = try frame("frame \(seq)", seq: seq)
            let pixels = try #require(pool.copy(f))
            for text in ["a", "b"] {  // two codes share the frame
                var delivered = DeliveredCode(code: code(text, in: f), pixels: pixels)
                try handler.handle(&delivered)
                #expect(delivered.fields.count == 1 && delivered.fields.first?.name == "snapshot")
                names.append(delivered.fields.first?.value ?? "")
            }
        }
        try handler.finish()
        #expect(names[0] == "20261122T101500.000Z-seq000000.jpg", "\(names)")
        #expect(names[0] == names[1] && names[2] == names[3] && names[4] == names[5])
        #expect(Set(names).count == 3 && names == names.sorted())
        #expect(Set(directory.contents.keys) == Set(names))
        #expect(handler.written == 3 && handler.failed == 0 && handler.skipped == 0)
        #expect(names.allSatisfy(InMemorySnapshotDirectory.isSnapshotName))
        // Each file is a JPEG zbarimg reads its frame's code from.
        for seq in 0..<3 {
            let file = try TemporaryFile(contents: directory.contents[names[seq * 2]] ?? [], suffix: ".jpg")
            #expect(try ZBarImg.decode(path: file.path, arguments: ["-Sdisable", "-Sqrcode.enable"]) == Array("frame \(seq)".utf8))
        }
        #expect(pool.lentCount == 0, "every copy went back to the pool")
    }

    /// A directory whose path ends a log record and forges another (a configured path quoted
    /// back): the failure's one record shows it escaped, no raw line end or ESC in any record.
    @Test func aFailingDirectorysPathIsEscapedInItsRecord() throws {
        let directory = InMemorySnapshotDirectory(path: "/srv/snap\n2026-12-01T21:00:00+0000 critical syncscan: FORGED\u{1B}[2J")
        directory.writeFailure = .noSpace
        let log = LogRecorder()
        let handler = SnapshotResultsHandler(settings: SnapshotSettings(directory: directory.path), directory: directory, logger: log.logger)
        let pool = FramePixelPool(capacity: 2)
        let f = try frame("x", seq: 0)
        var delivered = DeliveredCode(code: code("x", in: f), pixels: pool.copy(f, wait: true))
        try handler.handle(&delivered)
        try handler.finish()
        #expect(handler.failed == 1, "\(log.all.map(\.line))")
        #expect(log.recordsWithRawControls.isEmpty, "\(log.recordsWithRawControls)")
        #expect(log.lines(containing: "directory=/srv/snap\\n2026-12-01T21:00:00+0000 critical syncscan: FORGED\\u{1B}[2J").count == 1,
                "\(log.all.map(\.line))")
    }

    @Test(arguments: [Errno.noSpace, .permissionDenied, .readOnlyFileSystem])
    func aFailingDiskIsLoggedOnceWithThePathCountedAndTheLinesKeepGoing(errno: Errno) throws {
        let directory = InMemorySnapshotDirectory(path: "/srv/snapshots")
        directory.writeFailure = errno
        let log = LogRecorder()
        let handler = SnapshotResultsHandler(settings: SnapshotSettings(directory: directory.path), directory: directory, logger: log.logger)
        // Room for every copy: with 4 for 5 frames, the fifth copy is refused (counted as skipped,
        // not failed) whenever the handler's thread has not yet let go of one of the first four,
        // as on a loaded machine under ASan.
        let pool = FramePixelPool(capacity: 8)
        for seq in UInt64(0)..<5 {
            let f = try frame("x", seq: seq)
            var delivered = DeliveredCode(code: code("x", in: f), pixels: pool.copy(f, wait: true))
            try handler.handle(&delivered)
        }
        try handler.finish()
        // The first is named and fails; those handed over after the failure are trials, named in no line.
        #expect(handler.failed >= 1 && handler.failed + handler.skipped == 5 && handler.written == 0)
        let logged = log.lines(containing: errno.symbol)
        #expect(logged.count == 1, "\(log.all.map(\.line))")
        #expect(logged.first?.contains("/srv/snapshots/") == true && logged.first?.contains("snapshots_failed") == true)
        #expect(directory.contents.isEmpty)
    }

    @Test func afterAFailedWriteLinesNameNoSnapshotUntilAWriteWorksAgain() throws {
        let directory = InMemorySnapshotDirectory()
        directory.writeFailure = .noSpace
        let handler = SnapshotResultsHandler(settings: SnapshotSettings(directory: directory.path), directory: directory,
                                             logger: LogRecorder().logger, clock: SteppingClock().now)
        let pool = FramePixelPool(capacity: 8)
        var named: [UInt64: String] = [:]
        /// Hands frame `seq`'s code over, then waits until its snapshot's outcome is known to the
        /// handler (`done`), not only until its write began: the next code's line depends on it.
        func handle(_ seq: UInt64, done: @escaping () -> Bool = { true }) throws {
            let f = try frame("x", seq: seq)
            var delivered = DeliveredCode(code: code("x", in: f), pixels: pool.copy(f, wait: true))
            try handler.handle(&delivered)
            if let name = delivered.fields.first(where: { $0.name == "snapshot" })?.value { named[seq] = name }
            #expect(waitUntil { directory.writes == Int(seq) + 1 && done() }, "the snapshot of frame \(seq) was tried")
        }
        try handle(0) { handler.failed == 1 }  // named: nothing had failed yet; its write fails
        for seq in UInt64(1)...3 { try handle(seq) }  // the disk is full: no line names a snapshot
        directory.writeFailure = nil
        try handle(4) { directory.removals == 1 }  // a trial: written, then deleted, named in no line
        try handle(5)  // the directory works again: named
        try handler.finish()
        #expect(named.keys.sorted() == [0, 5], "\(named)")
        #expect(Set(directory.contents.keys) == [named[5]!], "only the named snapshot that was written is there")
        #expect(handler.written == 1 && handler.failed == 1 && handler.skipped == 4)
    }

    @Test func theOldestAreDeletedFirstCountingWhatAPreviousRunLeft() throws {
        let left = (0..<4).map { "20261121T000000.00\($0)Z-seq00000\($0).jpg" }
        let directory = InMemorySnapshotDirectory(files: Dictionary(uniqueKeysWithValues: left.map { ($0, [UInt8](repeating: 1, count: 10)) }
                                                  + [("notes.txt", [1])]))
        var settings = SnapshotSettings(directory: directory.path)
        settings.maxFiles = 3
        let handler = SnapshotResultsHandler(settings: settings, directory: directory, logger: LogRecorder().logger, clock: SteppingClock().now)
        let pool = FramePixelPool(capacity: 4)
        var newest: [String] = []
        for seq in UInt64(0)..<2 {
            let f = try frame("keep", seq: seq)
            var delivered = DeliveredCode(code: code("keep", in: f), pixels: pool.copy(f))
            try handler.handle(&delivered)
            newest.append(delivered.fields.first?.value ?? "")
        }
        try handler.finish()
        // 4 old + 2 new, at most 3 kept: the newest old one and the two new ones; other files untouched.
        #expect(Set(directory.contents.keys) == Set([left[3], "notes.txt"] + newest))
    }

    @Test func maxBytesDeletesTheOldestButKeepsTheNewest() throws {
        let directory = InMemorySnapshotDirectory()
        var settings = SnapshotSettings(directory: directory.path)
        settings.maxBytes = 1  // smaller than any JPEG
        let handler = SnapshotResultsHandler(settings: settings, directory: directory, logger: LogRecorder().logger, clock: SteppingClock().now)
        let pool = FramePixelPool(capacity: 4)
        var last = ""
        for seq in UInt64(0)..<3 {
            let f = try frame("bytes", seq: seq)
            var delivered = DeliveredCode(code: code("bytes", in: f), pixels: pool.copy(f))
            try handler.handle(&delivered)
            last = delivered.fields.first?.value ?? ""
        }
        try handler.finish()
        #expect(Array(directory.contents.keys) == [last])
    }

    @Test func aSlowDiskWithALiveSourceSkipsAndCountsInsteadOfBlocking() throws {
        let directory = InMemorySnapshotDirectory()
        directory.holdWrites()   // the disk does not answer until the codes are handled
        var settings = SnapshotSettings(directory: directory.path)
        settings.queueFrames = 2
        let handler = SnapshotResultsHandler(settings: settings, directory: directory, logger: LogRecorder().logger,
                                             overflow: .drop, clock: SteppingClock().now)
        let pool = FramePixelPool(capacity: 16)
        var named = 0
        for seq in UInt64(0)..<10 {
            let f = try frame("slow", seq: seq)
            var delivered = DeliveredCode(code: code("slow", in: f), pixels: pool.copy(f))
            try handler.handle(&delivered)
            named += delivered.fields.isEmpty ? 0 : 1
        }
        // All ten handled while no write could finish: handle never waited for the disk.
        #expect(directory.contents.isEmpty && handler.written == 0, "handle never waited for the disk")
        directory.releaseWrites()
        try handler.finish()
        #expect(handler.skipped > 0 && handler.skipped + handler.written == 10)
        #expect(named == handler.written, "a skipped snapshot is not named in the line")
    }

    @Test func aCodeWithoutPixelsGetsNoSnapshotField() throws {
        let directory = InMemorySnapshotDirectory()
        let handler = SnapshotResultsHandler(settings: SnapshotSettings(directory: directory.path), directory: directory,
                                             logger: LogRecorder().logger)
        var delivered = DeliveredCode(code: code("none", in: try frame("none", seq: 0)), pixels: nil)
        try handler.handle(&delivered)
        try handler.finish()
        #expect(delivered.fields.isEmpty && directory.writes == 0)
    }

    @Test func theFanOutPassesTheSnapshotNameToTheJSONLine() throws {
        let directory = InMemorySnapshotDirectory()
        let snapshots = SnapshotResultsHandler(settings: SnapshotSettings(directory: directory.path), directory: directory,
                                               logger: LogRecorder().logger, clock: SteppingClock().now)
        let out = try TemporaryFile(contents: [], suffix: ".jsonl")
        let fd = try FileDescriptor.open(out.path, .writeOnly, options: .append)
        defer { try? fd.close() }
        let writer = LineWriter(fileDescriptor: fd, name: "out", capacity: 8, overflow: .wait)
        let lines = JSONLinesResultsHandler(writer: writer, source: "test")
        let fanOut = ResultsFanOut([snapshots, lines])
        #expect(fanOut.pixelsRequest == .frame)
        let f = try frame("fan", seq: 7)
        var delivered = DeliveredCode(code: code("fan", in: f), pixels: FramePixelPool(capacity: 1).copy(f))
        try fanOut.handle(&delivered)
        try snapshots.finish()
        try writer.finish()
        let line = String(decoding: FileManager.default.contents(atPath: out.path) ?? Data(), as: UTF8.self)
        #expect(line.contains("\"format\":\"GREY\"},\"snapshot\":\"20261122T101500.000Z-seq000007.jpg\",\"source\":\"test\""), "\(line)")
    }
}
