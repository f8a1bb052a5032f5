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
    /// READY=1 once the source streams, WATCHDOG=1 while frames flow, none while the source is
    /// stalled, STOPPING=1 after SIGTERM, exit 0, and every line of every scanned frame written.
    /// (How often the pings come, frame by frame, is `SystemdServiceEventsTests`'.)
    @Test func notifiesSystemdAndPingsTheWatchdogOnlyWhileFramesFlow() throws {
        let listener = try NotifySocketListener()
        let stream = Y4MStream(width: 160, height: 120)
        let frames = try qrFrames(4, prefix: "notify").map(stream.frame)
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--emit-frames", "--duplicate-window", "0"],
                                       environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "1000000"])
        daemon.feed(stream.header)
        let pings = { listener.times(of: "WATCHDOG=1").count }
        // Frames flow until 40 were delivered and the watchdog was pinged 4 times (one ping per
        // 250 ms of delivered frames at most): events, however slowly a loaded machine gets there.
        #expect(daemon.feedFrames(frames) { daemon.records("frame").count >= 40 && pings() >= 4 },
                "frames delivered: \(daemon.records("frame").count), pings: \(pings())")
        let fed = daemon.framesFed
        #expect(waitUntil(every: .milliseconds(20)) { daemon.records("frame").count == fed }, "every fed frame delivered")
        let ready = listener.times(of: "READY=1")
        // The source stalls (the pipe stays open, no frames) for longer than the watchdog
        // interval. The marker splits the datagrams at the stall's start, by the order they were
        // sent: at most the last frame's own ping (sent just after its line) may follow it.
        try listener.mark("test-marker: stall")
        pause(2.5)
        daemon.send(SIGTERM)
        let status = daemon.wait()

        #expect(status == 0, "stderr: \(daemon.stderr)")
        #expect(ready.count == 1, "READY=1 before the frames flowed: \(ready.count)")
        let afterStall = listener.messages(after: "test-marker: stall")
        let stopIndex = afterStall.firstIndex { $0.split(separator: "\n").contains("STOPPING=1") }
        #expect(stopIndex != nil && listener.times(of: "STOPPING=1").count == 1, "STOPPING=1 once, after SIGTERM: \(afterStall)")
        let stalledPings = afterStall[..<(stopIndex ?? afterStall.endIndex)].filter { $0.split(separator: "\n").contains("WATCHDOG=1") }
        #expect(stalledPings.count <= 1, "pings during the 2.5 s stall: \(stalledPings.count)")
        // No line lost: the ledger is complete and every scanned frame's codes were written.
        let lines = daemon.stdoutLines
        #expect(lines.allSatisfy { $0 != nil })
        let records = daemon.records("frame")
        let codes = daemon.records("code")
        #expect(records.map { $0["seq"] as? Int } == Array(0..<fed))
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
        daemon.feedFrames([frame], count: 60)                     // at 20 fps
        // STATUS= is refreshed once a second when it changed: wait for the one that counts all 60.
        func statuses() -> [Substring] { listener.messages.flatMap { $0.text.split(separator: "\n") }.filter { $0.hasPrefix("STATUS=") } }
        #expect(waitUntil(every: .milliseconds(50)) { statuses().contains { $0.hasPrefix("STATUS=scanning y4m:-: frames=60 ") } },
                "STATUS lines: \(statuses())")
        daemon.send(SIGTERM)
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        let statuses = statuses()
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
        func seq(_ o: [String: Any]) -> Int { (o["frame"] as? [String: Any])?["seq"] as? Int ?? -1 }
        func read(_ symbology: String, since first: Int) -> Bool {
            daemon.records("code").contains { $0["symbology"] as? String == symbology && seq($0) >= first }
        }
        /// Every fed frame delivered: none is left to be scanned under the configuration to come.
        func delivered() -> Bool { waitUntil(every: .milliseconds(20)) { daemon.records("frame").count == daemon.framesFed } }
        #expect(daemon.feedFrames(frames) { read("qrcode", since: 0) }, "a QR code read before the reload")
        #expect(delivered())
        let seqBeforeReload = daemon.framesFed
        try Array("symbologies: [qrcode, code128]\nduplicate_suppression:\n  enabled: false\nlog_level: debug\n".utf8).withUnsafeBytes {
            try Data($0).write(to: URL(fileURLWithPath: config.path))
        }
        daemon.send(SIGHUP)
        #expect(daemon.feedFrames(frames) { daemon.stderr.contains("reloaded configuration applied in place") }, "the reload applied")
        #expect(daemon.feedFrames(frames) { read("code128", since: seqBeforeReload) }, "code128 read after the reload")
        #expect(delivered())
        let seqBeforeBroken = daemon.framesFed
        try Data("symbologies: [qrcode, nope]\n".utf8).write(to: URL(fileURLWithPath: config.path))
        daemon.send(SIGHUP)
        #expect(daemon.feedFrames(frames) { daemon.stderr.contains("configuration reload failed") }, "the broken reload refused")
        let seqAfterBroken = daemon.framesFed
        // After the broken reload both symbologies are still scanned.
        #expect(daemon.feedFrames(frames) { read("code128", since: seqAfterBroken) && read("qrcode", since: seqAfterBroken) },
                "both symbologies read after the broken reload")
        daemon.closeStdin()
        let status = daemon.wait()

        #expect(status == 0, "stderr: \(daemon.stderr)")
        let barcodes = daemon.records("code").filter { $0["symbology"] as? String == "code128" }.map(seq)
        #expect(!barcodes.isEmpty, "code128 is reported after the reload")
        #expect(barcodes.allSatisfy { $0 >= seqBeforeReload }, "no code128 before the reload: \(barcodes)")
        #expect(seqBeforeBroken > seqBeforeReload)
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
        #expect(daemon.feedFrames([before]) { !daemon.records("code").isEmpty }, "a code read from the pipe")
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
        func seq(_ o: [String: Any]) -> Int { (o["frame"] as? [String: Any])?["seq"] as? Int ?? -1 }
        #expect(daemon.feedFrames([frame]) { !daemon.records("code").isEmpty }, "a code read before the reloads")
        let missing = "/nonexistent-\(UUID().uuidString.prefix(8))/in.y4m"
        // Each reload is refused (its message names what was wrong), and frames fed after it are
        // still scanned: both events, waited for while frames are fed.
        for (broken, named) in [("source: foo\n", "\"foo\""), ("source: y4m:-\ndevice:\n  buffers: 1\n", "device.buffers"),
                                ("source: \(missing)\n", missing)] {
            try Data((broken + "duplicate_suppression:\n  enabled: false\n").utf8).write(to: URL(fileURLWithPath: config.path))
            let mark = daemon.framesFed
            daemon.send(SIGHUP)
            #expect(daemon.feedFrames([frame]) { daemon.stderr.contains(named) && daemon.records("code").contains { seq($0) >= mark + 8 } },
                    "after the reload naming \(named) at seq \(mark): codes \(daemon.records("code").map(seq).suffix(5))")
        }
        daemon.send(SIGTERM)
        let status = daemon.wait()

        #expect(status == 0, "stderr: \(daemon.stderr)")
        let codes = daemon.records("code")
        #expect(codes.allSatisfy { $0["source"] as? String == "y4m:-" })
        let stderr = daemon.stderr
        #expect(stderr.contains("\"foo\"") && stderr.contains("device.buffers"), "stderr: \(stderr)")
        #expect(stderr.contains(missing) && stderr.contains("keeping"), "stderr: \(stderr)")
    }

    /// A stopped stdout reader does not stall capture; memory stays bounded; after SIGCONT every
    /// line written is whole JSON and the dropped lines are counted.
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
        func readerBytes() -> Int { (try? FileManager.default.attributesOfItem(atPath: out.path)[.size] as? Int) ?? 0 }
        #expect(waitUntil(every: .milliseconds(20)) { daemon.feed(frames[0]) && readerBytes() > 0 }, "lines reach the reader")
        reader.signal(SIGSTOP)

        // Frames at ~200 fps from a thread of its own: had capture stalled behind stdout, the
        // daemon would stop reading its pipe and the feeder would block in write(2).
        let fed = FedCounter()
        let feeder = Thread {
            var i = 0
            while !fed.stopped {
                guard daemon.feed(frames[i % frames.count]) else { break }
                i += 1; fed.add()
                pause(.milliseconds(5))
            }
        }
        feeder.start()
        // 2,000 frames' lines are about 1 MB: far more than the pipe (64 KiB) and the queue (64
        // lines) hold. RSS is sampled at fed-frame counts, not at times.
        var rss: [Int] = []
        for count in stride(from: 200, through: 2000, by: 200) {
            #expect(waitUntil(every: .milliseconds(20)) { fed.count >= count }, "frames fed while stdout is stopped: \(fed.count) of \(count)")
            if let r = daemon.residentBytes { rss.append(r) }
        }
        // The stats line (once a second) is written meanwhile.
        #expect(daemon.waitForStderr("stats: frames="), "a stats line")
        let bytesWhileStopped = readerBytes()
        reader.signal(SIGCONT)
        fed.stop()
        #expect(waitUntil { feeder.isFinished }, "the feeder thread ended")
        daemon.closeStdin()
        let status = daemon.wait()
        _ = reader.wait(timeout: hangTimeout)

        #expect(status == 0, "stderr: \(daemon.stderr)")
        // Memory stays bounded while lines cannot be written. A sanitizer's shadow memory is RSS by
        // design (scripts/sanitize.sh names the one a run uses): there only the growth is bounded.
        if ProcessInfo.processInfo.environment["UNIT_TEST_SANITIZER"] == nil {
            #expect((rss.max() ?? .max) < 96 << 20, "RSS samples: \(rss)")
        }
        #expect(rss.count == 10 && rss[9] - rss[2] < 8 << 20, "RSS grew: \(rss)")
        // Every line that reached the reader is whole JSON, and more came after SIGCONT.
        let data = [UInt8](FileManager.default.contents(atPath: out.path) ?? Data())
        let lines = data.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count > 100 && data.count > bytesWhileStopped)
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0))) is [String: Any] })
        #expect(data.last == UInt8(ascii: "\n"))
        // The drops are counted, in the summary.
        let summary = daemon.stderr.split(separator: "\n").first { $0.contains("syncscan: summary:") } ?? ""
        let dropped = Int(summary.split(separator: " ").first { $0.hasPrefix("output_lines_dropped=") }?.split(separator: "=").last ?? "") ?? 0
        #expect(dropped > 0, "summary: \(summary)")
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
