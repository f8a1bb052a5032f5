@testable import Daemon
import Capture
import TestSupport
import Testing

@Suite(.offThePool) struct ReadingCheckCountersTests {
    /// `hybrid`'s reading check shows in the stats and summary lines, STATUS=, the stats JSON and the metrics
    /// once it did something, and nowhere before.
    @Test func theLinesAndTheMetricsShowTheReadingCheck() throws {
        var counters = ServiceCounters()
        counters.statistics.readingCheck = ReadingCheckCounts(confirmed: 4, settled: 3, held: 2, dropped: 1)
        let fields = " readings_confirmed=4 readings_settled=3 readings_held=2 readings_dropped=1"
        let line = ServiceLines.stats(counters, scanTimes: nil, decoderFailures: nil)
        #expect(line.contains(" scans_stuck=0" + fields), "\(line)")
        #expect(ServiceLines.readingCheckFields(counters.statistics.readingCheck) == fields)
        let status = ServiceStatus.scanning(source: "y4m:-", statistics: counters.statistics).line
        #expect(status.hasSuffix(fields), "\(status)")
        let summary = ServiceLines.summary(counters, handlerSummaryFields: [])
        #expect(summary.hasSuffix(" scans_stuck=0" + fields), "\(summary)")
        let json = String(decoding: ServiceLines.statsJSON(counters), as: UTF8.self)
        #expect(json.contains("\"readings_confirmed\":4,\"readings_settled\":3,\"readings_held\":2,\"readings_dropped\":1"), "\(json)")

        let fresh = ServiceCounters()
        #expect(!ServiceLines.stats(fresh, scanTimes: nil, decoderFailures: nil).contains("readings_"))
        #expect(!ServiceLines.summary(fresh, handlerSummaryFields: []).contains("readings_"))
        #expect(!String(decoding: ServiceLines.statsJSON(fresh), as: UTF8.self).contains("readings_"))

        let metrics = ServiceMetrics(source: "y4m:-")
        metrics.update(counters)
        let file = try TemporaryFile(contents: metrics.render(), suffix: ".prom")
        let prom = try PrometheusText(path: file.path)
        for (check, n) in [("confirmed", 4), ("settled", 3), ("held", 2), ("dropped", 1)] {
            #expect(prom.value("syncscan_checked_readings_total", ["check": check]) == Double(n), "\(check)")
        }
    }
}
