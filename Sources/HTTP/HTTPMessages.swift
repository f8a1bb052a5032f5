/// One HTTP request as the handler sees it: the method, the path, the Basic credentials, and the
/// `Host` and `Origin` headers (both served ones: `HTTPServer` refused the others).
public struct HTTPRequest: Sendable, Hashable {
    /// `GET`, `HEAD`, … as the client sent it.
    public var method: String
    /// The path without its query: `/status`.
    public var path: String
    /// The user name and password of an `Authorization: Basic` header, if the request had one.
    public var basicCredentials: BasicCredentials?
    /// The `Host` header, if the request had one.
    public var host: String?
    /// The `Origin` header (`http://127.0.0.1:8080`, or `null`), if the request had one: browsers
    /// send it with every cross-site POST, command-line clients never unless told.
    public var origin: String?

    public init(method: String, path: String, basicCredentials: BasicCredentials? = nil, host: String? = nil, origin: String? = nil) {
        (self.method, self.path, self.basicCredentials) = (method, path, basicCredentials)
        (self.host, self.origin) = (host, origin)
    }
}

/// The user name and password of HTTP Basic authentication.
public struct BasicCredentials: Sendable, Hashable {
    public var user: String
    public var password: String

    public init(user: String, password: String) { (self.user, self.password) = (user, password) }
}

/// What a request gets back: a status, headers and a body of bytes or a stream.
public struct HTTPResponse: Sendable {
    /// The body: bytes known in full, or a stream read while the connection lasts.
    public enum Body: Sendable {
        case bytes([UInt8])
        case stream(any HTTPStream)
    }

    public var status: Int
    /// Header fields after the status line, in order (`Content-Type` among them).
    public var headers: [(name: String, value: String)]
    public var body: Body
    /// With status 401: the Basic realm of the `WWW-Authenticate` challenge.
    public var basicRealm: String?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([]), basicRealm: String? = nil) {
        (self.status, self.headers, self.body, self.basicRealm) = (status, headers, body, basicRealm)
    }

    /// A complete body of `contentType`.
    public static func bytes(_ body: [UInt8], contentType: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType), ("Cache-Control", "no-store")], body: .bytes(body))
    }

    /// A one-line plain-text body: `404 not found`.
    public static func text(_ text: String, status: Int, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: .bytes(Array((text + "\n").utf8)))
    }
}

/// What `HTTPStream.read(into:)` produced.
public enum HTTPStreamRead: Sendable, Hashable {
    /// This many bytes were written to the start of the buffer (0: nothing yet; asked again).
    case bytes(Int)
    /// The stream is over: the response ends.
    case end
}

/// A response body of unknown length (`multipart/x-mixed-replace`, Server-Sent Events), read on
/// the connection's own thread.
///
/// `read(into:)` may block for a while (at most about a second) waiting for bytes: the thread is
/// the connection's alone, not one of Swift's concurrency pool. A client that stops reading is
/// simply not asked for more. `close()` comes once, when the connection ended or the server stops;
/// after it `read` must return `.end` without waiting.
public protocol HTTPStream: AnyObject, Sendable {
    func read(into buffer: UnsafeMutableRawBufferPointer) -> HTTPStreamRead
    func close()
}
