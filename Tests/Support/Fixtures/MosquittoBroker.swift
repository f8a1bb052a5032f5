import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real Mosquitto broker (`mosquitto -c CONF`) on 127.0.0.1 on a free port, for tests;
/// stopped when released. Persistence is on in its own directory, so a subscriber's session
/// and its queued QoS 1 messages survive `stop()` + `start()` (SIGTERM saves them).
public final class MosquittoBroker: @unchecked Sendable {
    public let port: Int
    public let directory: String
    private var process: ChildProcess?

    /// Starts a broker; throws when `mosquitto` is missing (apt: mosquitto) or never listens.
    /// With `users` (name → password) it accepts only those (a `mosquitto_passwd` file), no anonymous clients.
    public init(users: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-mosquitto-\(UUID().uuidString)").path
        // mosquitto started as root runs as the `mosquitto` user: it must be able to write here.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o777])
        port = try Self.freePort()
        var access = "allow_anonymous true"
        if !users.isEmpty {
            let passwords = directory + "/passwords"
            for (name, password) in users.sorted(by: { $0.key < $1.key }) {
                let created = FileManager.default.fileExists(atPath: passwords)
                let result = try ExternalTool.run("mosquitto_passwd", (created ? [] : ["-c"]) + ["-b", passwords, name, password])
                guard result.status == 0 else { throw FixtureError.toolFailed(result.describe()) }
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: passwords)
            access = "allow_anonymous false\npassword_file \(passwords)"
        }
        let conf = """
        listener \(port) 127.0.0.1
        \(access)
        persistence true
        persistence_location \(directory)/
        log_dest file \(directory)/mosquitto.log
        """
        try conf.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `mqtt://127.0.0.1:PORT`.
    public var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Starts the broker (again) on the same port and waits until it accepts connections.
    public func start() throws {
        let p = try ChildProcess(["mosquitto", "-c", directory + "/mosquitto.conf"])
        process = p
        // The event: listening, or the broker gone.
        guard waitUntil(every: .milliseconds(20), { Self.accepts(port: port) || !p.isRunning }), p.isRunning else {
            if !p.isRunning { throw FixtureError.toolFailed("mosquitto exited with status \(p.wait()) (apt: mosquitto)") }
            throw FixtureError.toolFailed("mosquitto does not listen on 127.0.0.1:\(port)")
        }
    }

    /// Stops the broker with SIGTERM (it saves its sessions) and waits for it to exit.
    public func stop() {
        guard let p = process else { return }
        p.signal(SIGTERM)
        p.wait()
        process = nil
    }

    /// The broker's log so far.
    public var log: String { (try? String(contentsOfFile: directory + "/mosquitto.log", encoding: .utf8)) ?? "" }

    /// The broker's log lines saying a client whose id starts with `clientPrefix` went away without
    /// DISCONNECT (`Client ID closed its connection.`: the case where the broker sends its Will).
    public func closedWithoutDisconnect(clientPrefix: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains("Client \(clientPrefix)") && $0.hasSuffix("closed its connection.") }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (bound to port 0, read back, closed):
    /// for a server to bind; a test that wants a refused connection keeps a `RefusingPort` instead.
    public static func freePort() throws -> Int {
        try RefusingPort().port
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// `mosquitto_sub -v -t TOPIC` with a persistent QoS 1 session (`-c -i ID`) against a test
/// broker, its lines (`TOPIC PAYLOAD`) collected in a file; reconnects by itself after the
/// broker restarts. Stopped when released.
public final class MosquittoSubscriber: @unchecked Sendable {
    private let process: ChildProcess
    private let output: TemporaryFile

    public init(broker: MosquittoBroker, topic: String = "syncscan/#") throws {
        output = try TemporaryFile(contents: [], suffix: ".sub")
        let id = "syncscan-test-\(UUID().uuidString.prefix(8))"
        marker = "\(id) subscribed"
        // stdbuf: a line per message in the file as it arrives.
        process = try ChildProcess(["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", "\(broker.port)", "-v", "-q", "1",
                                    "-c", "-i", id, "-t", topic], stdout: .file(output.path))
        // Subscribed once a message of the test's own on a topic the filter matches comes back
        // (the event: an earlier one may go out before SUBSCRIBE and be lost, so it is sent again).
        let markerTopic = topic.hasSuffix("#") ? topic.dropLast() + "subscribed" : Substring(topic)
        let file = output.path, marker = marker
        let subscribed = try waitUntil(every: .milliseconds(200)) {
            _ = try ExternalTool.run("mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", String(markerTopic), "-m", marker])
            return ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").contains(marker)
        }
        guard subscribed else { throw FixtureError.toolFailed("mosquitto_sub -t \(topic) did not subscribe: \(broker.log.suffix(500))") }
    }

    /// The payload of the test's own messages that proved the subscription (left out of `messages`).
    private let marker: String

    /// SIGTERM, then SIGKILL past 5 s: mosquitto_sub's SIGTERM handler calls
    /// `mosquitto_disconnect_v5`, which can wait forever on a lock the interrupted code holds (seen:
    /// a test hung 20 minutes here with mosquitto_sub parked in the handler).
    deinit {
        process.signal(SIGTERM)
        _ = process.wait(timeout: .seconds(5))
    }

    /// Every message so far, as (topic, payload), in arrival order; an empty payload (which
    /// `mosquitto_sub` prints as `(null)`: a retained message deleted) as "".
    public var messages: [(topic: String, payload: String)] {
        let text = (try? String(contentsOfFile: output.path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasSuffix(" " + marker) }.map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            let payload = parts.count > 1 ? String(parts[1]) : ""
            return (String(parts[0]), payload == "(null)" ? "" : payload)
        }
    }

    /// Waits until `done(messages)` (at most `timeout`: a hang guard); the messages then.
    @discardableResult
    public func wait(timeout: Duration = hangTimeout, until done: ([(topic: String, payload: String)]) -> Bool) -> [(topic: String, payload: String)] {
        var now = messages
        waitUntil(timeout: timeout, every: .milliseconds(50)) {
            now = messages
            return done(now)
        }
        return now
    }

    /// The retained message on `topic` now (the first, for a filter), or nil.
    ///
    /// Waits for an event, not for a time: `mosquitto_sub -C 1 --retained-only` ends at the first
    /// retained message, or at the first message that is not retained. A subscriber gets the
    /// retained messages of its subscription before anything published after it subscribed, so a
    /// marker of the test's own on a second topic of the same subscriber, published until it
    /// ends the read, says that no retained message is there.
    public static func retained(on topic: String, broker: MosquittoBroker) throws -> String? {
        let output = try TemporaryFile(contents: [], suffix: ".retained")
        let errors = try TemporaryFile(contents: [], suffix: ".stderr")
        let marker = "syncscan-test/no-more-retained/\(UUID().uuidString)"
        let reader = try ChildProcess(["mosquitto_sub", "-h", "127.0.0.1", "-p", "\(broker.port)", "-t", topic, "-t", marker,
                                       "-C", "1", "--retained-only"], stdout: .file(output.path), stderr: .file(errors.path))
        let ended = try waitUntil(every: .milliseconds(100)) {
            guard reader.isRunning else { return true }
            _ = try ExternalTool.run("mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", marker, "-m", "end"])
            return !reader.isRunning
        }
        guard ended else {
            reader.signal(SIGKILL)
            reader.wait()
            throw FixtureError.toolFailed("mosquitto_sub -t \(topic) --retained-only did not end: \(broker.log.suffix(500))")
        }
        let status = ChildProcess.exitStatus(reader.wait())
        let text = (try? String(contentsOfFile: output.path, encoding: .utf8)) ?? ""
        guard status == 0 || !text.isEmpty else {
            throw FixtureError.toolFailed("mosquitto_sub -t \(topic) exited with status \(status): "
                                          + ((try? String(contentsOfFile: errors.path, encoding: .utf8)) ?? ""))
        }
        return text.isEmpty ? nil : text.trimmingCharacters(in: .newlines)
    }
}
