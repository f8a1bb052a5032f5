import Capture
import Foundation
import HTTP
import Logging
import Media
import SystemCalls
import TestSupport
import Testing
@testable import LiveView

/// A scan that reports what a scraper needs: fixed counters, status and metrics.
private struct FixedScan: ScanReporting {
    func statistics() -> CaptureStatistics { CaptureStatistics() }
    func statusJSON() -> [UInt8] { Array("{\"state\":\"scanning\"}".utf8) }
    var currentSource: (any FrameSource)? { nil }
    func metricsExposition() -> [UInt8] { Array("syncscan_frames_total 7\n".utf8) }
}

/// The live view's server as the service makes it (`LiveViewHTTPService.server`) under
/// `settings`, on 127.0.0.1 and a free port, with a 32 KiB picture published every 100 ms by a
/// thread of its own (a camera at 10 frames/s) until released.
private final class LiveViewServer {
    let hub = LiveViewHub()
    let server: HTTPServer
    let port: Int
    private let stop = LockedValue(false)

    init(_ settings: HTTPSettings, logger: Logger = Logger(label: "test")) throws {
        let scan = FixedScan()
        let router = LiveViewRouter(hub: hub, scan: scan, status: LiveViewStatus(scan: scan), password: nil)
        server = LiveViewHTTPService.server(settings, router: router, logger: logger)
        try server.start()
        port = server.port ?? 0
        let (hub, stop) = (hub, stop)
        Thread {
            let picture = [0xFF, 0xD8] + [UInt8](repeating: 0x55, count: 32 * 1024) + [0xFF, 0xD9]
            while !stop.withLock({ $0 }) {
                hub.publishPicture(picture)
                stop.withLock(when: { $0 }, deadline: .now + .milliseconds(100)) { _, _ in }
            }
        }.start()
    }

    deinit {
        stop.withLock { $0 = true }
        stop.broadcast()
        server.stop()
        hub.close()
    }
}

@Suite(.offThePool) struct LiveViewMonitoringTests {
    /// The slow viewers are let hold on for the whole test (the idle timeout is another test's):
    /// with the default 30 s, a starved run (ThreadSanitizer in CI) had them cut before it counted them.
    private static let settings: HTTPSettings = {
        var settings = HTTPSettings(listen: HTTPListenAddress(host: "127.0.0.1", port: 0))
        settings.streamIdleTimeoutSeconds = 3600
        return settings
    }()

    /// 16 `/stream.mjpeg` viewers from two addresses, half taking 1 KB every 10 s and half
    /// nothing, as many as `http.max_connections`: `/metrics`, `/status` and `/healthz` from a
    /// third address are answered 200 within 2 s each (the streams have slots of their own), and
    /// the viewers past `http.max_streams` are told 503.
    @Test func monitoringIsAnsweredWhile16SlowViewersHoldOn() throws {
        let settings = Self.settings
        #expect(settings.maxConnections == 16 && settings.maxStreams < 16)
        let live = try LiveViewServer(settings)
        let viewers = try SlowStreamViewers(16, path: "/stream.mjpeg", port: live.port, from: ["127.0.0.2", "127.0.0.3"])
        defer { viewers.finish() }
        // Every viewer was answered (its reply's head read) before monitoring asks.
        let statuses = viewers.statuses
        #expect(statuses.filter { $0 == 200 }.count == settings.maxStreams, "\(statuses)")
        #expect(statuses.filter { $0 == 503 }.count == 16 - settings.maxStreams, "\(statuses)")
        #expect(live.hub.viewers == settings.maxStreams)
        for path in ["/metrics", "/status", "/healthz"] {
            // Answered while the viewers hold on for an hour: a server whose slots they held would not answer.
            let reply = try HTTPTestConnection.request(path, port: live.port, timeout: .seconds(60), from: "127.0.0.4")
            #expect(reply.status == 200, "\(path): \(reply.status) \(reply.text)")
            switch path {
            case "/metrics": #expect(reply.text == "syncscan_frames_total 7\n")
            case "/status": #expect(reply.text.hasPrefix("{\"state\":\"scanning\""))
            default: #expect(reply.text == "ok\n")
            }
        }
        let streaming = zip(viewers.connections, statuses).filter { $0.1 == 200 }.map(\.0)
        #expect(streaming.allSatisfy { !$0.isClosedByServer }, "the viewers given a stream still hold on")
    }

    /// A `/stream.mjpeg` viewer that takes nothing is closed once `http.stream_idle_timeout_seconds`
    /// (1 s here) pass without a byte sent, logged once with its address, and its stream slot is
    /// freed for the next viewer.
    @Test func aViewerThatTakesNothingIsClosedAtTheIdleTimeout() throws {
        var settings = Self.settings
        (settings.streamIdleTimeoutSeconds, settings.maxStreams) = (1, 1)
        let log = LogRecorder()
        let live = try LiveViewServer(settings, logger: log.logger)
        let viewer = try SlowStreamViewers(1, path: "/stream.mjpeg", port: live.port, from: ["127.0.0.3"], neverReading: true)
        #expect(viewer.statuses == [200])
        let stalled = viewer.stalled[0]
        #expect(waitUntil(every: .milliseconds(20)) { !log.lines(containing: "stream closed").isEmpty && live.hub.viewers == 0 },
                "the viewer is closed and its stream released")
        let lines = log.lines(containing: "stream closed")
        #expect(lines.count == 1 && lines.first?.contains("client=127.0.0.3") == true, "\(lines)")
        _ = stalled.receive()  // what the buffers held, then the end
        #expect(stalled.isClosedByServer)
        // The one stream slot is free again.
        let next = try HTTPTestConnection(port: live.port, from: "127.0.0.4")
        next.send(Array("GET /stream.mjpeg HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        #expect(HTTPReply(next.receive(until: { HTTPReply($0) != nil }))?.status == 200)
    }
}
