/// A libmodbus call failed: which call, its errno and reason, and what to do.
public struct ModbusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The libmodbus function that failed (`modbus_new_tcp`, `modbus_mapping_new_start_address`, `modbus_reply`, …).
    public var call: String
    /// `errno` after the call: a system errno (EPIPE, ECONNRESET, ENOMEM) or libmodbus's own (past `MODBUS_ENOBASE`).
    public var errno: Int32
    /// `modbus_strerror(errno)`.
    public var reason: String

    public init(call: String, errno: Int32, reason: String) { (self.call, self.errno, self.reason) = (call, errno, reason) }

    /// What to do about it.
    public var advice: String {
        switch errno {
        case 12: return "the machine is out of memory: free some, then restart syncscan"
        case 32, 104, 11: return "the client went away or stopped reading: it is closed; it may connect again"
        default: return "check the client's requests (a Modbus TCP client, unit 1) and syncscan's log"
        }
    }

    public var description: String { "\(call) failed: \(reason) (errno \(errno)); \(advice)" }
}
