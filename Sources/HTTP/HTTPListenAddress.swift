/// Where the HTTP server listens: a numeric IPv4 or IPv6 address and a port (`127.0.0.1:8080`,
/// `[::1]:8080`; `localhost:8080` is `127.0.0.1:8080`). Port 0 picks a free port.
public struct HTTPListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) { (self.host, self.port) = (host, port) }

    /// `nil` when `text` is not `ADDRESS:PORT` with a numeric address and a port from 0 to 65535.
    public init?(parsing text: String) {
        let hostPart: Substring, portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
            guard hostPart.contains(":"), hostPart.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            let octets = hostPart.split(separator: ".", omittingEmptySubsequences: false)
            guard hostPart == "localhost" || (octets.count == 4 && octets.allSatisfy { UInt8($0) != nil }) else { return nil }
        }
        guard let port = Int(portPart), (0...65535).contains(port) else { return nil }
        self.host = hostPart == "localhost" ? "127.0.0.1" : String(hostPart)
        self.port = port
    }

    /// Whether only this machine can connect: 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        host.hasPrefix("127.") || host == "::1" || host == "0:0:0:0:0:0:0:1"
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
