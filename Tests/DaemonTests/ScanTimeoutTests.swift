import Capture
import ConfigurationKeys
@testable import Daemon
import Foundation
import Logging
import Results
import SystemCalls
import SystemPackage
import TestSupport
import Testing

/// A mono Y4M file of `frames` 160x120 frames, frame `i` holding the QR code `frame-i`.
private func y4mFile(frames: Int) throws -> TemporaryFile {
    var out = Array("YUV4MPEG2 W160 H120 F10:1 Ip A1:1 Cmono\n".utf8)
    for i in 0..<frames {
        var f = GreyFrame(width: 160, height: 120)
        f.draw(try ModuleMatrix.qrCode("frame-\(i)"), centerX: 80, centerY: 60, moduleSize: 3)
        out += Array("FRAME\n".utf8)
        for row in 0..<120 { out += f.bytes[(row * f.bytesPerLine)..<(row * f.bytesPerLine + 160)] }
    }
    return try TemporaryFile(contents: out, suffix: ".y4m")
}

private func options(source: String, scanTimeout: Double) -> PipelineOptions {
    var c = SyncscanConfiguration()
    c.source = source
    c.duplicateSuppression.mode = .off
    c.statsIntervalSeconds = 0
    c.scanningThreads = 1
    c.scanTimeoutSeconds = scanTimeout
    return PipelineOptions(c)
}

/// Where the writer's lines go, and its code lines.
private final class Output {
    let file: TemporaryFile
    let fd: FileDescriptor
    init() throws {
        file = try TemporaryFile(contents: [], suffix: ".jsonl")
        fd = try FileDescriptor.open(file.path, .writeOnly, options: .append)
    }
    var codeLines: [String] {
        String(decoding: FileManager.default.contents(atPath: file.path) ?? Data(), as: UTF8.self)
            .split(separator: "\n").map(String.init).filter { $0.contains("\"type\":\"code\"") }
    }
    deinit { try? fd.close() }
}

/// Holds the scan of one frame until `open()`: a scan that does not return.
private final class Gate: Sendable {
    let seq: UInt64
    private let semaphore = DispatchSemaphore(value: 0)
    init(seq: UInt64) { self.seq = seq }
    func hold(_ seq: UInt64) { if seq == self.seq { semaphore.wait(); semaphore.signal() } }
    func open() { semaphore.signal() }
}

/// Whether `task` has ended, without waiting for it.
private final class Finished: Sendable {
    private let done = LockedValue(false)
    func set() { done.withLock { $0 = true } }
    var value: Bool { done.withLock { $0 } }
}

