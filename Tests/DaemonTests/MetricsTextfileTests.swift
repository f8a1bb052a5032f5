@testable import Daemon
import Capture
import Foundation
import Media
import SystemCalls
import SystemPackage
import TestSupport
import Testing

/// A directory under the temporary directory, removed with what it holds when released.
private final class TemporaryDirectory {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-metrics-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    var entries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A tmpfs mounted on a new directory (the tests run as root), unmounted when released.
private final class TmpfsMount {
    let directory: TemporaryDirectory
    init(options: String) throws {
        directory = try TemporaryDirectory()
        let mount = try ExternalTool.run("mount", ["-t", "tmpfs", "-o", options, "tmpfs", directory.path])
        guard mount.status == 0 else { throw FixtureError.toolFailed("a tmpfs for the write-failure test (needs root): \(mount.describe())") }
    }
    deinit { _ = try? ExternalTool.run("umount", [directory.path]) }
}

private func counters(scanned: Int, late: Int, qr: Int, ean: Int, emitted: Int, dropped: Int, reopens: Int, streaming: Bool) -> ServiceCounters {
    var c = ServiceCounters()
    c.statistics.frames = scanned + late
    c.statistics.scanned = scanned
    c.statistics.dropped = [.lateData: late]
    c.statistics.codes = qr + ean
    c.statistics.codesBySymbology = [.qrcode: qr, .ean13: ean]
    (c.codesEmitted, c.outputLinesDropped, c.deviceReopens, c.streaming) = (emitted, dropped, reopens, streaming)
    return c
}

@Suite(.serialized, .offThePool) struct MetricsTextfileTests {
    /// The rendered registry parses, names every metric with its `source` label, and its counters
    /// equal the latest snapshot's counts less the baseline, however many snapshots came before.
    @Test func countersFollowTheSnapshotsAndTheFileParses() throws {
        let metrics = ServiceMetrics(source: "v4l2:/dev/video0", baseline: counters(scanned: 5, late: 1, qr: 2, ean: 0, emitted: 1, dropped: 0, reopens: 1, streaming: false))
        metrics.update(counters(scanned: 10, late: 2, qr: 4, ean: 1, emitted: 3, dropped: 1, reopens: 1, streaming: true))
        metrics.update(counters(scanned: 25, late: 4, qr: 9, ean: 3, emitted: 6, dropped: 2, reopens: 3, streaming: true), textfileWriteFailures: 2)
        for ms in [1, 3, 7, 40] { metrics.recordScanDuration(.milliseconds(ms)) }
        let file = try TemporaryFile(contents: metrics.render(), suffix: ".prom")
        let text = try PrometheusText(path: file.path)
        let source = ["source": "v4l2:/dev/video0"]
        #expect(text.value("syncscan_frames_total", ["outcome": "scanned"].merging(source) { a, _ in a }) == 20)
        #expect(text.value("syncscan_frames_total", ["outcome": "lateData"]) == 3)
        #expect(text.value("syncscan_frames_total", ["outcome": "outOfBuffers"]) == 0)
        #expect(text.value("syncscan_frames_total", ["outcome": "discontinuity"]) == 0)
        #expect(text.value("syncscan_frames_total", ["outcome": "undecodable"]) == 0)
        #expect(text.value("syncscan_codes_total", ["symbology": "qrcode"]) == 7)
        #expect(text.value("syncscan_codes_total", ["symbology": "ean13"]) == 3)
        #expect(text.value("syncscan_codes_emitted_total") == 5)
        #expect(text.value("syncscan_output_lines_dropped_total") == 2)
        #expect(text.value("syncscan_device_reopens_total") == 2)
        #expect(text.value("syncscan_metrics_textfile_write_failures_total") == 2)
        #expect(text.value("syncscan_up") == 1)
        #expect(text.value("syncscan_scan_duration_seconds_count") == 4)
        #expect(text.value("syncscan_scan_duration_seconds_bucket", ["le": "0.005"]) == 2)
        #expect(abs((text.value("syncscan_scan_duration_seconds_sum") ?? 0) - 0.051) < 1e-9)
        #expect(text.types["syncscan_frames"] == "counter" && text.types["syncscan_up"] == "gauge"
                && text.types["syncscan_scan_duration_seconds"] == "histogram", "\(text.types)")
        #expect(text.samples.allSatisfy { $0.labels["source"] == "v4l2:/dev/video0" })
        metrics.update(counters(scanned: 25, late: 4, qr: 9, ean: 3, emitted: 6, dropped: 2, reopens: 3, streaming: false))
        let stopped = try TemporaryFile(contents: metrics.render(), suffix: ".prom")
        #expect(try PrometheusText(path: stopped.path).value("syncscan_up") == 0)
    }

