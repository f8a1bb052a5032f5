import Media
import TestSupport
import Testing
@testable import Capture

@Suite(.offThePool) struct PresentationClockTests {
    private func times(_ raw: [Int64]) -> (times: [Int64], resets: Int) {
        var clock = PresentationClock()
        let t = raw.map { clock.presentationTime(for: MediaTime(nanoseconds: $0)).nanoseconds }
        return (t, clock.resets)
    }

    @Test func aSteadyClockStartsAtZeroAndKeepsItsSteps() {
        let (t, resets) = times([7_000_000_000, 7_033_000_000, 7_100_000_000, 9_000_000_000])
        #expect(t == [0, 33_000_000, 100_000_000, 2_000_000_000])
        #expect(resets == 0)
    }

    /// 32-bit `tv_sec`: 2^31 − 1 s is followed by −2^31 s.
    @Test func aThirtyTwoBitSecondsWrapContinuesByThePreviousStep() {
        let top = (Int64(Int32.max) * 1_000_000_000)
        let (t, resets) = times([top - 40_000_000, top - 20_000_000, Int64(Int32.min) * 1_000_000_000, Int64(Int32.min) * 1_000_000_000 + 20_000_000])
        #expect(t == [0, 20_000_000, 40_000_000, 60_000_000])
        #expect(resets == 1)
    }

    @Test func aSixtyFourBitWrapIsOneOrdinaryStep() {
        let (t, resets) = times([Int64.max - 10, Int64.min + 9])
        #expect(t == [0, 20])
        #expect(resets == 0)
    }

    @Test func aRepeatedTimestampStillMovesForward() {
        let (t, resets) = times([100, 150, 150, 150, 210])
        #expect(t == [0, 50, 100, 150, 210])
        #expect(resets == 2)
    }

    @Test func aStepBeyondTheRangeIsHeldAtTheLimit() {
        let (t, _) = times([0, Int64.max, Int64.max &+ Int64.max])
        #expect(t[1] == Int64.max && t[2] == Int64.max)
    }
}
