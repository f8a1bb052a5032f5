import ConfigurationKeys
@testable import Daemon
import Foundation
import Logging
import Results
import SystemPackage
import TestSupport
import Testing

@Suite(.serialized, .offThePool) struct SnapshotServiceTests {
    /// A full disk (ENOSPC from every write): the run ends normally at the end of the file, every
    /// code line goes out, the failure is logged once with the path, and the summary counts it.
    @Test func aFullDiskNeverStopsTheLinesAndIsCountedInTheSummary() async throws {
        let video = try TemporaryFile.qrClip("full disk", frames: 12)
        var configuration = SyncscanConfiguration()
        configuration.source = video.path
        configuration.duplicateSuppression.mode = .off
        configuration.statsIntervalSeconds = 0
        configuration.snapshots = SnapshotSettings(directory: "/var/lib/syncscan/full")
        let directory = InMemorySnapshotDirectory(path: "/var/lib/syncscan/full")
        directory.writeFailure = .noSpace
        let log = LogRecorder()
        let run = try await ServiceRun(configuration, logger: log.logger, snapshotDirectory: directory)
        let (lines, summary) = (run.lines, run.summary)
        #expect(lines.count == 12 && lines.allSatisfy { $0.contains("\"text\":\"full disk\"") })
        let logged = log.lines(containing: "ENOSPC")
        #expect(logged.count == 1 && logged.first?.contains("/var/lib/syncscan/full/") == true, "\(log.all.map(\.line))")
        // The first snapshots fail; once one has, the others are trials named in no line (skipped).
        let count = { (name: String) in Int(summary.firstMatch(of: try! Regex("\(name)=(\\d+)"))?.output[1].substring ?? "") ?? -1 }
        #expect(summary.contains("codes_emitted=12") && summary.contains("snapshots_written=0"), "\(summary)")
        #expect(count("snapshots_failed") >= 1 && count("snapshots_failed") + count("snapshots_skipped") == 12, "\(summary)")
        #expect(directory.writes == 12)
    }

    @Test func aReloadThatChangesSnapshotSettingsSaysARestartAppliesThem() throws {
        var configuration = SyncscanConfiguration()
        configuration.source = "y4m:-"
        let out = try TemporaryFile(contents: [], suffix: ".jsonl")
        let fd = try FileDescriptor.open(out.path, .writeOnly, options: .append)
        defer { try? fd.close() }
        let writer = LineWriter(fileDescriptor: fd, name: "out", capacity: 8, overflow: .drop)
        let log = LogRecorder()
        let service = ScanService(options: PipelineOptions(configuration), writer: writer, logger: log.logger) { _ in }
        service.reload(PipelineOptions(configuration))
        #expect(log.lines(containing: "snapshots.* changed").isEmpty)
        configuration.snapshots = SnapshotSettings(directory: "/tmp/later")
        service.reload(PipelineOptions(configuration))
        #expect(log.lines(containing: "snapshots.* changed").count == 1, "\(log.all.map(\.line))")
        try writer.finish()
    }

    @Test func snapshotKeysAreReadAndCheckedAndOffWithoutADirectory() async throws {
        let none = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_SNAPSHOTS_QUALITY": "70"])
        #expect(none.snapshots == nil)
        let yaml = "snapshots:\n  directory: /var/lib/syncscan/video0/snapshots\n  quality: 70\n  crop: code\n  margin: 10\n"
            + "  max_files: 50\n  max_bytes: 1000000\n"
        let file = try TemporaryFile(contents: Array(yaml.utf8), suffix: ".yaml")
        let loaded = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        var expected = SnapshotSettings(directory: "/var/lib/syncscan/video0/snapshots")
        (expected.quality, expected.crop, expected.margin, expected.maxFiles, expected.maxBytes) = (70, .code, 10, 50, 1_000_000)
        #expect(loaded.snapshots == expected)
        let bad = try TemporaryFile(contents: Array("snapshots:\n  directory: /tmp/s\n  quality: 0\n  crop: face\n  max_file: 3\n".utf8), suffix: ".yaml")
        let error = await #expect(throws: ConfigurationError.self) { try await SyncscanConfiguration.load(file: bad.path, environment: [:]) }
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(text.contains("snapshots.quality") && text.contains("snapshots.crop") && text.contains("max_file"), "\(text)")
    }
}
