import Capture
import Foundation
import JPEG
import Media
import SystemCalls
import SystemPackage
import Testing
import TestSupport
@testable import Results

private let width = 320, height = 240

/// 2026-11-22T10:15:00.000Z, always.
@Sendable private func fixedTime() -> WallClockTime { WallClockTime(secondsSince1970: 1_795_342_500, milliseconds: 0) }

/// A 320x240 scene: a texture with the QR code `text` in its middle.
private func scene(_ text: String) throws -> GreyFrame {
    var f = GreyFrame(width: width, height: height)
    for y in 0..<height { for x in 0..<width { f[x, y] = UInt8(60 + (x + 2 * y) % 140) } }
    f.draw(try ModuleMatrix.qrCode(text), centerX: 160, centerY: 120, moduleSize: 4)
    return f
}

/// A `no_read` result of window 3 whose diagnosis frame is `frame`, copied through `pool`.
private func noRead(_ frame: GreyFrame, pool: FramePixelPool) throws -> ReadResult {
    let pixels = try frame.packedPixels.withUnsafeBytes { raw in
        try #require(pool.copy(VideoFrame(sequenceNumber: 41, presentationTime: MediaTime(seconds: 1.5), width: width, height: height,
                                          bytesPerLine: width, format: .grey, buffer: PixelBuffer(bytes: raw) {})))
    }
    return ReadResult(kind: .noRead, window: 3, trigger: "sigusr1", opened: ItemFrame(sequenceNumber: 40, presentationTime: MediaTime(seconds: 1.4)),
                      closed: ItemFrame(sequenceNumber: 44, presentationTime: MediaTime(seconds: 1.6)), codes: 0, framesScanned: 5,
                      diagnosis: DiagnosisFrame(score: DiagnosisScore(undecoded: 0, sharpness: 1), pixels: pixels))
}

/// The lines a JSON lines handler wrote to a file.
private final class LinesFile {
    let file: TemporaryFile
    let fd: FileDescriptor
    let writer: LineWriter
    let handler: JSONLinesResultsHandler
    init() throws {
        file = try TemporaryFile(contents: [], suffix: ".jsonl")
        fd = try FileDescriptor.open(file.path, .writeOnly, options: .append)
        writer = LineWriter(fileDescriptor: fd, name: "out", capacity: 8, overflow: .wait)
        handler = JSONLinesResultsHandler(writer: writer, source: "test", clock: fixedTime)
    }
    var lines: [String] {
        String(decoding: FileManager.default.contents(atPath: file.path) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    }
    deinit { try? fd.close() }
}

@Suite(.offThePool) struct ReadResultsHandlerTests {
    /// The no-read JPEG is written, named in the line, and decodes to the scene: its pixels within
    /// a few grey levels of the frame's, and its QR code read again by zbar.
    @Test func aNoReadsJPEGIsWrittenNamedInItsLineAndDecodesToTheScene() throws {
        let directory = try TemporaryDirectory()
        let counts = ReadWindowCounts()
        let handler = ReadResultsHandler(directory: FileSystemSnapshotDirectory(path: directory.path + "/no_read", setting: "trigger.no_read_directory"),
                                         counts: counts, triggers: TriggerSwitch(), logger: LogRecorder().logger, clock: fixedTime)
        let lines = try LinesFile()
        let original = try scene("SCENE-7")
        var result = try noRead(original, pool: FramePixelPool(capacity: 1))
        try ResultsFanOut([handler, lines.handler]).readResult(&result)
        try lines.writer.finish()
        try handler.finish()

        let path = try #require(result.snapshot)
        #expect(path == directory.path + "/no_read/no_read-20261122T101500.000Z-w000003.jpg")
        let jpeg = try #require(FileManager.default.contents(atPath: path).map { [UInt8]($0) })
        #expect(result.jpeg == jpeg)
        var decoded = [UInt8](repeating: 0, count: width * height)
        let outcome = jpeg.withUnsafeBytes { bytes in decoded.withUnsafeMutableBytes { JPEGLumaDecoder().decodeLuma(bytes, width: width, height: height, into: $0) } }
        #expect(outcome == .decoded(warning: nil))
        let difference = zip(decoded, original.packedPixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / (width * height)
        #expect(difference < 4, "mean difference \(difference) grey levels from the frame")
        let codes = decoded.withUnsafeBytes { raw in
            MetadataOutput(settings: .init(engine: .zbar), scanningThreads: 1).makeScanner(live: false).scanReport(
                VideoFrame(sequenceNumber: 0, presentationTime: .zero, width: width, height: height, bytesPerLine: width, format: .grey,
                           buffer: PixelBuffer(bytes: raw) {})).codes
        }
        #expect(codes.map(\.text) == ["SCENE-7"])

        #expect(lines.lines == ["{\"type\":\"read_result\",\"result\":\"no_read\",\"window\":3,\"trigger\":\"sigusr1\",\"opened_seq\":40,"
            + "\"opened_pts\":1.4,\"closed_seq\":44,\"closed_pts\":1.6,\"codes\":0,\"items\":[],\"read\":[],\"frames_scanned\":5,"
            + "\"snapshot\":\"\(path)\",\"source\":\"test\",\"time\":\"2026-11-22T10:15:00.000Z\"}"])
        #expect(handler.counters.first { $0.name == "no_read_images_written" }?.value == 1)
    }

