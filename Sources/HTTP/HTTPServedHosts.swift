import Glibc

/// A name the server is reached by besides its address and `localhost` (an entry of
/// `http.allowed_hosts`): `camera.example.com` (any port) or `camera.example.com:8443` (that port).
public struct HTTPAllowedHost: Sendable, Hashable, CustomStringConvertible {
    /// Lower-case; an IP address in its numeric form (`192.0.2.7`, `2001:db8::7`, no brackets).
    public var name: String
    /// `nil`: any port, or none.
    public var port: Int?

    public init(name: String, port: Int? = nil) { (self.name, self.port) = (name.lowercased(), port) }

    /// `nil` when `text` is not a host name (letters, digits, `-` and `.`), an IPv4 address or a
    /// bracketed IPv6 address, optionally followed by `:PORT` (1 to 65535).
    public init?(parsing text: String) {
        guard let authority = HTTPAuthority(parsing: text), authority.port != 0 else { return nil }
        self.init(name: authority.host, port: authority.port)
    }

    public var description: String {
        let host = name.contains(":") ? "[\(name)]" : name
        return port.map { "\(host):\($0)" } ?? host
    }
}

/// Which `Host` headers and `Origin`s a server answers: what a browser names when it asks this
/// server, and never what a page of another site makes it send (DNS rebinding, cross-site requests).
///
/// A `Host` (or an `Origin`'s host and port) is served when it is `localhost`, the address and port
/// the connection arrived on (`local`; an IPv6 address in brackets), or one of `allowed`; the first
/// two with or without the port. The connection's own address, not the configured one, is what a
/// wildcard address (0.0.0.0, ::) and an inherited socket are reached by.
public struct HTTPServedHosts: Sendable, Hashable {
    public var allowed: [HTTPAllowedHost]

    public init(allowed: [HTTPAllowedHost] = []) { self.allowed = allowed }

    /// Whether `authority` (`HOST[:PORT]`, a `Host` header's value) names this server reached on `local`.
    public func serves(_ authority: String, local: HTTPSocketAddress?) -> Bool {
        guard let given = HTTPAuthority(parsing: authority) else { return false }
        let isOwn = given.host == "localhost" || given.host == local?.host
        if isOwn && (given.port == nil || given.port == local?.port) { return true }
        return allowed.contains { $0.name == given.host && ($0.port == nil || $0.port == given.port) }
    }

    /// Whether `origin` (an `Origin` header: `http://` or `https://` and a served authority, nothing
    /// after it) is a page of this server; `null` and every other form are not.
    public func servesOrigin(_ origin: String, local: HTTPSocketAddress?) -> Bool {
        let lower = origin.lowercased()
        for scheme in ["http://", "https://"] where lower.hasPrefix(scheme) {
            return serves(String(lower.dropFirst(scheme.count)), local: local)
        }
        return false
    }

    /// The answer for a request this server must not serve, before any route sees it: 421 for a
    /// `Host` not served (or none, in HTTP/1.1 and later), 403 for an `Origin` not served; `nil`
    /// for a request it serves.
    public func refusal(host: String?, origin: String?, version: String, local: HTTPSocketAddress?) -> HTTPResponse? {
        let served = "this server's address and port, localhost, or a name in http.allowed_hosts"
        if let host {
            guard serves(host, local: local) else {
                return .text("421 misdirected request: Host \"\(Self.shown(host))\" is not \(served)", status: 421)
            }
        } else if version != "HTTP/1.0" && version != "HTTP/0.9" {
            return .text("421 misdirected request: no Host header (\(Self.shown(version)) needs one)", status: 421)
        }
        if let origin, !servesOrigin(origin, local: local) {
            return .text("403 cross-site request refused: Origin \"\(Self.shown(origin))\" is not a page of \(served)", status: 403)
        }
        return nil
    }

    /// `text` for a one-line answer: printable ASCII, the rest `?`, at most 100 characters.
    static func shown(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(100).map { (0x20..<0x7F).contains($0.value) ? $0 : "?" }))
    }
}

/// A connection's own numeric address and port (`cmhd_local_address`).
public struct HTTPSocketAddress: Sendable, Hashable {
    /// Numeric, as `inet_ntop` writes it: `127.0.0.1`, `::1`.
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        (self.host, self.port) = (HTTPAuthority.numeric(host) ?? host.lowercased(), port)
    }
}

/// `HOST[:PORT]` as a `Host` header or an `http.allowed_hosts` entry writes it, the host
/// lower-cased and an IP address in `inet_ntop`'s form.
struct HTTPAuthority: Hashable {
    var host: String
    var port: Int?

    init?(parsing text: String) {
        let hostPart: Substring, portPart: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
            portPart = rest.isEmpty ? nil : rest.dropFirst()
            guard let address = Self.numeric(String(hostPart)), address.contains(":") else { return nil }
            host = address
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            hostPart = parts[0]
            portPart = parts.count == 2 ? parts[1] : nil
            let isName = hostPart.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "."
            }
            guard !hostPart.isEmpty, hostPart.count <= 253, isName, !hostPart.hasPrefix("."), !hostPart.hasPrefix("-"),
                  !hostPart.contains("..") else { return nil }
            host = Self.numeric(String(hostPart)) ?? hostPart.lowercased()
        }
        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5, portPart.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }), let port = Int(portPart),
                  (0...65535).contains(port) else { return nil }
            self.port = port
        } else {
            port = nil
        }
    }

    /// `text` as `inet_ntop` writes it when it is a numeric IPv4 or IPv6 address (`inet_pton`), else `nil`.
    static func numeric(_ text: String) -> String? {
        var bytes = [UInt8](repeating: 0, count: 16)
        var out = [CChar](repeating: 0, count: 64)
        for family in [AF_INET, AF_INET6] where inet_pton(family, text, &bytes) == 1 {
            guard inet_ntop(family, bytes, &out, socklen_t(out.count)) != nil else { return nil }
            return String(cString: out)
        }
        return nil
    }
}
