import Foundation
import SystemCalls
import TestSupport
import Testing

/// `syncscan run --source rtsp://…` against GStreamer's own RTSP server (`RTSPTestServer`) on a
/// free loopback port: the camera killed and restarted under the same process.
@Suite(.offThePool) struct RTSPRunTests {
    static let codes = (0..<6).map { "frame-\($0)" }

    @Test func aRestartedCameraIsReopenedBySameProcessAndThePasswordIsNeverShown() throws {
        let server = try RTSPTestServer(frames: try Self.codes.map { try GreyFrame.withQRCode($0).frame })
        let daemon = try RunningDaemon(["run", "--source", server.url(credentials: "viewer:hunter2"), "--engine", "zbar",
                                        "--duplicate-window", "0", "--http", "127.0.0.1:0"])
        defer { if daemon.process.isRunning { daemon.send(SIGKILL) } }
        func texts(from start: Int) -> Set<String> { Set(daemon.records("code").dropFirst(start).compactMap { $0["text"] as? String }) }

        #expect(waitUntil { texts(from: 0) == Set(Self.codes) || !daemon.process.isRunning }, "\(daemon.stderr)")
        let pid = daemon.pid
        server.kill()
        try server.start()  // same port
        #expect(daemon.waitForStderr("gstreamer input reopened"), "\(daemon.stderr)")
        let afterReopen = daemon.records("code").count
        #expect(waitUntil { texts(from: afterReopen) == Set(Self.codes) || !daemon.process.isRunning }, "codes after the reopen")
        #expect(daemon.process.isRunning && daemon.pid == pid)

        let port = try #require(daemon.stderr.range(of: "url=http://127.0.0.1:").map { Int(daemon.stderr[$0.upperBound...].prefix { $0.isNumber }) } ?? nil)
        let status = try HTTPTestConnection.request("/status", port: port)
        #expect(status.text.contains("rtsp://viewer:***@127.0.0.1:\(server.port)/test"), "\(status.text)")

        daemon.send(SIGTERM)
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("discontinuity=1"), "the restart is one discontinuity: \(daemon.stderr)")
        #expect(daemon.stderr.components(separatedBy: "gstreamer input lost").count == 2, "the loss logged once")
        let stdout = daemon.stdoutLines.compactMap { $0 }.map { "\($0)" }.joined(separator: "\n")
        for (name, text) in [("stdout", stdout), ("stderr", daemon.stderr), ("/status", status.text)] {
            #expect(!text.contains("hunter2"), "the password in \(name)")
        }
    }
}
