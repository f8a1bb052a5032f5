import Foundation
import SystemCalls
import TestSupport
import Testing

/// `syncscan run --http 127.0.0.1:0` on a live pipe of QR frames, fed at 10 frames/s by a thread
/// of its own until the test ends; the port is the one the daemon logs.
final class LiveViewDaemon: @unchecked Sendable {
    static let payload = "syncscan live view"
    let daemon: RunningDaemon
    let port: Int
    private let stop = LockedValue(false)
    private let fed = LockedValue(0)

    /// - Parameters:
    ///   - frames: frames to feed (`nil`: until released), then stdin is closed.
    ///   - activatedPort: syncscan runs under `systemd-socket-activate -l 127.0.0.1:PORT`, started
    ///     by a first request to that port.
    ///   - scene: the 640x480 frame fed every time; `nil`: a QR code of `payload` at (240, 220).
///   - scenes: 640x480 frames fed in turn, again and again (instead of `scene`).
    ///   - suppressingDuplicates: the default duplicate window (a code in view is one line);
    ///     false: `--duplicate-window 0` (a line for every frame's code).
    ///   - inFlight: at most this many frames fed and not yet answered by a code line (the
    ///     feeder waits for the line, `hangTimeout` at most): a slow scanner, not the pacing,
    ///     sets the rate, so frames never pile up past the session's queue; `nil`: 10 frames/s.
    init(_ arguments: [String] = [], frames: Int? = nil, activatedPort: Int? = nil, scene: GreyFrame? = nil,
         scenes: [GreyFrame] = [], suppressingDuplicates: Bool = false, inFlight: Int? = nil) throws {
        var frame = GreyFrame(width: 640, height: 480, background: 200)
        frame.draw(try ModuleMatrix.qrCode(Array(Self.payload.utf8)), centerX: 240, centerY: 220, moduleSize: 6)
        if let scene { frame = scene }
        let stream = Y4MStream(width: 640, height: 480)
        daemon = try RunningDaemon(["run", "--source", "y4m:-", "--http", "127.0.0.1:0"]
                                       + (suppressingDuplicates ? [] : ["--duplicate-window", "0"]) + arguments,
                                   launcher: activatedPort.map { ["systemd-socket-activate", "-l", "127.0.0.1:\($0)"] } ?? [])
        daemon.feed(stream.header)
        let (daemon, stop, fed) = (self.daemon, self.stop, self.fed)
        let fedFrames = scenes.isEmpty ? [stream.frame(frame)] : scenes.map(stream.frame)
        Thread {
            while !stop.withLock({ $0 }) && fed.withLock({ $0 }) < (frames ?? .max) {
                if let inFlight {
                    let sent = fed.withLock { $0 }, deadline = ContinuousClock.now + hangTimeout
                    while ContinuousClock.now < deadline && !stop.withLock({ $0 }) && daemon.process.isRunning
                            && daemon.stdoutLines.count { ($0?["type"] as? String) == "code" } < sent - inFlight + 1 {
                        stop.withLock(when: { $0 }, deadline: .now + .milliseconds(20)) { _, _ in }
                    }
                }
                guard daemon.feed(fedFrames[fed.withLock { $0 } % fedFrames.count]) else { break }
                fed.withLock { $0 += 1 }
                // Paced at 10 frames/s: a timed wait on the stop flag.
                stop.withLock(when: { $0 }, deadline: .now + .milliseconds(100)) { _, _ in }
            }
            daemon.closeStdin()
        }.start()
        let deadline = ContinuousClock.now + hangTimeout
        // The first request starts syncscan, once the launcher listens (a refused connect is retried).
        while let activatedPort, ContinuousClock.now < deadline, daemon.process.isRunning,
              (try? HTTPTestConnection.request("/status", port: activatedPort)) == nil {
            stop.withLock(when: { $0 }, deadline: .now + .milliseconds(50)) { _, _ in }
        }
        var found: Int?
        while found == nil && ContinuousClock.now < deadline && daemon.process.isRunning {
            if let range = daemon.stderr.range(of: "url=http://127.0.0.1:") ?? daemon.stderr.range(of: "url=https://127.0.0.1:") {
                found = Int(daemon.stderr[range.upperBound...].prefix { $0.isNumber })
            } else {
                stop.withLock(when: { $0 }, deadline: .now + .milliseconds(50)) { _, _ in }
            }
        }
        guard let found else {
            // Killed, so the feeding thread's write fails and it lets go of the daemon.
            stop.withLock { $0 = true }
            daemon.send(SIGKILL)
            throw HarnessError("no live view URL in stderr: \(daemon.stderr)")
        }
        port = found
    }

    var framesFed: Int { fed.withLock { $0 } }

    /// The port of the `count`-th "live view serving" line (a reload that restarts the server logs
    /// another), waiting for it (at most `hangTimeout`).
    func port(ofServing count: Int) -> Int? {
        let deadline = ContinuousClock.now + hangTimeout
        while ContinuousClock.now < deadline {
            let lines = daemon.stderr.replacingOccurrences(of: "url=https://", with: "url=http://")
                .components(separatedBy: "url=http://127.0.0.1:").dropFirst()
            if lines.count >= count { return Int(lines[lines.startIndex + count - 1].prefix { $0.isNumber }) }
            stop.withLock(when: { _ in false }, deadline: .now + .milliseconds(50)) { _, _ in }
        }
        return nil
    }

    func get(_ path: String, method: String = "GET", headers: [String] = []) throws -> HTTPReply {
        try HTTPTestConnection.request(path, port: port, method: method, headers: headers)
    }

    /// `/snapshot.jpg` as a client that honours `503` with `Retry-After` gets it.
    func snapshot() throws -> HTTPReply { try snapshotReply(port: port) }

    /// Stops feeding, closes stdin and waits for the exit status.
    func finish() -> Int32 {
        stop.withLock { $0 = true }
        stop.broadcast()
        return daemon.wait()
    }

    deinit { if daemon.process.isRunning { _ = finish() } }
}

/// `/snapshot.jpg` as a client that honours `503` with `Retry-After` gets it: asked again each
/// second until a picture comes. The server waits 2 s for a fresh picture before its 503; under
/// ASan, with the whole suite running beside it, the first preview took longer (two tests got
/// the 503). The deadline is a hang's.
func snapshotReply(port: Int) throws -> HTTPReply {
    var reply = try HTTPTestConnection.request("/snapshot.jpg", port: port)
    waitUntil(every: .seconds(1)) {
        guard reply.status == 503, let next = try? HTTPTestConnection.request("/snapshot.jpg", port: port) else { return true }
        reply = next
        return reply.status != 503
    }
    return reply
}
