/// A libmosquitto call failed: which call, the library's code and reason, and what to do.
public struct MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The libmosquitto function that failed (`mosquitto_connect_async`, `mosquitto_loop`, …), or
    /// `CONNACK` when the broker refused the connection.
    public var call: String
    /// libmosquitto's `MOSQ_ERR_*` code, or the CONNACK return code for `CONNACK`.
    public var code: Int32
    /// `errno` when the code is `MOSQ_ERR_ERRNO`.
    public var errno: Int32?
    public var reason: String

    public init(call: String, code: Int32, errno: Int32? = nil, reason: String) {
        (self.call, self.code, self.errno, self.reason) = (call, code, errno, reason)
    }

    /// A name for the kind of failure, the same for each repetition (logged once per kind).
    public var kind: String {
        if let errno { return "\(call) errno \(errno)" }
        return "\(call) \(code)"
    }

    /// What to do about it.
    public var advice: String {
        if call == "CONNACK" {
            return code == 4 || code == 5
                ? "check mqtt.username and mqtt.password_file against the broker's password file and ACLs"
                : "check the broker's listener settings and its log"
        }
        switch code {
        case 15, 20: return "check the host name in mqtt.url (DNS lookup failed)"
        case 8, 23: return "check mqtt.ca_file and that the broker's certificate matches the host name in mqtt.url"
        case 14 where errno == 111: return "check that the broker runs and listens on the host and port of mqtt.url"
        case 14: return "check the network path to the broker (firewall, IPAddressAllow= in the unit) and mqtt.url"
        case 7, 4: return "the broker or the network went away; messages wait and are sent on reconnect"
        default: return "check mqtt.url and the broker's log"
        }
    }

    public var description: String { "\(call) failed: \(reason); \(advice)" }
}