@Suite(.serialized, .offThePool) struct ScanTimeoutTests {
    /// Under a systemd watchdog a scan past `scan_timeout_seconds` is logged once with its seq
    /// and pass, counted, shown in STATUS=, and the pings stop; once it returns the run goes on.
    @Test func aBlockedScanIsNoticedAndStopsTheWatchdog() async throws {
        let listener = try NotifySocketListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket, "WATCHDOG_USEC": "1000000"],
                                       logger: quietLogger)
        let file = try y4mFile(frames: 6)
        let out = try Output()
        let writer = LineWriter(fileDescriptor: out.fd, name: "out", capacity: 64, overflow: .wait)
        let log = LogRecorder()
        let service = ScanService(options: options(source: file.path, scanTimeout: 1), writer: writer, logger: log.logger,
                                  events: SystemdServiceEvents(notifier: notifier)) { _ in }
        let gate = Gate(seq: 3)
        service.passWillRun = { seq, _ in gate.hold(seq) }
        let finished = Finished()
        let task = Task(executorPreference: ThreadPerBlockingJobExecutor.shared) { defer { finished.set() }; try await service.runWithResultsHandlers() }
        var messages: [String] = []
        let noticed = waitUntil {
            messages += listener.receivedMessages()
            // STATUS= and the stuck-scan log come from two services of the same period: wait for both.
            return messages.contains { $0.hasPrefix("STATUS=scan stuck: frame 3 for ") }
                && log.all.contains { $0.message.contains("a scan did not return") && $0.metadata["seq"] == "3" }
        }
        #expect(noticed, "messages: \(messages) log: \(log.all.map(\.line))")
        // Frame 3's scan, held, is logged once. (On a machine loaded far enough, another scan may
        // pass the 1 s too: each stuck scan is logged once and counted once.)
        let logged = log.all.filter { $0.message.contains("a scan did not return within scan_timeout_seconds") }
        let held = logged.filter { $0.metadata["seq"] == "3" }
        #expect(held.count == 1 && held.first?.level == .error && held.first?.metadata["pass"] == "zxing-fast",
                "log: \(log.all.map(\.line))")
        let stuck = service.counters().scansStuck
        #expect(stuck >= 1 && stuck == logged.count)
        #expect(service.statsLine().contains(" scans_stuck=\(stuck)"))
        let metrics = String(decoding: service.metricsExposition(), as: UTF8.self)
        #expect(metrics.contains("syncscan_scans_stuck_total{source=\"y4m:\(file.path)\"} \(stuck)"), "\(metrics)")
        #expect(service.statusLine().hasPrefix("scan stuck: frame 3 for "))
        // The pings stay off while it is stuck (they came every 0.25 s while frames flowed).
        _ = listener.receivedMessages()
        pause(.seconds(2))
        let whileStuck = listener.receivedMessages()
        #expect(!whileStuck.contains("WATCHDOG=1"), "\(whileStuck)")
        #expect(!finished.value, "the run ended: a supervised run waits for the stuck scan")
        gate.open()
        try await task.value
        #expect(out.codeLines.count == 6, "\(out.codeLines)")
        // Frame 3 was not counted again when it returned.
        let stuckAtEnd = log.all.filter { $0.message.contains("a scan did not return") }
        #expect(stuckAtEnd.filter { $0.metadata["seq"] == "3" }.count == 1)
        #expect(service.counters().scansStuck == stuckAtEnd.count)
    }

    /// Without a watchdog a stuck scan ends the run with `ScanStuckError` (the exit message), and
    /// every code line of the frames before it is written. (The binary exits 1 on that error
    /// like on any other; the scan is made to block through the service's test seam.)
    @Test func withoutAWatchdogAStuckScanEndsTheRunAfterWritingEverything() async throws {
        let file = try y4mFile(frames: 8)
        let out = try Output()
        let writer = LineWriter(fileDescriptor: out.fd, name: "out", capacity: 64, overflow: .wait)
        let log = LogRecorder()
        let summaries = LockedValue<[String]>([])
        let service = ScanService(options: options(source: file.path, scanTimeout: 1), writer: writer, logger: log.logger) { line in
            summaries.withLock { $0.append(line) }
        }
        let gate = Gate(seq: 3)
        defer { gate.open() }
        service.passWillRun = { seq, _ in gate.hold(seq) }
        let finished = Finished()
        let task = Task(executorPreference: ThreadPerBlockingJobExecutor.shared) { defer { finished.set() }; try await service.runWithResultsHandlers() }
        let ended = waitUntil { finished.value }
        #expect(ended, "the run did not end; log: \(log.all.map(\.line))")
        guard ended else { gate.open(); _ = try? await task.value; return }
        do {
            try await task.value
            Issue.record("the run ended without an error")
        } catch let error as ScanStuckError {
            #expect(error.sequenceNumber == 3)
            #expect("\(error)" == "a scan did not return within scan_timeout_seconds (1 s): frame 3; exiting so a supervisor can restart")
        }
        let texts = out.codeLines
        #expect(texts.count == 3 && (0..<3).allSatisfy { i in texts.contains { $0.contains("\"frame-\(i)\"") } }, "\(texts)")
        #expect(service.counters().scansStuck == 1)
        #expect(summaries.withLock { $0.count } == 1)
    }

    /// A scan slower than usual that returns within `scan_timeout_seconds` is not counted, and
    /// without a watchdog the run goes on to the end of the file.
    @Test func aSlowScanThatReturnsInTimeIsNotCounted() async throws {
        let file = try y4mFile(frames: 4)
        let out = try Output()
        let writer = LineWriter(fileDescriptor: out.fd, name: "out", capacity: 64, overflow: .wait)
        let log = LogRecorder()
        let service = ScanService(options: options(source: file.path, scanTimeout: 10), writer: writer, logger: log.logger) { _ in }
        // 2.5 s: the status loop (every second) sees it under way at least once.
        service.passWillRun = { seq, _ in if seq == 1 { Thread.sleep(forTimeInterval: 2.5) } }
        try await service.runWithResultsHandlers()
        #expect(out.codeLines.count == 4, "\(out.codeLines)")
        #expect(service.counters().scansStuck == 0)
        #expect(!log.contains("a scan did not return"))
    }
}

