import Foundation
import SystemCalls
import TestSupport
import Testing

/// `scan_timeout_seconds` on the built binary: a daemon stopped (SIGSTOP) in the middle of its
/// scans for longer than the timeout, then continued, finds no scan stuck and ends as usual.
@Suite(.serialized, .offThePool) struct ScanTimeoutRunTests {
    @Test func aStopAndContinueLongerThanTheTimeoutIsNotAStuckScan() throws {
        let config = try TemporaryFile(contents: Array("scan_timeout_seconds: 5\n".utf8), suffix: ".yaml")
        // 640x480 frames, fed as fast as the pipe takes them, every zxing-cpp pass on each
        // (`--effort max`) with one scanning thread: the scanner is busy nearly all the time, so
        // the stop lands in the middle of a scan. zxing's passes, not hybrid's (whose upscaling
        // passes made one scan of the first frame take over 2 s under ASan on a loaded machine: a
        // truly slow scan, rightly reported stuck), and a 5 s timeout.
        let stream = Y4MStream(width: 640, height: 480)
        let frames = try (0..<4).map { i -> [UInt8] in
            var f = GreyFrame(width: 640, height: 480)
            f.draw(try ModuleMatrix.qrCode("stopped-\(i)"), centerX: 320, centerY: 240, moduleSize: 4)
            return stream.frame(f)
        }
        let daemon = try RunningDaemon(["run", "--config", config.path, "--source", "y4m:-", "--engine", "zxing",
                                        "--effort", "max", "--scanning-threads", "1", "--duplicate-window", "0"])
        daemon.feed(stream.header)
        let feeding = LockedValue(true)
        let feeder = Thread {
            var i = 0
            while feeding.withLock({ $0 }), daemon.feed(frames[i % frames.count]) { i += 1 }
        }
        feeder.start()
        #expect(waitUntil { daemon.stdoutLines.count >= 5 }, "codes before the stop")
        daemon.send(SIGSTOP)
        let codesAtStop = daemon.stdoutLines.count
        pause(.seconds(12))                                  // 2.4 times scan_timeout_seconds
        daemon.send(SIGCONT)
        // Scans go on (the event); then the status loop gets a few turns to judge the scan that
        // spanned the stop.
        #expect(waitUntil { daemon.stdoutLines.count > codesAtStop }, "scanning went on after SIGCONT")
        pause(.seconds(3))
        let codesAfter = daemon.stdoutLines.count
        // The feeder ends before the pipe is closed: a write in flight never meets a closed (or
        // reused) descriptor number.
        feeding.withLock { $0 = false }
        #expect(waitUntil { feeder.isFinished }, "the feeder thread ended")
        daemon.closeStdin()
        let status = daemon.wait()

        #expect(status == 0, "stderr: \(daemon.stderr)")
        #expect(!daemon.stderr.contains("did not return within scan_timeout_seconds"), "stderr: \(daemon.stderr)")
        let summary = daemon.stderr.split(separator: "\n").first { $0.contains("syncscan: summary:") } ?? ""
        #expect(summary.contains(" scans_stuck=0"), "summary: \(summary)")
        #expect(codesAfter > codesAtStop, "scanning went on after SIGCONT: \(codesAtStop) lines at the stop, \(codesAfter) after")
    }
}
