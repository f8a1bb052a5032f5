import Foundation
import TestSupport
import Testing

/// SIGHUP, SIGUSR1, SIGTERM and SIGINT from the daemon's first moments on are never fatal: each is
/// held from the first instruction of `syncscan-start` (as the systemd units start syncscan),
/// counted from syncscan's own first code, and acted on once the daemon can.
@Suite(.serialized, .offThePool) struct EarlySignalRunTests {
    /// After the start's first instruction ran (its signal mask holds the four): at once, 10 ms and 50 ms.
    static let delays: [Duration] = [.zero, .milliseconds(10), .milliseconds(50)]
    /// 20 a delay; 3 under a sanitizer (scripts/sanitize.sh), whose runs look for races and
    /// memory errors in the same paths, not for how often a signal is survived.
    static let attempts = ProcessInfo.processInfo.environment["UNIT_TEST_SANITIZER"] == nil ? 20 : 3

    /// `systemd/syncscan-start.c`, built as `make install` builds it (static), once.
    static let start: String? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-start-\(getpid())").path
        let built = try? ExternalTool.run("cc", ["-static", "-O2", "-Wall", "-Werror", "-o", out, root.appendingPathComponent("systemd/syncscan-start.c").path])
        return built?.status == 0 ? out : nil
    }()

    /// Whether process `pid` blocks (`SigBlk` in /proc: syncscan-start ran) or catches (`SigCgt`:
    /// syncscan trapped them) SIGTERM, SIGINT, SIGHUP and SIGUSR1.
    private static func holdsTheFourSignals(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        let four = [SIGTERM, SIGINT, SIGHUP, SIGUSR1].reduce(UInt64(0)) { $0 | (1 << UInt64($1 - 1)) }
        return ["SigBlk:", "SigCgt:"].contains { field in
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
                  let mask = UInt64(line.dropFirst(field.count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
            return mask & four == four
        }
    }

    /// Starts the daemon on `y4m:-`, sends `signal` `delay` after its exec, feeds QR frames
    /// every 30 ms until `actedOn` holds (or a hang's deadline), then ends its input; whether it
    /// held, the exit status and what the daemon wrote to stderr.
    private func run(signal: Int32, after delay: Duration, environment: [String: String] = [:], frames: [[UInt8]],
                     actedOn: (RunningDaemon) -> Bool) throws -> (acted: Bool, status: Int32, stderr: String) {
        let start = try #require(Self.start, "cc -static systemd/syncscan-start.c failed")
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--emit-frames"], environment: environment, launcher: [start])
        // The start's first instruction: its mask holds the four (syncscan unblocks them once trapped).
        #expect(waitUntil(every: .microseconds(20)) { Self.holdsTheFourSignals(daemon.pid) })
        if delay > .zero { pause(delay) }
        daemon.send(signal)
        daemon.feed(Y4MStream(width: 160, height: 120).header)
        let acted = daemon.feedFrames(frames, every: .milliseconds(30)) { actedOn(daemon) }
        daemon.closeStdin()
        return (acted, daemon.wait(), daemon.stderr)
    }

    @Test func anEarlySighupIsNotFatalAndReloadsOnceTheDaemonCan() throws {
        let frames = try qrFrameBytes(1, prefix: "early-hup")
        for delay in Self.delays {
            for attempt in 0..<Self.attempts {
                let (acted, status, stderr) = try run(signal: SIGHUP, after: delay, frames: frames) {
                    $0.stderr.contains("reloaded configuration")
                }
                #expect(acted && status == 0, "SIGHUP \(delay) after exec, attempt \(attempt): exit \(status); stderr: \(stderr)")
            }
        }
    }

    @Test func anEarlySigusr1IsNotFatalAndPressesOnceTheDaemonCan() throws {
        let frames = try qrFrameBytes(1, prefix: "early-usr1")
        for delay in Self.delays {
            for attempt in 0..<Self.attempts {
                let (acted, status, stderr) = try run(signal: SIGUSR1, after: delay, environment: ["SYNCSCAN_TRIGGER_MODE": "triggered"],
                                                      frames: frames) { !$0.records("read_result").isEmpty }
                #expect(acted && status == 0, "SIGUSR1 \(delay) after exec, attempt \(attempt): exit \(status); stderr: \(stderr)")
                #expect(stderr.contains(" triggers=1 "), "one press: \(stderr)")
            }
        }
    }

    @Test func anEarlySigtermStopsGracefully() throws {
        let start = try #require(Self.start, "cc -static systemd/syncscan-start.c failed")
        for delay in Self.delays {
            for attempt in 0..<Self.attempts {
                let daemon = try RunningDaemon(["run", "--source", "y4m:-"], launcher: [start])
                #expect(waitUntil(every: .microseconds(20)) { Self.holdsTheFourSignals(daemon.pid) })
                if delay > .zero { pause(delay) }
                daemon.send(SIGTERM)
                // Its input stays open: only the signal ends the run.
                let status = daemon.wait()
                let stderr = daemon.stderr
                #expect(status == 0 && stderr.contains("SIGTERM: stopping") && stderr.contains("summary: frames=0"),
                        "SIGTERM \(delay) after exec, attempt \(attempt): exit \(status); stderr: \(stderr)")
            }
        }
    }
}
