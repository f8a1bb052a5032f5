import Capture
import Daemon
import Evdev
import SystemCalls
import TestSupport
import Testing

@Suite(.offThePool) struct KeyTriggerTests {
    @Test func aMissingDeviceIsOneErrorLineNamingItAndWhatToDoAndItIsTriedAgainUntilStopped() throws {
        let log = LogRecorder()
        let settings = KeyTriggerSettings(device: "/nonexistent/input/event7", code: try #require(KeyCode(named: "KEY_F12")))
        let trigger = KeyTrigger(settings: settings, triggers: TriggerSwitch(), logger: log.logger, reopenInterval: .milliseconds(5))
        trigger.start()
        #expect(waitUntil { !log.messages(at: .error).isEmpty })
        // Tried again every 5 ms: a while later the same failure has still been logged once.
        pause(.milliseconds(100))
        trigger.stop()
        let errors = log.messages(at: .error)
        #expect(errors == ["key trigger: /nonexistent/input/event7: no such input device: check trigger.key.device (ls /dev/input/by-id/) "
                           + "(open: No such file or directory, ENOENT); trying again every 0.005 seconds until it can be read"], "\(errors)")
        #expect(trigger.counts.presses == 0 && trigger.counts.reopens == 0 && !trigger.counts.open)
    }

    @Test func aFileThatIsNoInputDeviceIsSaidSoAndStopEndsTheThread() throws {
        let log = LogRecorder()
        let settings = KeyTriggerSettings(device: "/dev/null", code: KeyTriggerSettings.defaultCode)
        let trigger = KeyTrigger(settings: settings, triggers: TriggerSwitch(), logger: log.logger, reopenInterval: .seconds(600))
        trigger.start()
        #expect(waitUntil { !log.messages(at: .error).isEmpty })
        // The wait between tries (600 s here) ends when stopped: stop returns long before it would.
        let start = ContinuousClock.now
        trigger.stop()
        #expect(ContinuousClock.now - start < .seconds(300))
        #expect(log.messages(at: .error).first?.contains("/dev/null: not an evdev input device") == true, "\(log.all.map(\.line))")
    }

    @Test func stopBeforeStartAndTwiceReturns() {
        let trigger = KeyTrigger(settings: KeyTriggerSettings(device: "/dev/null", code: KeyTriggerSettings.defaultCode),
                                 triggers: TriggerSwitch(), logger: LogRecorder().logger)
        trigger.stop()
        trigger.stop()
        trigger.start()
        #expect(trigger.counts.open == false)
    }
}
