import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP(S) receiver for webhook tests: `Scripts/webhook-receiver.py` (Python's
/// `http.server`) on 127.0.0.1 on a free port, recording every POST; stopped when released.
/// `answer` changes what it replies from the next request on; `stop()` + `start()` keep the port.
public final class WebhookReceiver: @unchecked Sendable {
    /// One POST the receiver got.
    public struct Request: Sendable, Decodable {
        public var path: String
        /// The `Idempotency-Key` header.
        public var key: String?
        /// The `Authorization` header.
        public var authorization: String?
        public var content_type: String?
        /// What the receiver answered.
        public var status: Int
        /// When it arrived: the receiver's monotonic clock, in seconds.
        public var time: Double
        /// When it arrived: the wall clock, in seconds since 1970 (against a code's `time`).
        public var wall: Double
        public var body: String
    }

    public let port: Int
    public let directory: TemporaryDirectory
    private let tls: SelfSignedCertificate?
    private var process: ChildProcess?

    /// Starts the receiver; with `tls`, HTTPS with that certificate.
    public init(tls: SelfSignedCertificate? = nil) throws {
        directory = try TemporaryDirectory()
        port = try MosquittoBroker.freePort()
        self.tls = tls
        try start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT/hook` (`https://` with TLS).
    public var url: String { "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)/hook" }

    /// Starts the receiver (again) on the same port and waits until it accepts connections.
    public func start() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/webhook-receiver.py").path
        let listening = directory.path + "/listening"
        try? FileManager.default.removeItem(atPath: listening)
        var arguments = ["python3", script, "\(port)", directory.path]
        if let tls { arguments += ["--cert", tls.certificatePath, "--key", tls.keyPath] }
        let p = try ChildProcess(arguments, stderr: .file(directory.path + "/stderr"))
        process = p
        let up = waitUntil(timeout: hangTimeout) {  // the event: listening, or the receiver gone
            FileManager.default.fileExists(atPath: listening) && MosquittoBroker.accepts(port: port) || !p.isRunning
        }
        guard up, p.isRunning else {
            throw FixtureError.toolFailed("webhook-receiver.py did not listen on 127.0.0.1:\(port): "
                                          + ((try? String(contentsOfFile: directory.path + "/stderr", encoding: .utf8)) ?? ""))
        }
    }

    /// Stops the receiver (SIGTERM) and waits for it to exit: connections are refused until `start()`.
    public func stop() {
        guard let p = process else { return }
        p.signal(SIGTERM)
        p.wait()
        process = nil
    }

    /// What the receiver answers from the next request on: "200", "503", "400", "429 SECONDS".
    public func answer(_ mode: String) throws {
        try mode.write(toFile: directory.path + "/mode.new", atomically: false, encoding: .utf8)
        _ = rename(directory.path + "/mode.new", directory.path + "/mode")
    }

    /// Every POST so far, in arrival order.
    public var requests: [Request] {
        let text = (try? String(contentsOfFile: directory.path + "/requests.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }
}
