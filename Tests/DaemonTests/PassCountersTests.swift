@testable import Daemon
import Capture
import Decoders
import Foundation
import Logging
import Results
import SystemCalls
import SystemPackage
import TestSupport
import Testing

@Suite(.offThePool) struct PassCountersTests {
    /// A file scanned with `engine: zxing`, `effort: max`: every frame's code is counted under
    /// the cheapest pass that read it, every pass's time reaches the metrics' histogram, and the
    /// summary's codes add up to the per-pass counts.
    @Test func aRunCountsCodesByPassAndTimesEveryPass() async throws {
        let video = try TemporaryFile.qrClip("by pass", frames: 5)
        var configuration = SyncscanConfiguration()
        (configuration.source, configuration.engine, configuration.effort) = (video.path, .zxing, .max)
        configuration.duplicateSuppression.mode = .off
        configuration.statsIntervalSeconds = 0
        configuration.scanningThreads = 1
        let run = try await ServiceRun(configuration)
        let (service, lines) = (run.service, run.lines)

        let counters = service.counters()
        #expect(counters.statistics.codesByPass == [.zxingFast: 5])
        #expect(counters.statistics.passesCut.isEmpty)
        #expect(lines.count == 5 && lines.allSatisfy { $0.contains("\"engine\":\"zxing\",\"pass\":\"zxing-fast\"") }, "\(lines)")
        let file = try TemporaryFile(contents: service.metricsExposition(), suffix: ".prom")
        let prom = try PrometheusText(path: file.path)
        #expect(prom.value("syncscan_pass_codes_total", ["pass": "zxing-fast"]) == 5)
        for pass in ["zxing-fast", "zxing-full", "zxing-histogram"] {
            #expect(prom.value("syncscan_pass_duration_seconds_count", ["pass": pass]) == 5, "\(pass)")
        }
        #expect(prom.types["syncscan_pass_duration_seconds"] == "histogram", "\(prom.types)")
    }

    /// The stats line lists each pass cheapest first with its codes, cuts and times; STATUS= its
    /// codes by pass and the cuts in all; the metrics count the cuts by pass.
    @Test func theLinesAndTheMetricsShowThePasses() throws {
        var counters = ServiceCounters()
        counters.statistics.codes = 7
        counters.statistics.codesByPass = [.zxingFull: 2, .zxingFast: 5]
        counters.statistics.passesCut = [.zxingHistogram: 3]
        let line = ServiceLines.stats(counters, scanTimes: (0.002, 0.009),
                                      passTimes: [.zxingFast: (0.001, 0.0015), .zxingFull: (0.008, 0.0125)], decoderFailures: nil)
        #expect(line.contains(" scan_p99=9.0ms pass_codes=zxing-fast:5,zxing-full:2,zxing-histogram:0 passes_cut=zxing-histogram:3"
                              + " pass_p50=zxing-fast:1.0ms,zxing-full:8.0ms pass_p99=zxing-fast:1.5ms,zxing-full:12.5ms output_lines_dropped=0"), "\(line)")
        #expect(ServiceLines.statusPassFields(counters.statistics) == " by_pass=zxing-fast:5,zxing-full:2 cut=3")
        #expect(ServiceLines.statusPassFields(CaptureStatistics()) == "")
        let json = String(decoding: ServiceLines.statsJSON(counters), as: UTF8.self)
        #expect(json.contains("\"codes_zxing-fast\":5,\"codes_zxing-full\":2,\"passes_cut\":3,\"codes_found\":7"), "\(json)")
        let fresh = ServiceLines.stats(ServiceCounters(), scanTimes: nil, decoderFailures: nil)
        #expect(fresh.contains(" pass_codes=- passes_cut=- pass_p50=- pass_p99=- "), "\(fresh)")

        let metrics = ServiceMetrics(source: "y4m:-")
        metrics.update(counters)
        let file = try TemporaryFile(contents: metrics.render(), suffix: ".prom")
        let prom = try PrometheusText(path: file.path)
        #expect(prom.value("syncscan_passes_cut_total", ["pass": "zxing-histogram"]) == 3)
        #expect(prom.value("syncscan_pass_codes_total", ["pass": "zxing-full"]) == 2)
    }
}
