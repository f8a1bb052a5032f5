import Capture
@testable import Daemon
import Foundation
import Logging
import Results
import SystemCalls
import SystemPackage
import TestSupport
import Testing

/// A results handler the service knows nothing about: it only implements the handler protocols
/// (`ResultsHandler` for delivery, `ServiceHooks`, `CountsReporting`). It records what the service
/// asked of it and counts codes by its own counter.
private final class RecordingResultsHandler: ResultsHandler, ServiceHooks, CountsReporting, Sendable {
    private let record = LockedValue((events: [String](), texts: [String](), stats: 0))

    var events: [String] { record.withLock { $0.events } }
    var texts: [String] { record.withLock { $0.texts } }
    var statsUpdates: Int { record.withLock { $0.stats } }

    func start() { record.withLock { $0.events.append("start") } }
    func setOverflowPolicy(_ policy: OverflowPolicy) { record.withLock { $0.events.append("overflow \(policy)") } }
    func sourceStreaming() { record.withLock { $0.events.append("streaming") } }
    func statsUpdated(_ json: [UInt8]) { record.withLock { $0.stats += 1 } }

    func handle(_ code: inout DeliveredCode) throws {
        let text = code.code.text ?? ""
        record.withLock { $0.texts.append(text) }
        code.fields.append((name: "recorded", value: "yes"))
    }

    func finish() throws { record.withLock { $0.events.append("finish") } }

    var counters: [ResultsCounter] {
        [ResultsCounter(name: "recorded_codes", help: "Codes the recording handler saw.", value: texts.count)]
    }

    var summaryFields: [String] { ["recorded_last=\(texts.last ?? "-")"] }
}

@Suite(.offThePool) struct ResultsHandlerPluginTests {
    /// The service starts it, sets its overflow policy for the source, tells it the source
    /// streams, hands it every code before the JSON line (its field reaches the line), passes it
    /// the stats, finishes it, and shows its counter in the stats line, the summary and the
    /// metrics file — all through the protocols.
    @Test func aHandlerPlugsInThroughTheProtocolAlone() async throws {
        let video = try TemporaryFile.qrClip("plug-in", frames: 6)
        let metrics = try TemporaryDirectory()
        var configuration = SyncscanConfiguration()
        configuration.source = video.path
        configuration.duplicateSuppression.mode = .off
        configuration.statsIntervalSeconds = 0
        configuration.metrics.textfile = metrics.path + "/syncscan.prom"
        let handler = RecordingResultsHandler()
        let run = try await ServiceRun(configuration, additionalHandlers: [handler])
        let service = run.service

        #expect(handler.events == ["start", "overflow wait", "streaming", "finish"])
        #expect(handler.texts == Array(repeating: "plug-in", count: 6))
        let lines = run.lines
        #expect(lines.count == 6 && lines.allSatisfy { $0.contains("\"recorded\":\"yes\"") }, "\(lines)")
        let text = run.summary
        #expect(text.contains("codes_emitted=6 output_lines_dropped=0 scans_stuck=0 recorded_codes=6 recorded_last=plug-in"), "\(text)")
        #expect(service.statsLine().contains(" recorded_codes=6"), "\(service.statsLine())")
        let prom = try PrometheusText(path: metrics.path + "/syncscan.prom")
        #expect(prom.value("syncscan_recorded_codes_total") == 6)
        #expect(prom.types["syncscan_recorded_codes_total"] == "counter" || prom.types["syncscan_recorded_codes"] == "counter")
    }
}