@Suite(.offThePool) struct ScanTimeoutConfigurationTests {
    /// `scan_timeout_seconds`: 10 by default, from the file or `SYNCSCAN_SCAN_TIMEOUT_SECONDS`, 1–3600.
    @Test func scanTimeoutSecondsIsReadAndChecked() async throws {
        #expect(try await SyncscanConfiguration.load(file: nil, environment: [:], overrides: [:]).scanTimeoutSeconds == 10)
        let file = try TemporaryFile(contents: Array("scan_timeout_seconds: 30\n".utf8), suffix: ".yaml")
        #expect(try await SyncscanConfiguration.load(file: file.path, environment: [:], overrides: [:]).scanTimeoutSeconds == 30)
        let environment = ["SYNCSCAN_SCAN_TIMEOUT_SECONDS": "2.5"]
        #expect(try await SyncscanConfiguration.load(file: nil, environment: environment, overrides: [:]).scanTimeoutSeconds == 2.5)
        let bad = try TemporaryFile(contents: Array("scan_timeout_seconds: 0\n".utf8), suffix: ".yaml")
        let lines = await expectConfigurationError(file: bad.path)
        #expect(lines.contains { $0.contains("scan_timeout_seconds: 0 is out of range") }, "\(lines)")
    }
}

/// The time a stopped or suspended process did not run is left out of a scan's time.
@Suite struct ProcessPausesTests {
    let t0 = ContinuousClock.now

    @Test func ticksOnTimeRecordNoPause() {
        var pauses = ProcessPauses(interval: .seconds(1))
        for i in 0...10 { pauses.tick(at: t0 + .milliseconds(1_000 * i + (i % 3) * 300)) }
        #expect(pauses.recorded.isEmpty)
        #expect(pauses.elapsed(since: t0, now: t0 + .seconds(10)) == .seconds(10))
    }

    @Test func aLateWakeIsAPauseLeftOutOfTheScansThatSpanIt() {
        var pauses = ProcessPauses(interval: .seconds(1))
        pauses.tick(at: t0)
        pauses.tick(at: t0 + .seconds(1))
        pauses.tick(at: t0 + .seconds(31))              // stopped for about 29 s
        #expect(pauses.recorded.count == 1)
        // A scan from t0 + 0.5 s: 31.5 s by the clock, 2.5 s of it running.
        #expect(pauses.elapsed(since: t0 + .milliseconds(500), now: t0 + .seconds(32)) == .milliseconds(2_500))
        // A scan that started after the pause counts in full.
        #expect(pauses.elapsed(since: t0 + .seconds(31), now: t0 + .seconds(43)) == .seconds(12))
        // A scan that started within the pause counts from the pause's end.
        #expect(pauses.elapsed(since: t0 + .seconds(10), now: t0 + .seconds(33)) == .seconds(2))
    }

    @Test func onlyTheNewestPausesAreKept() {
        var pauses = ProcessPauses(interval: .seconds(1), capacity: 2)
        var t = t0
        pauses.tick(at: t)
        for _ in 0..<3 { t = t + .seconds(10); pauses.tick(at: t) }   // three pauses of 9 s
        #expect(pauses.recorded.count == 2)
        #expect(pauses.elapsed(since: t0, now: t) == .seconds(30 - 18))
    }
}
