#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// GStreamer's own RTSP server (`scripts/rtsp-test-server.py` through Debian's python3-gi and
/// gir1.2-gst-rtsp-server-1.0) on a free loopback port, serving H.264 of `frames`, looped; with
/// `credentials`, only to a client giving them (HTTP Basic, else 401 Unauthorized).
public final class RTSPTestServer: @unchecked Sendable {
    public let port: Int
    public let directory: String
    private let frameCount: Int
    private let framesPerSecond: Int
    /// `USER:PASSWORD` the server demands, or nil.
    private let credentials: String?
    /// Every `every`-th frame held `milliseconds` before it is sent, or nil.
    private let hold: (every: Int, milliseconds: Int)?
    private var process: ChildProcess?

    /// Writes `frames` as PGM files and starts the server; throws when it does not listen within 10 s.
    /// Frame N of the stream (counted across loops) is stamped N / `framesPerSecond` s: its RTP timestamp.
    /// - Parameters:
    ///   - credentials: `USER:PASSWORD` a client must give; nil: no authentication.
    ///   - hold: every `every`-th frame held `milliseconds` before it is sent, the frames behind
    ///     it then sent late in a burst (their timestamps unchanged); nil: sent on time.
    public init(frames: [GreyFrame], framesPerSecond: Int = 10, credentials: String? = nil,
                hold: (every: Int, milliseconds: Int)? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-rtsp-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (n, frame) in frames.enumerated() {
            try Data(frame.pgmBytes()).write(to: URL(fileURLWithPath: "\(directory)/frame-\(n).pgm"))
        }
        frameCount = frames.count
        self.framesPerSecond = framesPerSecond
        self.credentials = credentials
        self.hold = hold
        port = try MosquittoBroker.freePort()
        try start()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `rtsp://[CREDENTIALS@]127.0.0.1:PORT/PATH`.
    public func url(credentials: String? = nil, path: String = "test") -> String {
        "rtsp://\(credentials.map { $0 + "@" } ?? "")127.0.0.1:\(port)/\(path)"
    }

    /// Starts the server (again) on the same port; returns once it prints that it listens.
    public func start() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/rtsp-test-server.py").path
        let out = "\(directory)/server-\(UUID().uuidString).out"
        let options = hold.map { ["--hold=\($0.every):\($0.milliseconds)"] } ?? []
        let p = try ChildProcess(["/usr/bin/python3", script] + options + ["\(port)", "\(directory)/frame-%d.pgm", "\(frameCount)", "\(framesPerSecond)"] + (credentials.map { [$0] } ?? []),
                                 stdout: .file(out), stderr: .file(out))
        process = p
        // The event: the server says it listens, or it is gone.
        var text = ""
        let listening = waitUntil(every: .milliseconds(20)) {
            text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            return text.contains("listening \(port)") || !p.isRunning
        }
        if listening && text.contains("listening \(port)") { return }
        if !p.isRunning {
            throw FixtureError.toolFailed("rtsp-test-server.py exited (apt: python3-gi gir1.2-gst-rtsp-server-1.0): \(text)")
        }
        throw FixtureError.toolFailed("rtsp-test-server.py does not listen on 127.0.0.1:\(port)")
    }

    /// Kills the server (SIGKILL: its connections reset, as a camera losing power) and waits for its exit.
    public func kill() {
        guard let p = process else { return }
        p.signal(SIGKILL)
        _ = p.wait()
        process = nil
    }
}
