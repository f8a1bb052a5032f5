import Foundation
import SystemCalls
import TestSupport
import Testing

/// `syncscan run --source rtsp://…` against GStreamer's own RTSP server (`RTSPTestServer`) on a
/// free loopback port: the camera killed and restarted under the same process; a camera that
/// demands credentials; the password in no output.
@Suite(.offThePool) struct RTSPRunTests {
    static let codes = (0..<6).map { "frame-\($0)" }

    static func frames() throws -> [GreyFrame] { try codes.map { try GreyFrame.withQRCode($0).frame } }

    /// The live view's port, from the daemon's `url=http://127.0.0.1:PORT` log line.
    static func httpPort(_ daemon: RunningDaemon) throws -> Int {
        try #require(daemon.stderr.range(of: "url=http://127.0.0.1:").map { Int(daemon.stderr[$0.upperBound...].prefix { $0.isNumber }) } ?? nil)
    }

    /// Each `(name, text)` holds none of `passwords`.
    static func expectNoPassword(_ passwords: [String], in outputs: [(name: String, text: String)]) {
        for (name, text) in outputs {
            for password in passwords { #expect(!text.contains(password), "the password \(password) in \(name)") }
        }
    }

    /// The stdout lines as one text.
    static func stdoutText(_ daemon: RunningDaemon) -> String {
        daemon.stdoutPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
    }

    @Test func aRestartedCameraIsReopenedBySameProcessAndThePasswordIsNeverShown() throws {
        let server = try RTSPTestServer(frames: try Self.frames())
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

        let status = try HTTPTestConnection.request("/status", port: try Self.httpPort(daemon))
        #expect(status.text.contains("rtsp://viewer:***@127.0.0.1:\(server.port)/test"), "\(status.text)")

        daemon.send(SIGTERM)
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("discontinuity=1"), "the restart is one discontinuity: \(daemon.stderr)")
        #expect(daemon.stderr.components(separatedBy: "gstreamer input lost").count == 2, "the loss logged once")
        Self.expectNoPassword(["hunter2"], in: [("stdout", Self.stdoutText(daemon)), ("stderr", daemon.stderr), ("/status", status.text)])
    }

    /// A camera that demands `viewer:hunter2`: a wrong password, a wrong path and a refused port
    /// each end `syncscan run` at start with one error line naming the source (the password as
    /// `***`), GStreamer's reason and what to check; the right password reads every code, and
    /// no password given is in the stdout, stderr or `/status` of any run.
    @Test func wrongCredentialsAreAClearErrorAndRightOnesReadEveryCode() throws {
        let server = try RTSPTestServer(frames: try Self.frames(), credentials: "viewer:hunter2")
        let refused = try MosquittoBroker.freePort()
        let failures: [(url: String, shown: String, says: String)] = [
            (server.url(credentials: "viewer:letmein"), "rtsp://viewer:***@127.0.0.1:\(server.port)/test",
             "Unauthorized; the server refused the credentials: check the user name and password in the URI"),
            (server.url(credentials: "viewer:hunter2", path: "nothing"), "rtsp://viewer:***@127.0.0.1:\(server.port)/nothing",
             "Not found; the server has no stream at that path: check the path in the URI"),
            ("rtsp://viewer:hunter2@127.0.0.1:\(refused)/test", "rtsp://viewer:***@127.0.0.1:\(refused)/test",
             "cannot connect: check the address and port, and that the camera or server is up"),
        ]
        for (url, shown, says) in failures {
            // --max-frames: a run that wrongly plays the stream ends at once, rather than at the hang guard.
            let run = try SyncscanProcess.run(["run", "--source", url, "--max-frames", "1"])
            #expect(run.status == 1, "\(run.stderr)")
            let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("syncscan: error: ") }
            #expect(errors.count == 1 && errors.first?.contains("error: \(shown): ") == true && errors.first?.contains(says) == true,
                    "\(run.stderr)")
            Self.expectNoPassword(["hunter2", "letmein"], in: [("stdout", String(decoding: run.stdout, as: UTF8.self)), ("stderr", run.stderr)])
        }

        let daemon = try RunningDaemon(["run", "--source", server.url(credentials: "viewer:hunter2"), "--engine", "zbar",
                                        "--duplicate-window", "0", "--http", "127.0.0.1:0"])
        defer { if daemon.process.isRunning { daemon.send(SIGKILL) } }
        let read = { Set(daemon.records("code").compactMap { $0["text"] as? String }) }
        #expect(waitUntil { read() == Set(Self.codes) || !daemon.process.isRunning }, "every code: \(daemon.stderr)")
        let status = try HTTPTestConnection.request("/status", port: try Self.httpPort(daemon))
        #expect(status.text.contains("rtsp://viewer:***@127.0.0.1:\(server.port)/test"), "\(status.text)")
        daemon.send(SIGTERM)
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        #expect(daemon.records("code").allSatisfy { $0["source"] as? String == "rtsp://viewer:***@127.0.0.1:\(server.port)/test" })
        Self.expectNoPassword(["hunter2"], in: [("stdout", Self.stdoutText(daemon)), ("stderr", daemon.stderr), ("/status", status.text)])
    }
}
