import Capture
import Foundation
import Media
import Testing

@Suite struct TriggerSwitchTests {
    @Test func pullsAreTakenOnceOldestFirst() {
        let triggers = TriggerSwitch()
        triggers.press(origin: "sigusr1")
        triggers.release(origin: "key")
        #expect(triggers.takePulls().map { "\($0.kind.rawValue) \($0.origin)" } == ["press sigusr1", "release key"])
        #expect(triggers.takePulls().isEmpty)
        #expect(triggers.counts == .init(pulls: 2, dropped: 0))
    }

    /// A frame takes the pulls made by its capture time; the later ones wait for a later frame,
    /// in their order; a source with no capture time takes them all.
    @Test func aFrameTakesOnlyThePullsMadeByItsCapture() {
        let triggers = TriggerSwitch()
        triggers.press(origin: "early", at: MediaTime(nanoseconds: 100))
        triggers.press(origin: "late", at: MediaTime(nanoseconds: 300))
        triggers.release(origin: "now")
        #expect(triggers.takePulls(capturedAt: MediaTime(nanoseconds: 99)).isEmpty)
        #expect(triggers.takePulls(capturedAt: MediaTime(nanoseconds: 100)).map(\.origin) == ["early"], "a press at the capture time is taken")
        #expect(triggers.takePulls(capturedAt: MediaTime(nanoseconds: 300)).map(\.origin) == ["late"])
        let now = MediaTime.monotonicNow()
        #expect(triggers.takePulls(capturedAt: now).map(\.origin) == ["now"], "stamped on CLOCK_MONOTONIC when made")
        triggers.press(origin: "file")
        #expect(triggers.takePulls().map(\.origin) == ["file"])
    }

    /// A storm keeps the newest `capacity` pulls and counts the rest; recording never blocks.
    @Test func aStormKeepsTheNewestPullsAndCountsTheDropped() {
        let triggers = TriggerSwitch(capacity: 8)
        for n in 0..<1_000 { triggers.press(origin: "mqtt-\(n)") }
        let taken = triggers.takePulls()
        #expect(taken.map(\.origin) == (992..<1_000).map { "mqtt-\($0)" })
        #expect(triggers.counts == .init(pulls: 1_000, dropped: 992))
    }

    @Test func pullsFromManyThreadsAreAllCounted() async {
        let triggers = TriggerSwitch(capacity: 4_000)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 { group.addTask { for _ in 0..<1_000 { triggers.press(origin: "t\(thread)") } } }
        }
        #expect(triggers.takePulls().count == 4_000)
        #expect(triggers.counts.pulls == 4_000 && triggers.counts.dropped == 0)
    }

    /// Once the scan stopped, a pull waiting and every later one are refused: each pull is taken, dropped or refused.
    @Test func pullsAfterTheScanStoppedAreRefusedAndCounted() {
        let triggers = TriggerSwitch(capacity: 8)
        triggers.press(origin: "sigusr1")
        #expect(triggers.takePulls().count == 1)
        triggers.press(origin: "http")
        triggers.close()
        triggers.press(origin: "mqtt")
        triggers.release(origin: "key")
        #expect(triggers.takePulls().isEmpty)
        #expect(triggers.counts == .init(pulls: 4, dropped: 0, refused: 3))
    }
}
