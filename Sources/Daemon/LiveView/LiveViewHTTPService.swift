import Foundation
import HTTP
import Logging
import Results
import ServiceLifecycle
import SystemCalls
import SystemPackage

/// The live view over HTTP as a service: the server (libmicrohttpd's own threads answer every
/// request), and the status sent to the events viewers every second.
///
/// Endpoints, GET and HEAD only (others 405), any other path 404, HTTP Basic first when
/// `http.password_file` is set: `/` (the page), `/stream.mjpeg`, `/snapshot.jpg`, `/events`
/// (Server-Sent Events: each code line as on stdout, `event: status` every second), `/metrics`
/// (Prometheus text, the metrics textfile's registry) and `/status` (JSON).
final class LiveViewHTTPService: Service {
    let settings: HTTPSettings
    let liveView: LiveViewResultsHandler
    let scan: ScanService
    let logger: Logger
    /// Called with the port once listening (tests, socket activation's log).
    let listening: @Sendable (Int) -> Void

    init(settings: HTTPSettings, liveView: LiveViewResultsHandler, scan: ScanService, logger: Logger,
         listening: @escaping @Sendable (Int) -> Void = { _ in }) {
        (self.settings, self.liveView, self.scan, self.logger, self.listening) = (settings, liveView, scan, logger, listening)
    }

    func run() async throws {
        var password: String?
        if let path = settings.passwordFile {
            do { password = try ResultsHandlerRegistry.firstLine(of: path) } catch {
                throw LiveViewError(message: "http.password_file \(path) cannot be read (\(error)); the live view is not served without its password")
            }
        }
        let router = LiveViewRouter(hub: liveView.hub, scan: scan, password: password)
        let server = HTTPServer(address: settings.listen, maxConnections: settings.maxConnections, logger: logger) { router.respond($0) }
        do { try server.start() } catch { throw LiveViewError(message: "\(error)") }
        let port = server.port ?? settings.listen.port
        logger.notice("live view serving", metadata: ["url": "http://\(HTTPListenAddress(host: settings.listen.host, port: port))/"])
        listening(port)
        let (hub, scan) = (liveView.hub, self.scan)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                if hub.viewers > 0 { hub.publishStatus(scan.statusJSON()) }
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
            }
        }
        hub.close()
        await runOnThread(name: "syncscan-httpx") { server.stop() }
    }
}

/// The live view's HTTP service could not run: why, and what to do.
struct LiveViewError: Error, CustomStringConvertible {
    var message: String
    var description: String { "live view: \(message)" }
}

/// Answers the live view's requests, on the connections' threads.
struct LiveViewRouter: Sendable {
    let hub: LiveViewHub
    let scan: ScanService
    let password: String?

    static let paths: Set<String> = ["/", "/stream.mjpeg", "/snapshot.jpg", "/events", "/metrics", "/status"]

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        if let password, request.basicCredentials?.password != password {
            return HTTPResponse(status: 401, headers: [("Content-Type", "text/plain; charset=utf-8")],
                                body: .bytes(Array("401 a password is needed (HTTP Basic; any user name)\n".utf8)), basicRealm: "syncscan")
        }
        guard Self.paths.contains(request.path) else { return .text("404 not found: \(request.path)", status: 404) }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text("405 method not allowed: \(request.method)", status: 405, headers: [("Allow", "GET, HEAD")])
        }
        switch request.path {
        case "/": return .bytes(Array(LiveViewPage.html.utf8), contentType: "text/html; charset=utf-8")
        case "/status": return .bytes(scan.statusJSON() + [UInt8(ascii: "\n")], contentType: "application/json")
        case "/metrics": return .bytes(scan.metricsExposition(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        case "/snapshot.jpg":
            guard let jpeg = hub.latestPicture(waitingUpTo: .seconds(2)) else {
                return .text("503 no frame yet: the source has not delivered one", status: 503, headers: [("Retry-After", "1")])
            }
            return .bytes(jpeg, contentType: "image/jpeg")
        case "/events":
            return stream(EventsStream(viewer: hub.openEvents()), contentType: "text/event-stream")
        default:
            return stream(PicturesStream(viewer: hub.openPictures()),
                          contentType: "multipart/x-mixed-replace; boundary=\(LiveViewPictureViewer.boundary)")
        }
    }

    private func stream(_ body: any HTTPStream, contentType: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", contentType), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no")],
                     body: .stream(body))
    }
}

/// `/events` as an HTTP stream.
final class EventsStream: HTTPStream {
    let viewer: LiveViewEventViewer
    init(viewer: LiveViewEventViewer) { self.viewer = viewer }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> HTTPStreamRead { viewer.read(into: buffer).map { .bytes($0) } ?? .end }
    func close() { viewer.close() }
}

/// `/stream.mjpeg` as an HTTP stream.
final class PicturesStream: HTTPStream {
    let viewer: LiveViewPictureViewer
    init(viewer: LiveViewPictureViewer) { self.viewer = viewer }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> HTTPStreamRead { viewer.read(into: buffer).map { .bytes($0) } ?? .end }
    func close() { viewer.close() }
}
