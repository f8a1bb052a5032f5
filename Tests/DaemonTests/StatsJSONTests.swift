import Foundation
import Testing
@testable import Daemon

@Suite struct StatsJSONTests {
    /// `<prefix>/stats` as a dictionary.
    private func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func theRateSinceTheLastReportFollowsFramesAndIsLeftOutWithoutOne() throws {
        var c = ServiceCounters()
        c.statistics.frames = 300
        c.statistics.scanned = 290
        c.statistics.dropped = [.lateData: 10]
        let text = String(decoding: ServiceLines.statsJSON(c, framesPerSecond: 29.97), as: UTF8.self)
        #expect(text.hasPrefix("{\"frames\":300,\"frames_per_second\":29.97,\"scanned\":290,\"dropped\":10,"), "\(text)")
        let stats = try object(ServiceLines.statsJSON(c, framesPerSecond: 29.97))
        #expect((stats["frames_per_second"] as? Double) == 29.97 && (stats["dropped"] as? Int) == 10)
        #expect(try object(ServiceLines.statsJSON(c))["frames_per_second"] == nil, "/status has no rate")
        #expect(try object(ServiceLines.statsJSON(c, framesPerSecond: .nan))["frames_per_second"] == nil)
    }
}
