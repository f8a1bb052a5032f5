/// Where and how the webhook handler POSTs codes (`webhook.*`).
public struct WebhookSettings: Sendable, Hashable {
    /// The endpoints (`http://` or `https://`): every code goes to each, in order, on its own thread.
    public var urls: [String]
    /// CA certificates (PEM) verifying an `https://` endpoint; `nil`: the system's CA store.
    public var caFile: String?
    /// Extra request headers, `Name: value` each.
    public var headers: [String] = []
    /// A file whose first line is a bearer token (read at start, sent as `Authorization: Bearer …`, never logged).
    public var tokenFile: String?
    /// The limit of one request, connection included.
    public var timeoutSeconds = 10.0
    /// Codes per request: 1 sends each code's object; more sends a JSON array of up to this many.
    public var batchMax = 1
    /// With `batchMax` > 1, how long the first waiting code waits for others to fill a batch.
    public var batchWaitMilliseconds = 0
    /// Codes waiting in memory per endpoint; past that they go to the spool, or without one the oldest are dropped and counted.
    public var queueMessages = 10_000
    /// Where codes wait on disk once the memory queue is full, and across a restart; `nil`: no spool.
    public var spoolDirectory: String?
    /// Each endpoint's spool bound in bytes; past it the oldest codes are dropped and counted.
    public var spoolMaxBytes = 64 << 20

    public init(urls: [String]) { self.urls = urls }

    /// `url` with any `user:password@` replaced by `***@`: what logs show.
    public static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + "***" + String(rest[at...])
    }
}