    /// On a full disk the result line still goes out: the first, queued before the disk was known
    /// full, names its path; the next names why (`snapshot_error`). The failures are counted and
    /// logged once with what to do; the JPEG still reaches the handlers after it. Once the disk
    /// takes a file again (a trial, deleted), the lines name their files again.
    @Test func aFullDiskLosesTheImageNotTheResult() throws {
        let directory = InMemorySnapshotDirectory()
        directory.writeFailure = .noSpace
        let log = LogRecorder()
        let handler = ReadResultsHandler(directory: directory, counts: ReadWindowCounts(), triggers: TriggerSwitch(), logger: log.logger)
        handler.start()
        handler.images?.waitUntilPrepared()
        let lines = try LinesFile()
        let pool = FramePixelPool(capacity: 2)
        func read() throws -> ReadResult {
            var result = try noRead(try scene("FULL"), pool: pool)
            try ResultsFanOut([handler, lines.handler]).readResult(&result)
            #expect(result.jpeg != nil)
            result.diagnosis = nil  // its pixels back to the pool
            return result
        }
        let failed = { handler.counters.first { $0.name == "no_read_images_failed" }?.value }
        let first = try read()
        #expect(first.snapshot != nil && first.snapshotError == nil)
        #expect(waitUntil { failed() == 1 })
        let second = try read()
        #expect(second.snapshot == nil && second.snapshotError == "ENOSPC" && failed() == 2)
        #expect(waitUntil { directory.writes == 2 }, "the failing directory's image is still tried")

        directory.writeFailure = nil
        let third = try read()
        #expect(third.snapshot == nil && third.snapshotError == "ENOSPC", "the last write failed when the line went out")
        #expect(waitUntil { directory.writes == 3 })
        let fourth = try read()
        try handler.finish()
        try lines.writer.finish()
        #expect(fourth.snapshot == "/fake/snapshots/" + (fourth.snapshot?.split(separator: "/").last.map(String.init) ?? ""))
        #expect(directory.contents.keys.sorted() == [fourth.snapshot?.split(separator: "/").last.map(String.init)].compactMap { $0 },
                "the trial written while the line said ENOSPC is deleted, the fourth kept")
        #expect(lines.lines.count == 4 && lines.lines.allSatisfy { $0.contains("\"result\":\"no_read\"") })
        #expect(lines.lines.map { $0.contains("\"snapshot\":") } == [true, false, false, true])
        #expect(lines.lines.map { $0.contains("\"snapshot_error\":\"ENOSPC\"") } == [false, true, true, false])
        #expect(failed() == 3 && handler.counters.first { $0.name == "no_read_images_written" }?.value == 1)
        let logged = log.lines(containing: "no-read image not saved")
        #expect(logged.count == 1 && logged[0].contains("ENOSPC") && logged[0].contains("free space"), "\(logged)")
    }

    /// A disk that does not answer never holds up delivery: results go out, naming their files,
    /// while every write waits; beyond the queue's room a result says `queue_full`. Once the disk
    /// answers, each queued file is written.
    @Test func aDiskThatDoesNotAnswerNeverBlocksDelivery() throws {
        let directory = InMemorySnapshotDirectory()
        directory.holdWrites()
        defer { directory.releaseWrites() }
        let handler = ReadResultsHandler(directory: directory, counts: ReadWindowCounts(), triggers: TriggerSwitch(),
                                         logger: LogRecorder().logger)
        let pool = FramePixelPool(capacity: 1)
        var results: [ReadResult] = []
        for _ in 0..<20 {
            var result = try noRead(try scene("HELD"), pool: pool)
            try handler.readResult(&result)
            result.diagnosis = nil
            results.append(result)
        }
        #expect(directory.writes == 0, "every result went out while the disk held the first write")
        let full = results.filter { $0.snapshotError == "queue_full" }.count
        #expect(full >= 3 && full <= 4, "16 wait, one is held: \(full)")
        #expect(results.allSatisfy { ($0.snapshot == nil) == ($0.snapshotError == "queue_full") })
        directory.releaseWrites()
        try handler.finish()
        #expect(directory.writes == 20 - full)
        #expect(handler.counters.first { $0.name == "no_read_images_failed" }?.value == full)
    }

    /// A directory path through a regular file (ENOTDIR: as unwritable as a read-only disk, to
    /// root too) loses the images, never the results: each line says why, the log says it once.
    @Test func aPathThroughAFileLosesTheImagesNotTheResults() throws {
        let file = try TemporaryFile(contents: [1, 2, 3], suffix: ".txt")
        let log = LogRecorder()
        let handler = ReadResultsHandler(directory: FileSystemSnapshotDirectory(path: file.path + "/no_read", setting: "trigger.no_read_directory"),
                                         counts: ReadWindowCounts(), triggers: TriggerSwitch(), logger: log.logger)
        handler.start()
        handler.images?.waitUntilPrepared()
        let lines = try LinesFile()
        let pool = FramePixelPool(capacity: 1)
        for _ in 0..<3 {
            var result = try noRead(try scene("FILE"), pool: pool)
            try ResultsFanOut([handler, lines.handler]).readResult(&result)
        }
        try handler.finish()
        try lines.writer.finish()
        #expect(lines.lines.count == 3 && lines.lines.allSatisfy { $0.contains("\"snapshot_error\":\"ENOTDIR\"") && !$0.contains("\"snapshot\":") },
                "\(lines.lines)")
        #expect(handler.counters.first { $0.name == "no_read_images_failed" }?.value == 3)
        let logged = log.lines(containing: "no-read image directory unusable")
        #expect(logged.count == 1 && logged[0].contains("ENOTDIR") && logged[0].contains("trigger.no_read_directory"), "\(logged)")
    }

    /// A no-read directory whose path ends a log record and forges another: the failure's one
    /// record shows it escaped, no raw line end or ESC in any record.
    @Test func anUnusableDirectorysPathIsEscapedInItsRecord() throws {
        let file = try TemporaryFile(contents: [1, 2, 3], suffix: ".txt")
        let log = LogRecorder()
        let path = file.path + "/no\n2026-12-01T21:00:00+0000 critical syncscan: FORGED\u{1B}[2J"
        let handler = ReadResultsHandler(directory: FileSystemSnapshotDirectory(path: path, setting: "trigger.no_read_directory"),
                                         counts: ReadWindowCounts(), triggers: TriggerSwitch(), logger: log.logger)
        handler.start()
        handler.images?.waitUntilPrepared()
        let pool = FramePixelPool(capacity: 1)
        var result = try noRead(try scene("FILE"), pool: pool)
        try handler.readResult(&result)
        try handler.finish()
        #expect(log.lines(containing: "no-read image directory unusable").count == 1, "\(log.all.map(\.line))")
        #expect(log.recordsWithRawControls.isEmpty, "\(log.recordsWithRawControls)")
        #expect(log.lines(containing: "/no\\n2026-12-01T21:00:00+0000 critical syncscan: FORGED\\u{1B}[2J").count == 1, "\(log.all.map(\.line))")
    }

    /// `trigger.no_read_keep` keeps exactly the newest N no-read images, those a previous run left
    /// counted; the snapshots and other files beside them are never touched.
    @Test func retentionKeepsExactlyTheNewestNoReadImages() throws {
        let root = try TemporaryDirectory()
        let earlier = ["no_read-20261121T080000.000Z-w000001.jpg", "no_read-20261121T080001.000Z-w000002.jpg",
                       "no_read-20261121T080002.000Z-w000003.jpg"]
        let others = ["20261121T080000.000Z-seq000001.jpg", "no_read-notes.txt", "no_read-x.jpg", "mine.jpg"]
        for name in earlier + others { #expect(FileManager.default.createFile(atPath: root.path + "/" + name, contents: Data([1]))) }
        let tick = LockedValue(0)
        let clock: @Sendable () -> WallClockTime = {
            WallClockTime(secondsSince1970: 1_795_342_500 + tick.withLock { $0 += 1; return Int64($0) }, milliseconds: 0)
        }
        let handler = ReadResultsHandler(directory: FileSystemSnapshotDirectory(path: root.path), keep: 4, counts: ReadWindowCounts(),
                                         triggers: TriggerSwitch(), logger: LogRecorder().logger, clock: clock)
        let pool = FramePixelPool(capacity: 1)
        var paths: [String] = []
        for window in 1...5 {
            var result = try noRead(try scene("KEEP"), pool: pool)
            result.window = UInt64(window)
            try handler.readResult(&result)
            paths.append(try #require(result.snapshot))
        }
        try handler.finish()
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        let kept = paths.suffix(4).map { String($0.split(separator: "/").last!) }
        #expect(names == (kept + others).sorted(), "\(names)")
        #expect(handler.images?.deleted == 4)
        #expect(NoReadImages.isNoReadName(kept[0]) && !NoReadImages.isNoReadName("no_read-x.jpg")
            && !NoReadImages.isNoReadName("20261121T080000.000Z-seq000001.jpg"))
    }

    /// good and multiple results carry no image; the counters read the window counts and the switch.
    @Test func goodAndMultipleResultsWriteNoImageAndTheCountersFollowTheSwitch() throws {
        let directory = InMemorySnapshotDirectory()
        let (counts, triggers) = (ReadWindowCounts(), TriggerSwitch(capacity: 2))
        let handler = ReadResultsHandler(directory: directory, counts: counts, triggers: triggers, logger: LogRecorder().logger)
        var good = ReadResult(kind: .good, window: 1, trigger: "test", opened: ItemFrame(sequenceNumber: 0, presentationTime: .zero),
                              closed: ItemFrame(sequenceNumber: 1, presentationTime: .zero), codes: 1, items: [4], framesScanned: 2)
        try handler.readResult(&good)
        #expect(good.snapshot == nil && good.jpeg == nil && directory.writes == 0)
        for _ in 0..<3 { triggers.press(origin: "test") }
        let values = Dictionary(uniqueKeysWithValues: handler.counters.map { ($0.name, $0.value) })
        #expect(values["triggers"] == 3 && values["triggers_dropped"] == 1 && values["reads_good"] == 0)
        #expect(ReadResult.kind(codes: 0, expected: 2) == .noRead && ReadResult.kind(codes: 2, expected: 2) == .good
            && ReadResult.kind(codes: 3, expected: 2) == .multiple)
    }
}
