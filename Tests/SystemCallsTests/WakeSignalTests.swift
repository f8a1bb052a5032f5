import Foundation
import SystemCalls
import SystemPackage
import TestSupport
import Testing

/// The one wake-up of every poll loop: a signal makes a poll return, a drain re-arms it.
@Suite(.offThePool) struct WakeSignalTests {
    @Test func aSignalMakesAPollReturnAndStaysUntilDrained() throws {
        let wake = try WakeSignal()
        let poll = PollSet([wake.descriptor])
        #expect(try poll.wait(timeout: .zero).get() == false, "nothing signalled yet")
        wake.signal()
        #expect(try poll.wait(timeout: hangTimeout).get() == true)  // a guard, not a timing
        #expect(try poll.wait(timeout: .zero).get() == true, "a latch until drained (a stopped source's later polls)")
        wake.drain()
        #expect(try poll.wait(timeout: .zero).get() == false)
    }

    @Test func manySignalsBeforeADrainAreOneWakeUp() throws {
        let wake = try WakeSignal()
        let poll = PollSet([wake.descriptor])
        for _ in 0..<1000 { wake.signal() }
        #expect(try poll.wait(timeout: .zero).get() == true)
        wake.drain()
        #expect(try poll.wait(timeout: .zero).get() == false)
        wake.drain()  // nothing pending: EAGAIN, ignored
        #expect(try poll.wait(timeout: .zero).get() == false)
    }

    @Test func aSignalFromAnotherThreadWakesABlockedPoll() async throws {
        let wake = try WakeSignal()
        let woke = try await runOnThread(name: "wake-waiter") { () throws -> Bool in
            Thread { pause(.milliseconds(50)); wake.signal() }.start()
            return try PollSet([wake.descriptor]).wait(timeout: hangTimeout).get()  // a guard against a hang
        }
        #expect(woke)
    }
}
