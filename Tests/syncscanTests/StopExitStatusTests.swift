import Foundation
import TestSupport
import Testing

/// 160x120 frames, each holding one QR code (`prefix-i`).
private func stopFrames(_ count: Int, prefix: String) throws -> [GreyFrame] {
    try (0..<count).map { i in
        var f = GreyFrame(width: 160, height: 120)
        f.draw(try ModuleMatrix.qrCode("\(prefix)-\(i)"), centerX: 80, centerY: 60, moduleSize: 3)
        return f
    }
}

/// What systemd does to `ffmpeg | syncscan` on `systemctl stop`: SIGTERM to every process of the
/// unit at once, so syncscan sees the signal and the end of its input together. Whichever comes
/// first, the stop is ordinary: exit 0, every code written, no internal type name on stderr.
@Suite(.serialized, .offThePool) struct StopExitStatusTests {
    /// Starts a daemon on a pipe, waits for its first code line, then sends SIGTERM and closes
    /// the pipe back to back; its exit status, stdout codes and stderr.
    private func stopTogether(_ extra: [String] = [], frames: [GreyFrame], beforeStop: (RunningDaemon) throws -> Void = { _ in })
        throws -> (status: Int32, codes: Int, stderr: String) {
        let stream = Y4MStream(width: 160, height: 120)
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--duplicate-window", "0"] + extra)
        daemon.feed(stream.header)
        for frame in frames { daemon.feed(stream.frame(frame)) }
        #expect(waitUntil { !daemon.stdoutLines.isEmpty }, "a first code line")
        try beforeStop(daemon)
        daemon.send(SIGTERM)
        daemon.closeStdin()
        let status = daemon.wait()
        let codes = daemon.stdoutLines.compactMap { $0 }.filter { $0["type"] as? String == "code" }.count
        return (status, codes, daemon.stderr)
    }

    /// `codes_emitted=N` of the summary line; nil without one.
    private func emitted(_ stderr: String) -> Int? {
        guard let range = stderr.range(of: "codes_emitted=") else { return nil }
        return Int(stderr[range.upperBound...].prefix { $0.isNumber })
    }

    @Test func sigtermAndTheEndOfInputTogetherExitZeroEveryTime() throws {
        let frames = try stopFrames(3, prefix: "stop")
        var statuses: [Int32] = []
        for _ in 0..<20 {
            let run = try stopTogether(frames: frames)
            statuses.append(run.status)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(!run.stderr.contains("ServiceGroupError"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("syncscan: summary: "), "the summary line is written on every stop: \(run.stderr)")
            #expect(run.codes >= 1 && run.codes == emitted(run.stderr), "every emitted code written: \(run.stderr)")
        }
        #expect(statuses == Array(repeating: 0, count: 20), "exit statuses: \(statuses)")
    }

    /// The reported case: a broker stopped for seconds and started again, then the stop.
    @Test func sigtermAndTheEndOfInputAfterABrokerReconnectExitZero() throws {
        let broker = try MosquittoBroker()
        let frames = try stopFrames(3, prefix: "reconnect")
        for round in 0..<3 {
            let run = try stopTogether(["--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/stop\(round)"],
                                       frames: frames) { daemon in
                broker.stop()
                pause(.seconds(2))
                try broker.start()
                // The client reconnects (backoff from 0.5 s) before the stop.
                #expect(waitUntil(every: .milliseconds(50)) {
                    broker.log.components(separatedBy: "New client connected").count >= 2 * (round + 1)
                }, "round \(round): the client reconnected")
            }
            #expect(run.status == 0, "round \(round): stderr: \(run.stderr)")
            #expect(!run.stderr.contains("ServiceGroupError"), "round \(round): stderr: \(run.stderr)")
            #expect(run.codes >= 1 && run.codes == emitted(run.stderr), "round \(round): every emitted code written: \(run.stderr)")
        }
    }
}
