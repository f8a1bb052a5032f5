import Capture
import HTTP
import Logging
import Media
import SystemCalls
import TestSupport
import Testing
@testable import LiveView

/// A scan with nothing to report: the host checks need none.
private struct IdleScan: ScanReporting {
    func statistics() -> CaptureStatistics { CaptureStatistics() }
    func statusJSON() -> [UInt8] { Array("{\"state\":\"scanning\"}".utf8) }
    var currentSource: (any FrameSource)? { nil }
    func metricsExposition() -> [UInt8] { Array("syncscan_frames_total 0\n".utf8) }
}

/// The live view's server as the service makes it (`LiveViewHTTPService.server`) under
/// `settings`, with the trigger's endpoints; stopped when released.
private final class HostCheckedServer {
    let hub = LiveViewHub()
    let triggers = TriggerSwitch()
    let server: HTTPServer
    let port: Int

    init(_ settings: HTTPSettings = HTTPSettings(listen: HTTPListenAddress(host: "127.0.0.1", port: 0))) throws {
        let scan = IdleScan()
        let router = LiveViewRouter(hub: hub, scan: scan, status: LiveViewStatus(scan: scan), password: nil, triggers: triggers)
        server = LiveViewHTTPService.server(settings, router: router, logger: Logger(label: "test"))
        try server.start()
        port = server.port ?? 0
    }

    deinit {
        server.stop()
        hub.close()
    }
}

@Suite(.offThePool) struct LiveViewHostTests {
    /// Every route the live view has, and a path it has not, each with the method it serves.
    static let routes: [(method: String, path: String)] = [
        ("GET", "/"), ("GET", "/stream.mjpeg"), ("GET", "/snapshot.jpg"), ("GET", "/events"), ("GET", "/metrics"),
        ("GET", "/status"), ("GET", "/healthz"), ("HEAD", "/status"), ("POST", "/trigger"), ("POST", "/trigger/release"),
        ("GET", "/nothing-here"),
    ]

