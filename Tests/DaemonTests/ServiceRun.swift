import Capture
@testable import Daemon
import Foundation
import Logging
import Results
import SystemCalls
import SystemPackage
import TestSupport

/// A `ScanService` for `configuration` run to its end, its JSON lines written to a file (a
/// writer of 64 lines that waits): the lines, the service (its counters and metrics after the run)
/// and the summary line.
struct ServiceRun {
    let lines: [String]
    let service: ScanService
    let summary: String

    init(_ configuration: SyncscanConfiguration, logger: Logger = LogRecorder().logger, snapshotDirectory: (any SnapshotDirectory)? = nil,
         additionalHandlers: [any ResultsHandler] = []) async throws {
        let out = try TemporaryFile(contents: [], suffix: ".jsonl")
        let fd = try FileDescriptor.open(out.path, .writeOnly, options: .append)
        defer { try? fd.close() }
        let writer = LineWriter(fileDescriptor: fd, name: "out", capacity: 64, overflow: .wait)
        let summary = LockedValue("")
        service = ScanService(options: PipelineOptions(configuration), writer: writer, logger: logger, snapshotDirectory: snapshotDirectory,
                              additionalHandlers: additionalHandlers) { line in summary.withLock { $0 = line } }
        try await service.runWithResultsHandlers()
        lines = String(decoding: FileManager.default.contents(atPath: out.path) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
        self.summary = summary.withLock { $0 }
    }
}
