import Capture
import ConfigurationKeys
import Foundation
import HTTP
import Logging
import Results
import ServiceLifecycle
import SystemCalls
import SystemPackage

/// The live view over HTTP as a service: the server (libmicrohttpd's own threads answer every
/// request), and the status (`LiveViewStatus`: the rates sampled every second, the source's mode)
/// sent to the events viewers every second.
///
/// A reload (`reload(_:)`, SIGHUP) applies new `http.*` settings within a second without touching
/// the scan session: the preview's at once; a new address, password, remote rule, allowed host
/// names or connection limits by restarting the server alone (if the new one cannot start, the
/// previous settings are served again and the reason logged).
///
/// Endpoints, GET and HEAD only (others 405), any other path 404, HTTP Basic first when
/// `http.password_file` is set: `/` (the page), `/stream.mjpeg`, `/snapshot.jpg`, `/events`
/// (Server-Sent Events: each code line as on stdout, `event: sightings` with what recent frames held,
/// `event: status` every second), `/metrics` (Prometheus text, the metrics textfile's registry),
/// `/status` (JSON) and `/healthz` (`ok`: the server answers); and POST only (others 405),
/// `/trigger` and `/trigger/release`, which press and release the scan's trigger (`LiveViewRouter.trigger`), and
/// `/expected/reset`, which starts the tally against `match.list` over (`LiveViewRouter.resetExpected`). The two streams have slots of their
/// own (`http.max_streams`), so viewers in every one leave `/metrics`, `/status` and `/healthz` answered.
/// Before any of them, the server refuses a request that names another host than its own (421)
/// or comes from a page of another site (403): see `HTTPServedHosts`.
public final class LiveViewHTTPService: Service {
    let initialSettings: HTTPSettings
    let liveView: LiveViewResultsHandler
    let scan: any ScanReporting
    let status: LiveViewStatus
    let logger: Logger
    /// A listening socket systemd passed (`syncscan-http@.socket`), served instead of binding `http.listen`.
    let inheritedSocket: FileDescriptor?
    /// What `POST /trigger` presses (the scan's switch); `nil`: no trigger endpoints (404).
    let triggers: TriggerSwitch?
    /// What `POST /expected/reset` starts over; `nil`: no such endpoint (404).
    let expected: ExpectedTally?
    /// A reload's settings not yet applied (`.some(nil)`: `http.listen` was removed).
    private let reloaded = LockedValue<HTTPSettings??>(nil)

    public init(settings: HTTPSettings, liveView: LiveViewResultsHandler, scan: any ScanReporting, logger: Logger,
                inheritedSocket: FileDescriptor? = nil, triggers: TriggerSwitch? = nil, expected: ExpectedTally? = nil) {
        (initialSettings, self.liveView, self.scan, self.logger) = (settings, liveView, scan, logger)
        self.triggers = triggers
        self.expected = expected
        status = LiveViewStatus(scan: scan)
        self.inheritedSocket = inheritedSocket
    }

    /// New settings from a reloaded configuration, applied by `run` within a second.
    public func reload(_ settings: HTTPSettings?) {
        reloaded.withLock { $0 = .some(settings) }
    }

    public func run() async throws {
        let first = try serve(initialSettings)
        let last = await cancelWhenGracefulShutdown { await self.serveUntilShutdown(first, settings: self.initialSettings) }
        liveView.hub.close()
        await runOnThread(name: "syncscan-httpx") { last.stop() }
    }

    /// The rates sampled every second, the status sent then while someone watches, and each
    /// reload; returns the server running at the end.
    private func serveUntilShutdown(_ first: HTTPServer, settings initial: HTTPSettings) async -> HTTPServer {
        var (server, settings) = (first, initial)
        while !Task.isCancelled {
            status.sample()
            if liveView.hub.viewers > 0 { liveView.hub.publishStatus(status.json()) }
            if let next = reloaded.withLock({ state in defer { state = nil }; return state }) {
                if let next {
                    liveView.apply(next.liveView)
                    // With HTTPS every reload serves anew, reading a renewed certificate.
                    if next.servesDifferently(from: settings) || next.tlsKeyFile != nil {
                        (server, settings) = await restart(server, settings: settings, with: next)
                    }
                } else {
                    logger.notice("http.listen removed: the live view goes on until the service restarts")
                }
            }
            do { try await Task.sleep(for: .seconds(1)) } catch { break }
        }
        return server
    }

    /// A started server for `settings` (its password read now).
    private func serve(_ settings: HTTPSettings) throws -> HTTPServer {
        var password: String?
        if let path = settings.passwordFile {
            do { password = try SecretFile.firstLine(of: path) } catch {
                throw LiveViewError(message: "http.password_file \(path) cannot be read (\(error)); the live view is not served "
                                    + "without its password: make the file readable by the service")
            }
        }
        let router = LiveViewRouter(hub: liveView.hub, scan: scan, status: status, password: password, triggers: triggers,
                                    expected: expected)
        let server = Self.server(settings, router: router, listenDescriptor: inheritedSocket, tls: try Self.tlsCredentials(settings),
                                 logger: logger)
        do { try server.start() } catch { throw LiveViewError(message: "\(error)") }
        let port = server.port ?? settings.listen.port
        let scheme = server.tls == nil ? "http" : "https"
        logger.notice("live view serving", metadata: ["url": "\(LogText.untrusted("\(scheme)://\(HTTPListenAddress(host: settings.listen.host, port: port))/"))",
                                                      "socket": "\(inheritedSocket.map { "inherited \($0.rawValue)" } ?? "bound")"])
        return server
    }