    /// DNS rebinding: a page at evil.example, its name rebound to this machine, has the browser
    /// send `Host: evil.example:PORT` (and its `Origin` with a POST). Every route answers 421 with
    /// one plain-text line before it runs, as it does a `Host` naming another port, a name ending
    /// in this server's, and an HTTP/1.1 request without one: nothing pressed, no stream opened.
    @Test func aForgedHostIsRefusedOnEveryRouteBeforeItRuns() throws {
        let live = try HostCheckedServer()
        let port = live.port
        let forged: [(host: String?, headers: [String])] = [
            ("evil.example:\(port)", []),
            ("evil.example:\(port)", ["Origin: http://evil.example:\(port)"]),
            ("evil.example", []),
            ("127.0.0.1.evil.example:\(port)", []),
            ("localhost.evil.example:\(port)", ["Origin: http://localhost.evil.example:\(port)"]),
            ("127.0.0.1:\(port == 65535 ? 1 : port + 1)", []),
            (nil, []),
        ]
        for route in Self.routes {
            for (host, headers) in forged {
                let reply = try HTTPTestConnection.request(route.path, port: port, method: route.method, host: host, headers: headers)
                let what = "\(route.method) \(route.path) with Host \(host ?? "(none)") \(headers)"
                #expect(reply.status == 421, "\(what): \(reply.status) \(reply.text)")
                #expect(reply.headers["content-type"] == "text/plain; charset=utf-8", "\(what): \(reply.headers)")
                if route.method != "HEAD" {
                    #expect(reply.text.hasPrefix("421 misdirected request: ") && reply.text.firstIndex(of: "\n") == reply.text.index(before: reply.text.endIndex),
                            "\(what): one line, \(reply.text)")
                }
            }
        }
        #expect(live.triggers.counts.pulls == 0, "nothing pressed")
        #expect(live.hub.viewers == 0, "no stream opened")
    }

    /// A page of another site, `Host` right (the browser asks this server by its own address):
    /// its `Origin` gets 403 on the trigger's endpoints and on every other route, nothing
    /// pressed; the server's own pages (`Origin` its address or `localhost` and its port) press.
    @Test func aForeignOriginIsRefusedEvenWithAServedHost() throws {
        let live = try HostCheckedServer()
        let port = live.port
        let foreign = ["http://evil.example:\(port)", "https://evil.example", "null", "http://127.0.0.1:\(port).evil.example",
                       "http://127.0.0.1:\(port == 65535 ? 1 : port + 1)", "file://", "http://127.0.0.1:\(port)/page"]
        for origin in foreign {
            for path in ["/trigger", "/trigger/release"] {
                let reply = try HTTPTestConnection.request(path, port: port, method: "POST", headers: ["Origin: \(origin)"])
                #expect(reply.status == 403 && reply.text.hasPrefix("403 cross-site request refused: "), "\(path) from \(origin): \(reply.status) \(reply.text)")
            }
        }
        for path in ["/status", "/metrics", "/events", "/stream.mjpeg", "/"] {
            let reply = try HTTPTestConnection.request(path, port: port, headers: ["Origin: http://evil.example:\(port)"])
            #expect(reply.status == 403, "GET \(path) from a foreign page: \(reply.status) \(reply.text)")
        }
        #expect(live.triggers.counts.pulls == 0, "nothing pressed from another site")
        #expect(live.hub.viewers == 0, "no stream opened for another site")
        let own = try HTTPTestConnection.request("/trigger", port: port, method: "POST", headers: ["Origin: http://127.0.0.1:\(port)"])
        #expect(own.status == 202, "\(own.status) \(own.text)")
        let local = try HTTPTestConnection.request("/trigger", port: port, method: "POST", host: "localhost:\(port)",
                                                   headers: ["Origin: http://LOCALHOST:\(port)"])
        #expect(local.status == 202, "\(local.status) \(local.text)")
        #expect(live.triggers.takePulls().map(\.kind) == [.press, .press])
    }

    /// What the server serves: its address and port, `localhost` with its port or none, any case,
    /// an HTTP/1.0 request without `Host`, and the names of `http.allowed_hosts` (one listed
    /// without a port on any port, one with a port on that port only); a stream route among them.
    @Test func servedHostsAreAnswered() throws {
        var settings = HTTPSettings(listen: HTTPListenAddress(host: "127.0.0.1", port: 0))
        settings.allowedHosts = [HTTPAllowedHost(name: "camera.example.com"), HTTPAllowedHost(name: "proxy.example", port: 8443)]
        let live = try HostCheckedServer(settings)
        let port = live.port
        for host in ["127.0.0.1:\(port)", "127.0.0.1", "localhost:\(port)", "LocalHost:\(port)", "localhost", "camera.example.com",
                     "Camera.Example.COM:\(port)", "camera.example.com:443", "proxy.example:8443"] {
            let reply = try HTTPTestConnection.request("/status", port: port, host: host)
            #expect(reply.status == 200 && reply.text.hasPrefix("{\"state\":\"scanning\""), "Host \(host): \(reply.status) \(reply.text)")
        }
        for host in ["proxy.example:\(port)", "proxy.example", "example.com:\(port)", "camera.example.com.evil.example"] {
            #expect(try HTTPTestConnection.request("/status", port: port, host: host).status == 421, "Host \(host)")
        }
        #expect(try HTTPTestConnection.request("/status", port: port, host: nil, version: "HTTP/1.0").status == 200, "HTTP/1.0 without Host")
        let events = try HTTPTestConnection.request("/events", port: port, host: "camera.example.com")
        #expect(events.status == 200 && events.headers["content-type"] == "text/event-stream", "\(events.status) \(events.headers)")
        // Behind a reverse proxy that names itself (or this server) in Host: its page's Origin.
        let proxied = try HTTPTestConnection.request("/trigger", port: port, method: "POST", host: "camera.example.com",
                                                     headers: ["Origin: https://camera.example.com"])
        #expect(proxied.status == 202, "\(proxied.status) \(proxied.text)")
        let rewritten = try HTTPTestConnection.request("/trigger", port: port, method: "POST", headers: ["Origin: https://proxy.example:8443"])
        #expect(rewritten.status == 202, "\(rewritten.status) \(rewritten.text)")
        #expect(live.triggers.takePulls().count == 2)
    }
}
