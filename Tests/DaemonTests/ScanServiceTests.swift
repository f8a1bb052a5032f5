@testable import Daemon
import Foundation
import Logging
import Results
import SystemCalls
import ServiceLifecycle
import SystemPackage
import TestSupport
import Testing

/// A mono Y4M stream of `frames` 160x120 frames, each with the QR code `text`.
private func y4m(frames: Int, text: String) throws -> [UInt8] {
    var f = GreyFrame(width: 160, height: 120)
    f.draw(try ModuleMatrix.qrCode(text), centerX: 80, centerY: 60, moduleSize: 3)
    var out = Array("YUV4MPEG2 W160 H120 F10:1 Ip A1:1 Cmono\n".utf8)
    for _ in 0..<frames {
        out += Array("FRAME\n".utf8)
        for row in 0..<120 { out += f.bytes[(row * f.bytesPerLine)..<(row * f.bytesPerLine + 160)] }
    }
    return out
}

private func options(source: String, queueLines: Int = 64) -> PipelineOptions {
    var c = SyncscanConfiguration()
    c.source = source
    c.duplicateSuppression.mode = .off
    c.statsIntervalSeconds = 0
    c.scanningThreads = 1
    c.output.queueLines = queueLines
    return PipelineOptions(c)
}

/// A file the writer appends lines to, and its lines.
private final class OutputFile {
    let file: TemporaryFile
    let fd: FileDescriptor
    init() throws {
        file = try TemporaryFile(contents: [], suffix: ".jsonl")
        fd = try FileDescriptor.open(file.path, .writeOnly, options: .append)
    }
    var lines: [String] {
        String(decoding: FileManager.default.contents(atPath: file.path) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    }
    deinit { try? fd.close() }
}

@Suite(.serialized, .offThePool) struct ScanServiceTests {
    /// Left unset, the shutdown limit is 10 s under systemd (its stops are timed) and none
    /// otherwise; a value set is kept, 0 included.
    @Test func theShutdownLimitDefaultsToTenSecondsUnderSystemdOnly() throws {
        struct TimedStops: ServiceEvents {
            func streaming() {}
            func frameDelivered() {}
            func reloading() {}
            func reloaded() {}
            func stopping() {}
            var stopsAreTimed: Bool { true }
        }
        let out = try OutputFile()
        let writer = LineWriter(fileDescriptor: out.fd, name: "out", capacity: 8, overflow: .drop)
        defer { try? writer.finish(); withExtendedLifetime(out) {} }
        func limit(_ configured: Double?, _ events: any ServiceEvents) -> Double {
            var o = options(source: "y4m:-")
            o.configuration.shutdownTimeoutSeconds = configured
            return ScanService(options: o, writer: writer, logger: Logger(label: "test"), events: events) { _ in }.shutdownTimeoutSeconds
        }
        #expect(limit(nil, TimedStops()) == 10 && limit(nil, NoServiceEvents()) == 0)
        #expect(limit(3, TimedStops()) == 3 && limit(0, TimedStops()) == 0 && limit(2.5, NoServiceEvents()) == 2.5)
    }

