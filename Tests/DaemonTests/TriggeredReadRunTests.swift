import Capture
@testable import Daemon
import Foundation
import Logging
import Media
import Results
import SystemCalls
import SystemPackage
import TestSupport
import Testing

private let width = 320, height = 240

/// A frame of a mono Y4M stream: `FRAME` and the pixels of `f`.
private func y4mFrame(_ f: GreyFrame) -> [UInt8] {
    var out = Array("FRAME\n".utf8)
    for row in 0..<height { out += f.bytes[(row * f.bytesPerLine)..<(row * f.bytesPerLine + width)] }
    return out
}

/// The three scenes: nothing, one QR code, two QR codes.
private func scenes() throws -> (blank: [UInt8], one: [UInt8], two: [UInt8]) {
    var two = GreyFrame(width: width, height: height)
    two.draw(try ModuleMatrix.qrCode("left"), centerX: 80, centerY: 120, moduleSize: 3)
    two.draw(try ModuleMatrix.qrCode("right"), centerX: 240, centerY: 120, moduleSize: 3)
    return (y4mFrame(GreyFrame(width: width, height: height)), y4mFrame(try GreyFrame.withQRCode("one").frame), y4mFrame(two))
}

/// A file the writer appends lines to, and its JSON objects.
private final class OutputFile: @unchecked Sendable {
    let file: TemporaryFile
    let fd: FileDescriptor
    init() throws {
        file = try TemporaryFile(contents: [], suffix: ".jsonl")
        fd = try FileDescriptor.open(file.path, .writeOnly, options: .append)
    }
    var objects: [[String: Any]] {
        String(decoding: FileManager.default.contents(atPath: file.path) ?? Data(), as: UTF8.self).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
    var results: [[String: Any]] { objects.filter { $0["type"] as? String == "read_result" } }
    deinit { try? fd.close() }
}

@Suite(.serialized, .offThePool) struct TriggeredReadRunTests {
    /// A live Y4M pipe (a FIFO) in trigger.mode triggered: a press over nothing is a no_read with
    /// its JPEG written, over one code good, over two codes multiple; a press while a window is
    /// open is ignored; the counters reach the stats line, /status and the metrics.
    @Test func windowsOnALivePipeEndInNoReadGoodAndMultiple() async throws {
        let fifo = try TemporaryFIFO()
        let images = try TemporaryDirectory()
        let out = try OutputFile()
        var c = SyncscanConfiguration()
        c.source = "y4m:" + fifo.path
        c.statsIntervalSeconds = 0
        c.scanningThreads = 1
        // A window of 50 frames: a scanner slowed down (a sanitizer, a loaded machine) drops most
        // of them as late, and still scans some.
        c.trigger = TriggerSettings(mode: .triggered, window: .init(duration: MediaTime(seconds: 1)), noReadDirectory: images.path)
        let writer = LineWriter(fileDescriptor: out.fd, name: "out", capacity: 256, overflow: .wait)
        let service = ScanService(options: PipelineOptions(c), writer: writer, logger: Logger(label: "test")) { _ in }
        let (blank, one, two) = try scenes()

        // The camera: frames every 20 ms; each phase presses, then feeds its scene until the window's
        // result is out. A press waits until every frame sent so far has been delivered: a frame is
        // bigger than the pipe's buffer, so when its write returns the source may not have taken it
        // yet, and a press then would open its window at that earlier frame (the first frame of a
        // window is the one a slowed scanner surely scans).
        let fed = LockedValue(true)
        let camera = Thread {
            guard let fd = try? FileDescriptor.open(fifo.path, .writeOnly) else { fed.withLock { $0 = false }; return }
            defer { try? fd.close() }
            var sent = 0
            func send(_ bytes: [UInt8]) -> Bool {
                guard (try? bytes.withUnsafeBytes { try fd.writeAll($0) }) != nil else { return false }
                if bytes.starts(with: Array("FRAME".utf8)) { sent += 1 }
                return true
            }
            func pressWhenTaken() -> Bool {
                let deadline = ContinuousClock.now + hangTimeout
                while service.statistics().frames < sent {
                    guard ContinuousClock.now < deadline else { return false }
                    pause(.milliseconds(5))
                }
                service.triggers.press(origin: "test")
                return true
            }
            func feed(_ frame: [UInt8], until results: Int, alsoPressAt extra: Int? = nil) -> Bool {
                let deadline = ContinuousClock.now + hangTimeout
                var n = 0
                while out.results.count < results {
                    guard ContinuousClock.now < deadline, send(frame) else { return false }
                    n += 1
                    if n == extra { service.triggers.press(origin: "test") }
                    pause(.milliseconds(20))
                }
                return true
            }
            var ok = send(Array("YUV4MPEG2 W\(width) H\(height) F50:1 Ip A1:1 Cmono\n".utf8))
            for _ in 0..<3 where ok { ok = send(blank); pause(.milliseconds(20)) }
            ok = ok && pressWhenTaken() && feed(blank, until: 1)
            for _ in 0..<3 where ok { ok = send(one); pause(.milliseconds(20)) }  // outside any window: never read
            ok = ok && pressWhenTaken() && feed(one, until: 2, alsoPressAt: 2)
            ok = ok && pressWhenTaken() && feed(two, until: 3)
            fed.withLock { $0 = ok }
        }
        camera.start()
        try await service.runWithResultsHandlers()
        #expect(fed.withLock { $0 }, "the camera fed every phase")

        let results = out.results
        #expect(results.map { $0["result"] as? String } == ["no_read", "good", "multiple"], "\(results)")
        #expect(results.map { $0["window"] as? Int } == [1, 2, 3] && results.allSatisfy { $0["trigger"] as? String == "test" })
        #expect(results.map { $0["codes"] as? Int } == [0, 1, 2])
        let snapshot = try #require(results.first?["snapshot"] as? String)
        let jpeg = try #require(FileManager.default.contents(atPath: snapshot))
        #expect(snapshot.hasPrefix(images.path + "/no_read-") && jpeg.starts(with: [0xFF, 0xD8]), "a JPEG in trigger.no_read_directory")
        #expect(results.dropFirst().allSatisfy { $0["snapshot"] == nil })
        // Codes only inside windows: "one" shown before its press was never read then.
        let codes = out.objects.filter { $0["type"] as? String == "code" }
        #expect(codes.compactMap { $0["text"] as? String }.sorted() == ["left", "one", "right"])

        let stats = service.statsLine()
        #expect(stats.contains("reads_good=1 reads_no_read=1 reads_multiple=1 triggers=4 triggers_dropped=0 triggers_ignored=1"), "\(stats)")
        #expect(stats.contains("untriggered="), "\(stats)")
        let status = String(decoding: service.statusJSON(), as: UTF8.self)
        #expect(status.contains("\"reads_no_read\":1") && status.contains("\"triggers_ignored\":1"), "\(status)")
        let metrics = String(decoding: service.metricsExposition(), as: UTF8.self)
        #expect(metrics.contains("syncscan_reads_multiple_total{") && metrics.contains("syncscan_frames_total{") , "\(metrics)")
    }

    /// STATUS= shows the read counts in trigger.mode triggered (the read results handler's
    /// counters STATUS= shows), and nothing of them otherwise.
    @Test func statusShowsTheReadCountsWhenTriggered() {
        let handler = ReadResultsHandler(directory: nil, counts: ReadWindowCounts(), triggers: TriggerSwitch(), logger: LogRecorder().logger)
        let triggered = ServiceStatus.scanning(source: "y4m:-", statistics: CaptureStatistics(), handlerCounters: handler.counters).line
        #expect(triggered.hasSuffix(" reads_good=0 reads_no_read=0 reads_multiple=0 triggers_ignored=0"), "\(triggered)")
        #expect(!ServiceStatus.scanning(source: "y4m:-", statistics: CaptureStatistics()).line.contains("reads_"))
    }
}
