import Foundation
import TestSupport
import Testing

/// SIGUSR1 presses the trigger of the built daemon, beside SIGHUP's reload and SIGTERM's stop.
@Suite(.serialized, .offThePool) struct TriggerSignalRunTests {
    @Test func sigusr1OpensAReadWindowAndLeavesReloadAndStopAlone() throws {
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--emit-frames"],
                                       environment: ["SYNCSCAN_TRIGGER_MODE": "triggered", "SYNCSCAN_TRIGGER_WINDOW_DURATION_MS": "300"])
        daemon.feed(Y4MStream(width: 160, height: 120).header)
        let frames = try qrFrameBytes(1, prefix: "usr1")
        // Running: its frames come out, untriggered, no code read.
        #expect(daemon.feedFrames(frames, every: .milliseconds(30)) { daemon.records("frame").count >= 3 }, "stderr: \(daemon.stderr)")
        #expect(daemon.records("frame").allSatisfy { $0["dropped"] as? String == "untriggered" })
        daemon.send(SIGUSR1)
        #expect(daemon.feedFrames(frames, every: .milliseconds(30)) { daemon.records("read_result").count >= 1 }, "stderr: \(daemon.stderr)")
        daemon.send(SIGHUP)
        #expect(daemon.waitForStderr("reloaded configuration applied in place"), "stderr: \(daemon.stderr)")
        daemon.send(SIGUSR1)
        #expect(daemon.feedFrames(frames, every: .milliseconds(30)) { daemon.records("read_result").count >= 2 }, "stderr: \(daemon.stderr)")
        daemon.send(SIGTERM)
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")

        let results = daemon.records("read_result")
        #expect(results.map { $0["result"] as? String } == ["good", "good"] && results.map { $0["window"] as? Int } == [1, 2])
        #expect(results.allSatisfy { $0["trigger"] as? String == "sigusr1" && $0["codes"] as? Int == 1 })
        #expect(daemon.records("code").count == 2, "one item per window: the window's items leave when it closes")
        #expect(daemon.stderr.contains("reads_good=2 reads_no_read=0 reads_multiple=0 triggers=2"), "stderr: \(daemon.stderr)")
    }
}
