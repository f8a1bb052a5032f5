import Capture
import TestSupport
import Testing

@Suite(.offThePool) struct RecentDurationsTests {
    @Test func medianIsTheUpperMiddleAndTheRingKeepsOnlyTheNewest() {
        var durations = RecentDurations(capacity: 4)
        #expect(durations.median == nil && durations.percentiles() == nil)
        for s in [0.004, 0.001, 0.003] { durations.add(s) }
        #expect(durations.median == 0.003)          // 1, 3, 4 ms
        durations.add(0.002)
        #expect(durations.median == 0.003)          // 1, 2, 3, 4 ms: the upper middle
        for s in [0.010, 0.020, 0.030] { durations.add(s) }  // the three oldest are overwritten
        #expect(durations.median == 0.020 && durations.percentiles()?.p99 == 0.030)  // 2, 10, 20, 30 ms
    }
}
