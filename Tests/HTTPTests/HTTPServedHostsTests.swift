import Foundation
import HTTP
import Logging
import SystemPackage
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket listening on `address`:0 (a free port), as systemd passes one; closed when released.
private final class ListeningSocket {
    let descriptor: Int32
    let port: Int

    init(address: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FixtureError.toolFailed("socket failed: errno \(errno)") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = inet_pton(AF_INET, address, &local.sin_addr) == 1 && withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        } && listen(fd, 16) == 0
        guard listening else {
            let code = errno
            close(fd)
            throw FixtureError.toolFailed("listen on \(address) failed: errno \(code)")
        }
        (descriptor, port) = (fd, Int(UInt16(bigEndian: local.sin_port)))
    }

    deinit { close(descriptor) }
}

/// One GET of `/status` on a connection to `address`:`port` with `Host: host`: the reply's status.
private func status(to address: String, port: Int, host: String) throws -> Int {
    let connection = try HTTPTestConnection(port: port, to: address)
    connection.send(Array("GET /status HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8))
    return HTTPReply(connection.receive())?.status ?? 0
}

@Suite(.offThePool) struct HTTPServedHostsTests {
    static let ok: HTTPServer.Handler = { _ in .text("ok", status: 200) }

    /// Bound to 0.0.0.0, the server's address is the one each connection arrived on: a client of
    /// 127.0.0.2 may name 127.0.0.2 but not 127.0.0.1, and the other way round.
    @Test func aWildcardAddressServesTheAddressEachConnectionArrivedOn() throws {
        let server = HTTPServer(address: HTTPListenAddress(host: "0.0.0.0", port: 0), maxConnections: 4, logger: Logger(label: "test"),
                                handler: Self.ok)
        try server.start()
        defer { server.stop() }
        let port = try #require(server.port)
        #expect(try status(to: "127.0.0.2", port: port, host: "127.0.0.2:\(port)") == 200)
        #expect(try status(to: "127.0.0.2", port: port, host: "127.0.0.1:\(port)") == 421)
        #expect(try status(to: "127.0.0.1", port: port, host: "127.0.0.1:\(port)") == 200)
        #expect(try status(to: "127.0.0.1", port: port, host: "127.0.0.2:\(port)") == 421)
        #expect(try status(to: "127.0.0.1", port: port, host: "0.0.0.0:\(port)") == 421, "the wildcard is no address a client reaches")
    }

    /// An inherited socket (systemd socket activation) serves its own address and port, whatever
    /// the configured address says.
    @Test func anInheritedSocketServesItsOwnAddress() throws {
        let socket = try ListeningSocket(address: "127.0.0.2")
        let configured = HTTPListenAddress(host: "127.0.0.1", port: socket.port == 65535 ? 1 : socket.port + 1)
        let server = HTTPServer(address: configured, listenDescriptor: FileDescriptor(rawValue: socket.descriptor), maxConnections: 4,
                                logger: Logger(label: "test"), handler: Self.ok)
        try server.start()
        defer { server.stop() }
        #expect(try status(to: "127.0.0.2", port: socket.port, host: "127.0.0.2:\(socket.port)") == 200)
        #expect(try status(to: "127.0.0.2", port: socket.port, host: "localhost:\(socket.port)") == 200)
        #expect(try status(to: "127.0.0.2", port: socket.port, host: "\(configured)") == 421, "not the configured address")
        #expect(try status(to: "127.0.0.2", port: socket.port, host: "127.0.0.1:\(socket.port)") == 421)
    }

    /// Bound to [::1]: `Host: [::1]:PORT` in any spelling of the address is served, the address
    /// without brackets or another name is not (curl over IPv6).
    @Test func anIPv6AddressIsServedInBrackets() throws {
        let server = HTTPServer(address: HTTPListenAddress(host: "::1", port: 0), maxConnections: 4, logger: Logger(label: "test"),
                                handler: Self.ok)
        try server.start()
        defer { server.stop() }
        let port = try #require(server.port)
        func curl(host: String?) throws -> String {
            let header = host.map { ["-H", "Host: \($0)"] } ?? []
            let result = try ExternalTool.run("curl", ["-sS", "-g", "--max-time", "20", "-o", "/dev/null", "-w", "%{http_code}"] + header
                                                      + ["http://[::1]:\(port)/status"])
            return String(decoding: result.stdout, as: UTF8.self)
        }
        #expect(try curl(host: nil) == "200", "curl's own Host: [::1]:\(port)")
        #expect(try curl(host: "[0:0:0:0:0:0:0:1]:\(port)") == "200")
        #expect(try curl(host: "[::1]") == "200")
        #expect(try curl(host: "::1:\(port)") == "421")
        #expect(try curl(host: "[::2]:\(port)") == "421")
        #expect(try curl(host: "evil.example:\(port)") == "421")
    }

    /// The rule itself: which authorities and origins are this server's, and what the refusals say.
    @Test func theRuleNamesTheServerAndNothingElse() {
        let local = HTTPSocketAddress(host: "192.0.2.7", port: 8080)
        let hosts = HTTPServedHosts(allowed: [HTTPAllowedHost(parsing: "Camera.Example.com")!, HTTPAllowedHost(parsing: "[2001:DB8::7]:8443")!])
        for served in ["192.0.2.7:8080", "192.0.2.7", "localhost", "LOCALHOST:8080", "camera.example.com", "camera.example.com:1",
                       "[2001:db8:0::7]:8443"] {
            #expect(hosts.serves(served, local: local), "\(served)")
        }
        for refused in ["192.0.2.7:8081", "192.0.2.8:8080", "localhost:8081", "localhost.", "evil.example", "[2001:db8::7]:8080",
                        "2001:db8::7", "[2001:db8::7", "camera.example.com:80:80", "camera.example.com:", "camera.example.com:+80",
                        "camera.example.com:99999", "", ":8080", "user@localhost:8080", "localhost:8080/x", "0300.0.2.7:8080"] {
            #expect(!hosts.serves(refused, local: local), "\(refused)")
        }
        #expect(!hosts.serves("192.0.2.7:8080", local: nil), "without the connection's address only names are served")
        let forwarded = HTTPServedHosts(allowed: [HTTPAllowedHost(name: "192.0.2.7", port: 9000)])
        #expect(forwarded.serves("192.0.2.7:9000", local: local) && !forwarded.serves("192.0.2.7:9001", local: local),
                "its own address on another port when listed so (a forwarded port)")
        #expect(hosts.servesOrigin("HTTP://192.0.2.7:8080", local: local) && hosts.servesOrigin("https://camera.example.com", local: local))
        for origin in ["null", "192.0.2.7:8080", "ftp://192.0.2.7:8080", "http://192.0.2.7:8080/", "http://evil.example:8080"] {
            #expect(!hosts.servesOrigin(origin, local: local), "\(origin)")
        }
        #expect(hosts.refusal(host: "localhost:8080", origin: nil, version: "HTTP/1.1", local: local) == nil)
        #expect(hosts.refusal(host: nil, origin: nil, version: "HTTP/1.0", local: local) == nil, "HTTP/1.0 needs no Host")
        #expect(hosts.refusal(host: nil, origin: nil, version: "HTTP/1.1", local: local)?.status == 421)
        let forged = hosts.refusal(host: "evil.example\u{7}\u{e9}:8080", origin: nil, version: "HTTP/1.1", local: local)
        #expect(forged?.status == 421)
        if case .bytes(let body)? = forged?.body {
            #expect(String(decoding: body, as: UTF8.self) == "421 misdirected request: Host \"evil.example??:8080\" is not this server's "
                    + "address and port, localhost, or a name in http.allowed_hosts\n")
        }
        #expect(hosts.refusal(host: "localhost:8080", origin: "null", version: "HTTP/1.1", local: local)?.status == 403)
        for bad in ["http://camera.example.com", "camera.example.com/x", "*.example.com", "camera example", "camera.example.com:0", ""] {
            #expect(HTTPAllowedHost(parsing: bad) == nil, "\(bad)")
        }
        #expect(HTTPAllowedHost(parsing: "[2001:DB8::7]:8443")?.description == "[2001:db8::7]:8443")
    }
}
