import Foundation
import TestSupport
import Testing

/// 160x120 frames, each holding one QR code; `count` distinct payloads cycled.
private func qrFrames(_ count: Int, prefix: String) throws -> [GreyFrame] {
    try (0..<count).map { i in
        var f = GreyFrame(width: 160, height: 120)
        f.draw(try ModuleMatrix.qrCode("\(prefix)-\(i)"), centerX: 80, centerY: 60, moduleSize: 3)
        return f
    }
}

private func pause(_ seconds: Double) { TestSupport.pause(.milliseconds(Int(seconds * 1000))) }

@Suite(.serialized, .offThePool) struct ServiceTests {
    /// READY=1, then WATCHDOG=1 at least every WATCHDOG_USEC/2 while frames flow, none while the
    /// source is stalled, STOPPING=1 after SIGTERM, exit 0, and every line of every scanned frame written.
    @Test func notifiesSystemdAndPingsTheWatchdogOnlyWhileFramesFlow() throws {
        let listener = try NotifySocketListener()
        let stream = Y4MStream(width: 160, height: 120)
        let frames = try qrFrames(4, prefix: "notify").map(stream.frame)
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--emit-frames", "--duplicate-window", "0"],
                                       environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "1000000"])
        daemon.feed(stream.header)
        let start = ContinuousClock.now
        var i = 0
        while ContinuousClock.now - start < .seconds(3) {   // 3 s of frames at 20 fps
            daemon.feed(frames[i % frames.count]); i += 1
            pause(0.05)
        }
        let stallStart = ContinuousClock.now
        pause(2.5)                                           // the source stalls: the pipe stays open, no frames
        let termAt = ContinuousClock.now
        daemon.send(SIGTERM)
        let status = daemon.wait()

        #expect(status == 0, "stderr: \(daemon.stderr)")
        let ready = listener.times(of: "READY=1")
        let pings = listener.times(of: "WATCHDOG=1")
        let stopping = listener.times(of: "STOPPING=1")
        #expect(ready.count >= 1)
        #expect(stopping.count == 1)
        if let readyAt = ready.first, let stoppingAt = stopping.first {
            #expect(readyAt < stallStart && stoppingAt >= termAt)
            // While frames flow: no gap between pings longer than WATCHDOG_USEC/2.
            let flowing = [readyAt] + pings.filter { $0 < stallStart }
            let gaps = zip(flowing.dropFirst(), flowing).map { $0 - $1 }
            // Pings from READY to the stall, however late READY came (a loaded machine starts slowly):
            // at least one per half watchdog interval of the time frames flowed after READY.
            let flowedAfterReady = stallStart - readyAt
            let minimum = max(1, Int(flowedAfterReady / .milliseconds(500)) - 1)
            #expect(flowing.count >= minimum, "pings while frames flow: \(flowing.count) in \(flowedAfterReady) after READY")
            #expect(gaps.allSatisfy { $0 <= .milliseconds(500) }, "gaps: \(gaps)")
            // While stalled: the last frame is delivered just after stallStart; then silence.
            #expect(pings.filter { $0 > stallStart + .milliseconds(400) && $0 < termAt }.isEmpty,
                    "pings during the stall: \(pings.filter { $0 > stallStart }.map { $0 - stallStart })")
        }
        // No line lost: the ledger is complete and every scanned frame's codes were written.
        let lines = daemon.stdoutLines
        #expect(lines.allSatisfy { $0 != nil })
        let records = lines.compactMap { $0 }.filter { $0["type"] as? String == "frame" }
        let codes = lines.compactMap { $0 }.filter { $0["type"] as? String == "code" }
        #expect(records.map { $0["seq"] as? Int } == Array(0..<i))
        #expect(codes.count == records.reduce(0) { $0 + ($1["codes"] as? Int ?? 0) })
        // How many frames a live pipe lets the scanners take depends on the machine (ASan scans far
        // slower); what does not: every frame that was scanned gave its one code.
        let scanned = records.filter { ($0["dropped"] as? String) == nil }
        #expect(!scanned.isEmpty && scanned.allSatisfy { $0["codes"] as? Int == 1 },
                "scanned frames and their codes: \(scanned.map { $0["codes"] as? Int ?? -1 })")
    }

    /// STATUS= tells `systemctl status` what the service does: the source and its counts while scanning.
    @Test func statusLineShowsTheSourceAndCountsWhileScanning() throws {
        let listener = try NotifySocketListener()
        let stream = Y4MStream(width: 160, height: 120)
        let frame = try qrFrames(1, prefix: "status").map(stream.frame)[0]
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--duplicate-window", "0"],
                                       environment: ["NOTIFY_SOCKET": listener.path])
        daemon.feed(stream.header)
        for _ in 0..<60 { daemon.feed(frame); pause(0.05) }   // 3 s at 20 fps
        pause(2.5)
        daemon.send(SIGTERM)
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        let statuses = listener.messages.flatMap { $0.text.split(separator: "\n") }.filter { $0.hasPrefix("STATUS=") }
        let scanning = statuses.filter { $0.hasPrefix("STATUS=scanning y4m:-: frames=") }
        #expect(!scanning.isEmpty, "STATUS lines: \(statuses)")
        // The latest one counts every frame fed; each scanned frame holds one code, and a live pipe
        // may drop a frame as late on a loaded machine, so codes + dropped = frames.
        let counts = Dictionary(uniqueKeysWithValues: (scanning.last ?? "").split(separator: " ").compactMap { field -> (String, Int)? in
            let pair = field.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let value = Int(pair[1]) else { return nil }
            return (String(pair[0]), value)
        })
        #expect(counts["frames"] == 60 && (counts["codes"] ?? 0) > 0 && counts["codes"].map { $0 + (counts["dropped"] ?? -1) } == 60,
                "STATUS lines: \(statuses)")
    }

    /// SIGHUP with a new symbology set applies to the following frames; a broken file keeps the old config.
    @Test func sighupReloadsTheConfigurationAndABrokenFileKeepsTheOldOne() throws {
        let config = try TemporaryFile(contents: Array("symbologies: [qrcode]\nduplicate_suppression:\n  enabled: false\n".utf8), suffix: ".yaml")
        let stream = Y4MStream(width: 320, height: 120)
        var qr = GreyFrame(width: 320, height: 120)
        qr.draw(try ModuleMatrix.qrCode("hup-qr"), centerX: 160, centerY: 60, moduleSize: 3)
        var bar = GreyFrame(width: 320, height: 120)
        bar.draw(try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "HUP-128").stretched(toRows: 60), x: 20, y: 30, moduleSize: 2)
        let frames = [stream.frame(qr), stream.frame(bar)]
        let daemon = try RunningDaemon(["run", "--config", config.path, "--source", "y4m:-", "--emit-frames"])
        daemon.feed(stream.header)
        var sent = 0
        func feed(for seconds: Double) {
            let until = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while ContinuousClock.now < until { daemon.feed(frames[sent % 2]); sent += 1; pause(0.05) }
        }
        feed(for: 1.5)
        let seqBeforeReload = sent
        try Array("symbologies: [qrcode, code128]\nduplicate_suppression:\n  enabled: false\nlog_level: debug\n".utf8).withUnsafeBytes {
            try Data($0).write(to: URL(fileURLWithPath: config.path))
        }
        daemon.send(SIGHUP)
        feed(for: 1.5)
        let seqBeforeBroken = sent
        try Data("symbologies: [qrcode, nope]\n".utf8).write(to: URL(fileURLWithPath: config.path))
        daemon.send(SIGHUP)
        feed(for: 1.5)
        daemon.closeStdin()
        let status = daemon.wait()

        #expect(status == 0, "stderr: \(daemon.stderr)")
        let codes = daemon.stdoutLines.compactMap { $0 }.filter { $0["type"] as? String == "code" }
        func seq(_ o: [String: Any]) -> Int { (o["frame"] as? [String: Any])?["seq"] as? Int ?? -1 }
        let barcodes = codes.filter { $0["symbology"] as? String == "code128" }.map(seq)
        #expect(!barcodes.isEmpty, "code128 is reported after the reload")
        #expect(barcodes.allSatisfy { $0 >= seqBeforeReload }, "no code128 before the reload: \(barcodes)")
        // After the broken reload both symbologies are still scanned.
        #expect(barcodes.contains { $0 >= seqBeforeBroken + 4 })
        #expect(codes.contains { $0["symbology"] as? String == "qrcode" && seq($0) >= seqBeforeBroken + 4 })
        #expect(daemon.stderr.contains("configuration reload failed") && daemon.stderr.contains("nope"), "stderr: \(daemon.stderr)")
        // The reloaded log level applies too: debug lines appear only after the first SIGHUP.
        let stderrLines = daemon.stderr.split(separator: "\n")
        let firstReload = try #require(stderrLines.firstIndex { $0.contains("reloaded configuration applied in place") })
        #expect(!stderrLines[..<firstReload].contains { $0.contains(" debug ") })
        #expect(stderrLines[firstReload...].contains { $0.contains(" debug ") })
    }

    /// A reload that changes the source reopens it: lines after it name the new source.
    @Test func sighupWithANewSourceReopensAndLinesNameIt() throws {
        let stream = Y4MStream(width: 160, height: 120)
        let before = try qrFrames(1, prefix: "before-reopen").map(stream.frame)[0]
        let after = try qrFrames(1, prefix: "after-reopen")[0]
        let file = try TemporaryFile(contents: Y4MWriter.bytes(Array(repeating: after, count: 5)), suffix: ".y4m")
        let config = try TemporaryFile(contents: Array("source: y4m:-\nduplicate_suppression:\n  enabled: false\n".utf8), suffix: ".yaml")
        let daemon = try RunningDaemon(["run", "--config", config.path])
        daemon.feed(stream.header)
        for _ in 0..<10 { daemon.feed(before); pause(0.05) }
        pause(0.5)
        try Data("source: \(file.path)\nduplicate_suppression:\n  enabled: false\n".utf8).write(to: URL(fileURLWithPath: config.path))
        daemon.send(SIGHUP)
        // The file is read to its end, then the daemon exits by itself.
        let status = daemon.wait()

        #expect(status == 0, "stderr: \(daemon.stderr)")
        let codes = daemon.stdoutLines.compactMap { $0 }.filter { $0["type"] as? String == "code" }
        let fromPipe = codes.filter { $0["source"] as? String == "y4m:-" }
        let fromFile = codes.filter { $0["source"] as? String == "y4m:\(file.path)" }
        #expect(fromPipe.count >= 1 && fromPipe.allSatisfy { $0["text"] as? String == "before-reopen-0" })
        #expect(fromFile.count == 5 && fromFile.allSatisfy { $0["text"] as? String == "after-reopen-0" })
        #expect(fromPipe.count + fromFile.count == codes.count)
        #expect(daemon.stderr.contains("reopening"), "stderr: \(daemon.stderr)")
    }

    /// Reloads that cannot be applied (an invalid source, an invalid device setting, a source that
    /// cannot be opened) each say why, naming the key or the source, and the running session keeps
    /// scanning; a later SIGTERM exits 0.
    @Test func aReloadThatCannotBeAppliedKeepsTheRunningSession() throws {
        let base = "source: y4m:-\nduplicate_suppression:\n  enabled: false\n"
        let config = try TemporaryFile(contents: Array(base.utf8), suffix: ".yaml")
        let stream = Y4MStream(width: 160, height: 120)
        let frame = try qrFrames(1, prefix: "kept").map(stream.frame)[0]
        let daemon = try RunningDaemon(["run", "--config", config.path, "--emit-frames"])
        daemon.feed(stream.header)
        var sent = 0
        func feed(for seconds: Double) {
            let until = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while ContinuousClock.now < until { daemon.feed(frame); sent += 1; pause(0.05) }
        }
        feed(for: 1)
        let missing = "/nonexistent-\(UUID().uuidString.prefix(8))/in.y4m"
        var marks: [Int] = []
        for broken in ["source: foo\n", "source: y4m:-\ndevice:\n  buffers: 1\n", "source: \(missing)\n"] {
            try Data((broken + "duplicate_suppression:\n  enabled: false\n").utf8).write(to: URL(fileURLWithPath: config.path))
            daemon.send(SIGHUP)
            marks.append(sent)
            feed(for: 1.5)
        }
        daemon.send(SIGTERM)
        let status = daemon.wait()

        #expect(status == 0, "stderr: \(daemon.stderr)")
        let codes = daemon.stdoutLines.compactMap { $0 }.filter { $0["type"] as? String == "code" }
        func seq(_ o: [String: Any]) -> Int { (o["frame"] as? [String: Any])?["seq"] as? Int ?? -1 }
        for mark in marks {
            #expect(codes.contains { seq($0) >= mark + 8 }, "codes after the reload at seq \(mark): \(codes.map(seq).suffix(5))")
        }
        #expect(codes.allSatisfy { $0["source"] as? String == "y4m:-" })
        let stderr = daemon.stderr
        #expect(stderr.contains("\"foo\"") && stderr.contains("device.buffers"), "stderr: \(stderr)")
        #expect(stderr.contains(missing) && stderr.contains("keeping"), "stderr: \(stderr)")
    }

    /// A stdout reader stopped for 10 s does not stall capture; memory stays bounded; after SIGCONT
    /// every line written is whole JSON and the dropped lines are counted.
    @Test func aStoppedStdoutReaderNeitherStallsCaptureNorGrowsMemory() throws {
        let config = try TemporaryFile(contents: Array("duplicate_suppression:\n  enabled: false\noutput:\n  queue_lines: 64\nstats_interval_seconds: 1\n".utf8), suffix: ".yaml")
        let stream = Y4MStream(width: 160, height: 120)
        let frames = try qrFrames(8, prefix: "pressure-payload-padded-to-make-lines-longer").map(stream.frame)
        let out = try TemporaryFile(contents: [], suffix: ".jsonl")
        let pipe = Pipe()
        let reader = try ChildProcess(["/bin/cat"], stdin: .descriptor(pipe.fileHandleForReading.fileDescriptor), stdout: .file(out.path))
        let daemon = try RunningDaemon(["run", "--config", config.path, "--source", "y4m:-", "--emit-frames"],
                                       stdout: pipe.fileHandleForWriting)
        try pipe.fileHandleForWriting.close()
        try pipe.fileHandleForReading.close()
        daemon.feed(stream.header)

        // Feed at ~200 fps from a thread; count frames fed per phase.
        let fed = FedCounter()
        let feeder = Thread {
            var i = 0
            while !fed.stopped {
                guard daemon.feed(frames[i % frames.count]) else { break }
                i += 1; fed.add()
                pause(0.005)
            }
        }
        feeder.start()
        pause(1)
        reader.signal(SIGSTOP)
        let fedAtStop = fed.count
        var rss: [Int] = []
        for _ in 0..<10 { pause(1); if let r = daemon.residentBytes { rss.append(r) } }
        let fedDuringStop = fed.count - fedAtStop
        reader.signal(SIGCONT)
        pause(1)
        fed.stop()
        #expect(waitUntil(timeout: .seconds(30)) { feeder.isFinished }, "the feeder thread ended")
        daemon.closeStdin()
        let status = daemon.wait()
        _ = reader.wait(timeout: .seconds(60))

        #expect(status == 0, "stderr: \(daemon.stderr)")
        // Capture kept reading its pipe while stdout was blocked: the feeder was not held up.
        #expect(fedDuringStop >= 500, "frames fed during the 10 s stop: \(fedDuringStop)")
        // Memory stays bounded while lines cannot be written.
        #expect((rss.max() ?? .max) < 96 << 20, "RSS samples: \(rss)")
        #expect(rss.count == 10 && rss[9] - rss[2] < 8 << 20, "RSS grew: \(rss)")
        // Every line that reached the reader is whole JSON.
        let data = [UInt8](FileManager.default.contents(atPath: out.path) ?? Data())
        let lines = data.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count > 100)
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0))) is [String: Any] })
        #expect(data.last == UInt8(ascii: "\n"))
        // The drops are counted, in the stats lines and the summary.
        let summary = daemon.stderr.split(separator: "\n").first { $0.contains("syncscan: summary:") } ?? ""
        let dropped = Int(summary.split(separator: " ").first { $0.hasPrefix("output_lines_dropped=") }?.split(separator: "=").last ?? "") ?? 0
        #expect(dropped > 0, "summary: \(summary)")
        #expect(daemon.stderr.contains("stats: frames="))
    }
}

final class FedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var _count = 0, _stopped = false
    var count: Int { lock.withLock { _count } }
    var stopped: Bool { lock.withLock { _stopped } }
    func add() { lock.withLock { _count += 1 } }
    func stop() { lock.withLock { _stopped = true } }
}
