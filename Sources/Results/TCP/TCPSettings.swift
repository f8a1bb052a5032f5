import ConfigurationKeys
import HTTP

/// The TCP result server (`tcp.*`): where it listens, how many clients, how each message is made.
public struct TCPSettings: Sendable, Hashable {
    /// `tcp.listen`: a loopback address unless `allowRemote`.
    public var listen: HTTPListenAddress
    /// `tcp.allow_remote`: a non-loopback `listen` is allowed.
    public var allowRemote = false
    /// Clients connected at once; one more is sent an error line and closed (`tcp_clients_refused`).
    public var maxClients = 16
    /// Bytes one client may have waiting to be sent; a client past it is dropped (`tcp_clients_dropped_slow`).
    public var queueBytes = 64 << 10
    /// Each result's message.
    public var format: TCPMessageTemplate
    /// A `no_read` read window's message.
    public var noRead: TCPMessageTemplate
    /// Bytes before and after every message and reply (`tcp.prefix`, `tcp.suffix`).
    public var prefix: [UInt8] = []
    public var suffix: [UInt8] = [0x0D, 0x0A]
    /// `tcp.token`: what `TOKEN` must give before any other command, and before results are sent; `nil`: none.
    public var token: String?

    /// The longest command line a client may send, its line end not counted.
    public static let maxCommandBytes = 1024

    public init(listen: HTTPListenAddress) {
        self.listen = listen
        format = try! TCPMessageTemplate(parsing: "{text}")
        noRead = try! TCPMessageTemplate(parsing: "NOREAD")
    }
}

extension TCPSettings: ConfigurationSection {
    /// Reads `tcp.*` (given `keys.scoped(to: "tcp")`); every key is read whether or not `tcp.listen`
    /// is set. `nil`: no `tcp.listen`, no server.
    public init?(reading keys: ConfigurationKeyReader) {
        let form = "ADDRESS:PORT with a numeric address (127.0.0.1:2001, [::1]:2001, localhost:2001)"
        var listen: HTTPListenAddress?
        if let text = keys.string("listen", form) {
            listen = HTTPListenAddress(parsing: text)
            if listen == nil { keys.problem("listen", "\"\(text)\" is not \(form)") }
        }
        self.init(listen: listen ?? HTTPListenAddress(host: "127.0.0.1", port: 0))
        if let v = keys.bool("allow_remote") { allowRemote = v }
        if let v = keys.int("max_clients", in: 1...1024, " (clients connected at once; one more is refused)") { maxClients = v }
        if let v = keys.int("queue_bytes", in: 1024...(64 << 20), " (bytes waiting for one client; past them it is dropped)") { queueBytes = v }
        for (key, keyPath) in [("format", \TCPSettings.format), ("no_read", \TCPSettings.noRead)] {
            guard let text = keys.string(key, "a message template ({text}, {symbology}, {gs1:01}, …)") else { continue }
            do { self[keyPath: keyPath] = try TCPMessageTemplate(parsing: text) } catch { keys.problem(key, "\"\(text)\": \(error)") }
        }
        if let v = keys.string("prefix", "bytes (escapes \\x02, \\r, \\n)") { prefix = TCPFraming.bytes(unescaping: Array(v.utf8)) }
        if let v = keys.string("suffix", "bytes (escapes \\x03, \\r, \\n)") { suffix = TCPFraming.bytes(unescaping: Array(v.utf8)) }
        if let v = keys.string("token", "a token", isSecret: true) {
            if v.isEmpty || v.utf8.count > 256 || v.contains(where: { $0.isWhitespace }) {
                keys.problem("token", "must be 1 to 256 bytes without spaces")
            } else {
                token = v
            }
        }
        guard let listen else { return nil }
        if !listen.isLoopback && !allowRemote {
            keys.problem("listen", "\(listen) is not a loopback address: listen on 127.0.0.1, or set \(keys.fullKey("allow_remote")): true "
                         + "(and \(keys.fullKey("token"))) to serve other machines")
        }
    }
}
