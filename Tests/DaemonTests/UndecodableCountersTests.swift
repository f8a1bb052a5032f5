import Capture
import Foundation
import Testing
import TestSupport
@testable import Daemon

/// Frames dropped as `undecodable` (a camera's damaged MJPEG) show in every place drops are counted.
@Suite(.offThePool) struct UndecodableCountersTests {
    @Test func undecodableDropsAreInTheStatsLineSummaryStatusJSONAndMetrics() throws {
        var c = ServiceCounters()
        c.statistics.frames = 40
        c.statistics.scanned = 37
        c.statistics.dropped = [.undecodable: 2, .lateData: 1]
        let stats = ServiceLines.stats(c, scanTimes: nil, decoderFailures: nil)
        #expect(stats.contains("dropped=3 (lateData=1 outOfBuffers=0 discontinuity=0 undecodable=2)"), "\(stats)")
        let summary = ServiceLines.summary(c, handlerSummaryFields: [])
        #expect(summary.contains("(lateData=1 outOfBuffers=0 discontinuity=0 undecodable=2)"), "\(summary)")
        #expect(ServiceLines.statusDropFields(c.statistics) == " undecodable=2")
        #expect(ServiceLines.statusDropFields(CaptureStatistics()) == "")
        let json = String(decoding: ServiceLines.statsJSON(c), as: UTF8.self)
        #expect(json.contains("\"dropped_undecodable\":2"), "\(json)")

        let metrics = ServiceMetrics(source: "v4l2:/dev/video0", baseline: ServiceCounters())
        metrics.update(c)
        let file = try TemporaryFile(contents: metrics.render(), suffix: ".prom")
        let text = try PrometheusText(path: file.path)
        #expect(text.value("syncscan_frames_total", ["outcome": "undecodable"]) == 2)
        #expect(text.sum("syncscan_frames_total") == 40)
    }
}
