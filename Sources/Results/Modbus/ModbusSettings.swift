import ConfigurationKeys
import HTTP

/// The Modbus TCP server (`modbus.*`): where it listens, how many clients, how long an idle one is kept.
public struct ModbusSettings: Sendable, Hashable {
    /// `modbus.listen`: a loopback address unless `allowRemote`.
    public var listen: HTTPListenAddress
    /// `modbus.allow_remote`: a non-loopback `listen` is allowed.
    public var allowRemote = false
    /// Clients connected at once; one more is closed at once (`modbus_clients_refused`).
    public var maxClients = 8
    /// A client that sends nothing for this long is closed (`modbus_clients_idle_closed`), so one
    /// that connects and never sends holds its slot for this long at most.
    public var idleTimeout: Duration = .seconds(60)

    public init(listen: HTTPListenAddress) { self.listen = listen }
}

extension ModbusSettings: ConfigurationSection {
    /// Reads `modbus.*` (given `keys.scoped(to: "modbus")`); every key is read whether or not
    /// `modbus.listen` is set. `nil`: no `modbus.listen`, no server.
    public init?(reading keys: ConfigurationKeyReader) {
        let form = "ADDRESS:PORT with a numeric address (127.0.0.1:1502, [::1]:1502, localhost:1502)"
        var listen: HTTPListenAddress?
        if let text = keys.string("listen", form) {
            listen = HTTPListenAddress(parsing: text)
            if listen == nil { keys.problem("listen", "\"\(text)\" is not \(form)") }
        }
        self.init(listen: listen ?? HTTPListenAddress(host: "127.0.0.1", port: 0))
        if let v = keys.bool("allow_remote") { allowRemote = v }
        if let v = keys.int("max_clients", in: 1...256, " (Modbus clients connected at once; one more is closed)") { maxClients = v }
        if let v = keys.int("idle_timeout_ms", in: 100...3_600_000, " (a client silent this long is closed)") { idleTimeout = .milliseconds(v) }
        guard let listen else { return nil }
        if !listen.isLoopback && !allowRemote {
            keys.problem("listen", "\(listen) is not a loopback address: listen on 127.0.0.1, or set \(keys.fullKey("allow_remote")): true "
                         + "to serve other machines (Modbus has no authentication: a firewall must keep others out)")
        }
    }
}