    /// The server (not started) that answers with `router` under `settings`' address, request and
    /// stream slots, per-address quota, stream idle timeout and allowed host names.
    static func server(_ settings: HTTPSettings, router: LiveViewRouter, listenDescriptor: FileDescriptor? = nil,
                       tls: TLSCredentials? = nil, logger: Logger) -> HTTPServer {
        HTTPServer(address: settings.listen, listenDescriptor: listenDescriptor, maxConnections: settings.maxConnections,
                   maxStreams: settings.maxStreams, maxConnectionsPerAddress: settings.maxConnectionsPerAddress,
                   timeouts: HTTPTimeouts(streamSeconds: UInt32(clamping: settings.streamIdleTimeoutSeconds)), tls: tls,
                   allowedHosts: settings.allowedHosts, logger: logger) { router.respond($0) }
    }

    /// The largest PEM file read (a key, a certificate chain).
    static let maximumPEMBytes = 1_048_576

    /// The key and certificate `http.tls_key_file` and `http.tls_cert_file` name, read now (so a
    /// reload picks up a renewed certificate) with `BoundedFileRead`; `nil` without them.
    static func tlsCredentials(_ settings: HTTPSettings) throws -> TLSCredentials? {
        guard let keyFile = settings.tlsKeyFile, let certificateFile = settings.tlsCertificateFile else { return nil }
        func read(_ path: String, key: String, what: String) throws -> String {
            let bytes: [UInt8]
            do { bytes = try BoundedFileRead.bytes(of: path, limit: maximumPEMBytes) } catch {
                throw LiveViewError(message: "\(key) \(path) cannot be read (\(error.message)); HTTPS is not served without it: "
                                    + "make the file readable by the service")
            }
            guard let text = String(validating: bytes, as: UTF8.self), text.contains("-----BEGIN ") else {
                throw LiveViewError(message: "\(key) \(path) is not PEM (no -----BEGIN line): give the \(what) in PEM form")
            }
            return text
        }
        return TLSCredentials(keyPEM: try read(keyFile, key: "http.tls_key_file", what: "private key"),
                              certificatePEM: try read(certificateFile, key: "http.tls_cert_file", what: "certificate chain"))
    }

    /// Stops `server` and serves `next`; when that fails, `settings` again (logged).
    private func restart(_ server: HTTPServer, settings: HTTPSettings, with next: HTTPSettings) async -> (HTTPServer, HTTPSettings) {
        await runOnThread(name: "syncscan-httpx") { server.stop() }
        do {
            return (try serve(next), next)
        } catch {
            logger.error("reloaded http.* settings not applied; serving the previous ones", metadata: ["error": "\(LogText.error(error))"])
            do { return (try serve(settings), settings) } catch {
                logger.error("the live view cannot be served again; scanning goes on without it", metadata: ["error": "\(LogText.error(error))"])
                return (server, settings)
            }
        }
    }
}

extension HTTPSettings {
    /// Whether serving `self` needs another server than serving `other` (the preview aside).
    func servesDifferently(from other: HTTPSettings) -> Bool {
        var a = self, b = other
        (a.liveView, b.liveView) = (LiveViewSettings(), LiveViewSettings())
        return a != b
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
    let scan: any ScanReporting
    let status: LiveViewStatus
    let password: String?
    var triggers: TriggerSwitch? = nil
    var expected: ExpectedTally? = nil

    static let paths: Set<String> = ["/", "/stream.mjpeg", "/snapshot.jpg", "/events", "/metrics", "/status", "/healthz"]

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        if let password, request.basicCredentials?.password != password {
            return HTTPResponse(status: 401, headers: [("Content-Type", "text/plain; charset=utf-8")],
                                body: .bytes(Array("401 a password is needed (HTTP Basic; any user name)\n".utf8)), basicRealm: "syncscan")
        }
        if triggers != nil && Self.triggerPaths.contains(request.path) { return trigger(request) }
        if expected != nil && request.path == Self.expectedResetPath { return resetExpected(request) }
        guard Self.paths.contains(request.path) else { return .text("404 not found: \(request.path)", status: 404) }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text("405 method not allowed: \(request.method)", status: 405, headers: [("Allow", "GET, HEAD")])
        }
        switch request.path {
        case "/": return .bytes(Array(LiveViewPage.html.utf8), contentType: "text/html; charset=utf-8")
        case "/status": return .bytes(status.json() + [UInt8(ascii: "\n")], contentType: "application/json")
        case "/healthz": return .text("ok", status: 200, headers: [("Cache-Control", "no-store")])
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