    /// A reader polling the file while it is replaced again and again only ever sees one whole
    /// content or another; no temporary file is left behind and the file is 0644 whatever the umask.
    @Test func replacementIsAtomic() async throws {
        let directory = try TemporaryDirectory()
        let path = FilePath(directory.path).appending("syncscan.prom")
        // Two contents of 256 KiB, each in several write(2)-sized pieces, told apart by every byte.
        let contents = [[UInt8](repeating: UInt8(ascii: "a"), count: 262_143) + [10], [UInt8](repeating: UInt8(ascii: "b"), count: 131_071) + [10]]
        let old = umask(0o077)
        defer { umask(old) }
        guard case .success = MetricsTextfileWriter.replace(path, with: contents[0]) else { Issue.record("first write failed"); return }
        // The reader (its own thread) reads until the writer is done; the writer replaces the file
        // at least 400 times and until the reader has read 100 times meanwhile, however busy the
        // machine (`hangTimeout` guards against a hang). The reader is a child task of the test
        // (its executor, not Swift's pool) running on a thread of its own.
        let progress = LockedValue((reads: 0, writerDone: false))
        async let tornReads = runOnThread(name: "prom-reader") { () -> Int in
            var torn = 0
            while !progress.withLock({ $0.writerDone }) {
                guard let data = FileManager.default.contents(atPath: path.string) else { torn += 1; continue }
                if !contents.contains([UInt8](data)) { torn += 1 }
                progress.withLock { $0.reads += 1 }
            }
            return torn
        }
        var writes = 0
        let guardDeadline = ContinuousClock.now + hangTimeout
        while (writes < 400 || progress.withLock({ $0.reads }) < 100) && ContinuousClock.now < guardDeadline {
            guard case .success = MetricsTextfileWriter.replace(path, with: contents[writes % 2]) else { Issue.record("write \(writes) failed"); break }
            writes += 1
        }
        progress.withLock { $0.writerDone = true }
        let torn = await tornReads
        let reads = progress.withLock { $0.reads }
        #expect(reads >= 100 && torn == 0, "\(reads) reads during \(writes) replacements, \(torn) missing or partial")
        #expect(directory.entries == ["syncscan.prom"], "left behind: \(directory.entries)")
        let mode = try FileManager.default.attributesOfItem(atPath: path.string)[.posixPermissions] as? Int
        #expect(mode == 0o644)
    }

    /// Each kind of failure (missing directory, read-only file system, full disk) is counted every
    /// time, logged once naming the path and what to do, and a later write succeeds again.
    @Test func failedWritesAreCountedAndLoggedOncePerKind() throws {
        let log = LogRecorder()
        let writer = MetricsTextfileWriter(logger: log.logger)
        defer { writer.finish() }
        let content = Array("syncscan_up{source=\"y4m:-\"} 1\n".utf8)
        func submitAndWait(_ path: FilePath, expectingFailures expected: Int) {
            writer.submit(content, to: path)
            #expect(waitUntil { writer.failures >= expected }, "failures counted: \(writer.failures) of \(expected)")
        }
        func settle() { pause(.milliseconds(200)) }

        let parent = try TemporaryDirectory()
        let missing = FilePath(parent.path).appending("absent/syncscan.prom")
        submitAndWait(missing, expectingFailures: 1)
        submitAndWait(missing, expectingFailures: 2)
        settle()
        #expect(writer.failures == 2)
        #expect(log.messages(at: .error).filter { $0.contains(missing.string) && $0.contains("does not exist") && $0.contains("ENOENT") }.count == 1,
                "\(log.messages(at: .error))")

        let readOnly = try TmpfsMount(options: "ro,size=64k")
        let readOnlyPath = FilePath(readOnly.directory.path).appending("syncscan.prom")
        submitAndWait(readOnlyPath, expectingFailures: 3)
        submitAndWait(readOnlyPath, expectingFailures: 4)
        settle()
        #expect(log.messages(at: .error).filter { $0.contains(readOnlyPath.string) && $0.contains("ReadWritePaths=") && $0.contains("Read-only file system") }.count == 1,
                "\(log.messages(at: .error))")

        let full = try TmpfsMount(options: "size=16k")
        #expect(FileManager.default.createFile(atPath: full.directory.path + "/filler", contents: Data(count: 16_384)))
        let fullPath = FilePath(full.directory.path).appending("syncscan.prom")
        submitAndWait(fullPath, expectingFailures: 5)
        submitAndWait(fullPath, expectingFailures: 6)
        settle()
        #expect(writer.failures == 6)
        #expect(log.messages(at: .error).filter { $0.contains(fullPath.string) && $0.contains("is full") && $0.contains("ENOSPC") }.count == 1,
                "\(log.messages(at: .error))")
        #expect(full.directory.entries == ["filler"], "a failed write leaves no temporary file: \(full.directory.entries)")
        #expect(log.messages(at: .error).count == 3)

        // Fixed (the directory made): the next write lands, and that is logged too.
        try FileManager.default.createDirectory(atPath: missing.removingLastComponent().string, withIntermediateDirectories: true)
        writer.submit(content, to: missing)
        #expect(waitUntil { log.contains("written again") })
        #expect(FileManager.default.contents(atPath: missing.string).map([UInt8].init) == content)
        #expect(writer.failures == 6)
    }
}
