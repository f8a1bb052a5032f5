import Capture
@testable import Daemon
import Foundation
import Logging
import Results
import SystemCalls
import SystemPackage
import TestSupport
import Testing

/// A handler with threads of its own, as the daemon runs one: it records its start, and at its
/// flush the codes it had and the shutdown's stage then; its flush may fail or wait for a gate.
private final class FlushingHandler: ResultsHandler, ServiceHooks, Sendable {
    enum Flush: Sendable { case flushes, fails, waitsForGate }

    let label: String
    private let flush: Flush
    private let log: LockedValue<[String]>
    /// Set by the test once the scan service exists: the stage read at the flush.
    let progress = LockedValue<ShutdownProgress?>(nil)
    private let codes = LockedValue(0)
    /// Opened by the test to let a flush that waits for it end.
    let gate = LockedValue(false)

    init(_ label: String, flush: Flush = .flushes, log: LockedValue<[String]>) {
        (self.label, self.flush, self.log) = (label, flush, log)
    }

    func start() { log.withLock { $0.append("\(label) start") } }

    func handle(_ code: inout DeliveredCode) throws { codes.withLock { $0 += 1 } }

    func finish() throws {
        let stage = progress.withLock { $0?.stage }.map { "\($0)" } ?? "-"
        log.withLock { $0.append("\(label) finish codes=\(codes.withLock { $0 }) stage=\(stage)") }
        switch flush {
        case .flushes: break
        case .fails: throw FlushFailed(label: label)
        case .waitsForGate: waitUntil { gate.withLock { $0 } }
        }
    }
}

private struct FlushFailed: Error, Equatable { let label: String }

/// A scan of a 6-frame QR clip whose lines go to a file, with `handlers` after the configured ones.
private struct HandlersRun {
    let service: ScanService
    let writer: LineWriter
    let out: TemporaryFile
    let fd: FileDescriptor
    let summaries = LockedValue<[String]>([])

    init(_ handlers: [FlushingHandler], clip: TemporaryFile) throws {
        var configuration = SyncscanConfiguration()
        configuration.source = clip.path
        configuration.duplicateSuppression.mode = .off
        configuration.statsIntervalSeconds = 0
        out = try TemporaryFile(contents: [], suffix: ".jsonl")
        fd = try FileDescriptor.open(out.path, .writeOnly, options: .append)
        writer = LineWriter(fileDescriptor: fd, name: "out", capacity: 64, overflow: .wait)
        let summaries = self.summaries
        service = ScanService(options: PipelineOptions(configuration), writer: writer, logger: Logger(label: "test"),
                              additionalHandlers: handlers) { line in summaries.withLock { $0.append(line) } }
        for handler in handlers { handler.progress.withLock { $0 = service.shutdownProgress } }
    }

    var lines: [String] {
        String(decoding: FileManager.default.contents(atPath: out.path) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

@Suite(.offThePool) struct ResultsHandlerServiceTests {
    /// Each handler with threads is a service of the group of its own, listed after stdout's in
    /// reverse delivery order: started when the group runs, flushed once the scan has returned
    /// with every code handed over, one after another in delivery order, stdout's lines last.
    @Test func eachHandlerWithThreadsIsAServiceFlushedInDeliveryOrderAfterTheScan() async throws {
        let clip = try TemporaryFile.qrClip("own service", frames: 6)
        let log = LockedValue<[String]>([])
        let (first, second) = (FlushingHandler("first", log: log), FlushingHandler("second", log: log))
        let run = try HandlersRun([first, second], clip: clip)
        defer { try? run.fd.close() }

        let services = run.service.makeOutputServices()
        #expect(services.count == 3 && services[0] is StandardOutputService, "\(services)")
        #expect(services.dropFirst().compactMap { ($0 as? ResultsHandlerService)?.name } == ["FlushingHandler", "FlushingHandler"])

        try await run.service.runWithResultsHandlers()
        let entries = log.withLock { $0 }
        #expect(Set(entries.prefix(2)) == ["first start", "second start"], "\(entries)")
        #expect(Array(entries.dropFirst(2)) == ["first finish codes=6 stage=handlers([\"FlushingHandler\"])",
                                                "second finish codes=6 stage=handlers([\"FlushingHandler\"])"], "\(entries)")
        #expect(run.service.shutdownProgress.stage == .stdout)
        #expect(run.lines.count == 6 && run.summaries.withLock { $0.count } == 1, "\(run.lines)")
    }

    /// A handler still flushing when the group is cancelled (the shutdown limit passed, or a
    /// second signal) is named by the error; the summary is still written. (The flush given up
    /// runs on until the test opens its gate.)
    @Test func aHandlerStillFlushingWhenTheStopIsForcedIsNamed() async throws {
        let clip = try TemporaryFile.qrClip("slow flush", frames: 6)
        let log = LockedValue<[String]>([])
        let slow = FlushingHandler("slow", flush: .waitsForGate, log: log)
        let run = try HandlersRun([slow], clip: clip)
        defer { try? run.fd.close() }

        let service = run.service
        let group = Task { try await service.runWithResultsHandlers() }
        // Cancelled once the flush has begun: the stage is the handler's, however long the
        // services before it took to stop.
        #expect(waitUntil { log.withLock { $0.contains { $0.hasPrefix("slow finish") } } })
        group.cancel()
        let error = await #expect(throws: ShutdownTimeoutError.self) { try await group.value }
        #expect(error?.stage == .handlers(["FlushingHandler"]), "\(String(describing: error))")
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("the results handlers were still flushing (FlushingHandler)"), "\(text)")
        #expect(run.summaries.withLock { $0.count } == 1 && run.summaries.withLock { $0[0] }.contains("frames=6"))
        slow.gate.withLock { $0 = true }
        try run.writer.finish()
    }

    /// A handler whose flush fails leaves the others to flush and stdout's lines to be written;
    /// the group throws that failure once they have.
    @Test func aFailedFlushLeavesTheOthersToFlushAndIsThrown() async throws {
        let clip = try TemporaryFile.qrClip("failed flush", frames: 6)
        let log = LockedValue<[String]>([])
        let (failing, after) = (FlushingHandler("failing", flush: .fails, log: log), FlushingHandler("after", log: log))
        let run = try HandlersRun([failing, after], clip: clip)
        defer { try? run.fd.close() }

        let error = await #expect(throws: FlushFailed.self) { try await run.service.runWithResultsHandlers() }
        #expect(error == FlushFailed(label: "failing"))
        #expect(log.withLock { $0.filter { $0.contains("finish") }.map { $0.prefix(while: { $0 != " " }) } } == ["failing", "after"])
        #expect(run.service.shutdownProgress.stage == .stdout)
        #expect(run.lines.count == 6 && run.summaries.withLock { $0.count } == 1, "\(run.lines)")
    }
}
