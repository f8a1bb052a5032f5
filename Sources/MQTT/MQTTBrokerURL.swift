import Media

/// A broker address: `mqtt://HOST[:PORT]` (1883) or `mqtts://HOST[:PORT]` (TLS, 8883).
public struct MQTTBrokerURL: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool

    /// Parses `text`; the error says what is wrong, showing `text` with any credentials hidden
    /// (`SecretRedaction`, all of a userinfo: `mqtt://***@host`).
    public init(parsing text: String) throws(MQTTURLError) {
        let shown = SecretRedaction.redacted(text, hiding: .userinfo)
        let scheme: String
        let rest: Substring
        if text.hasPrefix("mqtt://") { (scheme, rest) = ("mqtt", text.dropFirst(7)) }
        else if text.hasPrefix("mqtts://") { (scheme, rest) = ("mqtts", text.dropFirst(8)) }
        else { throw MQTTURLError("\"\(shown)\" is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]") }
        tls = scheme == "mqtts"
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        if authority.contains(where: { "/@?#".contains($0) }) {
            throw MQTTURLError("\"\(shown)\" has a path, query or user part; give mqtt://HOST:PORT (credentials: mqtt.username, mqtt.password_file)")
        }
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {  // [IPv6]:port
            guard let close = authority.firstIndex(of: "]") else { throw MQTTURLError("\"\(shown)\": unclosed [ in the host") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty { throw MQTTURLError("\"\(shown)\": expected :PORT after ]") }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw MQTTURLError("\"\(shown)\" has no host") }
        host = String(hostPart)
        if let portPart {
            guard let p = Int(portPart), (1...65535).contains(p) else { throw MQTTURLError("\"\(shown)\": the port must be 1–65535") }
            port = p
        } else {
            port = tls ? 8883 : 1883
        }
    }

    public var description: String {
        "\(tls ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

/// A broker URL that does not parse.
public struct MQTTURLError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