    /// With `shutdown_timeout_seconds`, a shutdown whose last lines cannot be written (stdout a
    /// pipe nobody reads) ends at the limit with an error naming them, and the summary is written.
    @Test func aShutdownPastItsLimitEndsNamingTheLinesNotWritten() async throws {
        let file = try TemporaryFile(contents: try y4m(frames: 100, text: "never-read"), suffix: ".y4m")
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(fcntl(fds[1], 1031 /* F_SETPIPE_SZ, Linux */, 4096) >= 4096, "a pipe of one page: a few lines fill it")
        // Room in the queue for every line: the scan of the file ends, stdout's flush cannot.
        let writer = LineWriter(fileDescriptor: FileDescriptor(rawValue: fds[1]), name: "stdout", capacity: 1000, overflow: .wait)
        var limited = options(source: file.path, queueLines: 1000)
        // The limit runs from the scan's end while the group's other services stop before the
        // handlers flush: 5 s, so a loaded machine's slow stop of those (over 1 s seen in a full
        // parallel run) cannot pass it before the flush has reached stdout.
        limited.configuration.shutdownTimeoutSeconds = 5
        let summaries = LockedValue<[String]>([])
        let service = ScanService(options: limited, writer: writer, logger: Logger(label: "test")) { line in
            summaries.withLock { $0.append(line) }
        }
        let error = await #expect(throws: ShutdownTimeoutError.self) { try await service.runWithResultsHandlers() }
        #expect(error?.stage == .stdout && (error?.stdoutLinesLeft ?? 0) > 0, "\(String(describing: error))")
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("shutdown_timeout_seconds (5 s)") && text.contains("lines not written"), "\(text)")
        #expect(summaries.withLock { $0.count } == 1 && summaries.withLock { $0[0] }.contains("frames=100"), "\(summaries.withLock { $0 })")
        // Read the pipe out until the writer's thread has written its last line and ended
        // (`finish()`, on a thread of the test's own), so no write meets the descriptors closed:
        // a line still being written when the queue is empty would raise SIGPIPE in the tests.
        let finished = LockedValue(false)
        Thread { try? writer.finish(); finished.withLock { $0 = true } }.start()
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        #expect(waitUntil(every: .milliseconds(5)) {
            while read(fds[0], &buffer, buffer.count) > 0 {}
            return finished.withLock { $0 }
        })
    }

    /// A limit that passes after the scan has returned, while another service of the group is
    /// still stopping, names that stage, not the scan.
    @Test func aServiceSlowToStopAfterTheScanIsNamedNotTheScan() async throws {
        let file = try TemporaryFile(contents: try y4m(frames: 5, text: "slow to stop"), suffix: ".y4m")
        var limited = options(source: file.path)
        limited.configuration.shutdownTimeoutSeconds = 1
        let out = try OutputFile()
        let writer = LineWriter(fileDescriptor: out.fd, name: "out", capacity: 64, overflow: .wait)
        let service = ScanService(options: limited, writer: writer, logger: Logger(label: "test")) { _ in }
        let group = Daemon.serviceGroup(scan: service, between: [.init(service: StopsOnlyWhenCancelled())], logger: Logger(label: "test"))
        let error = await #expect(throws: ShutdownTimeoutError.self) { try await group.run() }
        #expect(error?.stage == .services, "\(String(describing: error))")
        #expect(error.map { "\($0)" }?.contains("other services") == true, "\(String(describing: error))")
        // The flush given up runs on: let it write its lines and end before the file's descriptor closes.
        try writer.finish()
        withExtendedLifetime(out) {}
    }

    /// `output.queue_lines` changed by a reload resizes the output queue.
    @Test func reloadingQueueLinesResizesTheOutputQueue() throws {
        let out = try OutputFile()
        let writer = LineWriter(fileDescriptor: out.fd, name: "out", capacity: 64, overflow: .drop)
        let service = ScanService(options: options(source: "y4m:-"), writer: writer, logger: Logger(label: "test")) { _ in }
        service.reload(options(source: "y4m:-", queueLines: 7))
        #expect(writer.capacity == 7)
        try writer.finish()
    }

    /// A SIGHUP that lands after a session's parts are made but before the session is published
    /// is not lost: that session does not run, and the reloaded source is opened instead.
    @Test func aReloadBeforeTheSessionIsPublishedIsHonoured() async throws {
        // The first source is a pipe that stays open with no frames: a session on it never ends by itself.
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        var writeEndOpen = true
        defer { close(fds[0]); if writeEndOpen { close(fds[1]) } }
        let header = Array("YUV4MPEG2 W160 H120 F10:1 Ip A1:1 Cmono\n".utf8)
        _ = header.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        let file = try TemporaryFile(contents: try y4m(frames: 3, text: "after-hup"), suffix: ".y4m")
        let out = try OutputFile()
        let writer = LineWriter(fileDescriptor: out.fd, name: "out", capacity: 64, overflow: .wait)
        let service = ScanService(options: options(source: "y4m:/proc/self/fd/\(fds[0])"), writer: writer,
                                  logger: Logger(label: "test")) { _ in }
        let reloaded = options(source: file.path)
        let hooked = LockedValue(false)
        service.sessionWillPublish = {
            if !hooked.withLock({ h in defer { h = true }; return h }) { service.reload(reloaded) }
        }
        let done = LockedValue(false)
        // On the suite's executor: a `Task {}` runs on Swift's pool, where it does not start while
        // blocked threads hold the pool. The wait ends at the event; its deadline only ends a lost
        // reload's endless session.
        let task = Task(executorPreference: ThreadPerBlockingJobExecutor.shared) {
            defer { done.withLock { $0 = true } }
            try await service.runWithResultsHandlers()
        }
        waitUntil(every: .milliseconds(20)) { done.withLock { $0 } }
        let lost = !done.withLock { $0 }
        #expect(!lost, "the reload was lost: the first session still runs")
        if lost { close(fds[1]); writeEndOpen = false }   // end the first session's stream so the test ends
        try await task.value
        let codes = out.lines.filter { $0.contains("\"type\":\"code\"") }
        #expect(codes.count == 3 && codes.allSatisfy { $0.contains("after-hup") }, "lines: \(out.lines)")
    }

    /// A reload whose source opens but fails before streaming (a malformed header) returns to the
    /// previous configuration instead of ending the service.
    @Test func aReloadedSourceThatFailsToStartFallsBackToThePreviousOne() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        var writeEndOpen = true
        defer { close(fds[0]); if writeEndOpen { close(fds[1]) } }
        func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } }
        send(Array("YUV4MPEG2 W160 H120 F10:1 Ip A1:1 Cmono\n".utf8))
        let broken = try TemporaryFile(contents: Array("not a y4m header\n".utf8), suffix: ".y4m")
        let out = try OutputFile()
        let writer = LineWriter(fileDescriptor: out.fd, name: "out", capacity: 64, overflow: .wait)
        let log = LogRecorder()
        let logger = log.logger
        let service = ScanService(options: options(source: "y4m:/proc/self/fd/\(fds[0])"), writer: writer, logger: logger) { _ in }
        let task = Task(executorPreference: ThreadPerBlockingJobExecutor.shared) { try await service.runWithResultsHandlers() }
        #expect(waitUntil(every: .milliseconds(20)) { log.contains("y4m input opened") })
        service.reload(options(source: broken.path))
        // The event; the deadline only ends a lost reload's endless session.
        waitUntil(every: .milliseconds(20)) { log.contains("returning to the previous configuration") }
        #expect(log.contains("returning to the previous configuration"), "log: \(log.all.map(\.message))")
        // The previous source is opened again: it reads a new stream from the pipe.
        send(try y4m(frames: 3, text: "fallback"))
        close(fds[1]); writeEndOpen = false
        await #expect(throws: Never.self) { try await task.value }
        let codes = out.lines.filter { $0.contains("\"type\":\"code\"") }
        // A live pipe: frames that arrive together may be dropped as late; at least one is scanned.
        #expect(!codes.isEmpty && codes.allSatisfy { $0.contains("fallback") }, "lines: \(out.lines) log: \(log.all.map(\.message))")
    }
}

/// A service of the group that ignores its graceful shutdown and ends only when cancelled (the
/// group's shutdown limit passed).
private struct StopsOnlyWhenCancelled: Service {
    func run() async throws {
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
    }
}
