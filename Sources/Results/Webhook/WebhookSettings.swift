import ConfigurationKeys
import Media

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

    /// `url` with any `user:password@` replaced by `***@` and its secret query parameters by `***`
    /// (`SecretRedaction`): what logs show.
    public static func redacted(_ url: String) -> String {
        SecretRedaction.redacted(url, hiding: .userinfo)
    }
}

extension WebhookSettings: ConfigurationSection {
    /// Reads `webhook.*` (given `keys.scoped(to: "webhook")`); every key is read (so each is known)
    /// whether or not `webhook.url` is set. The URLs and headers are secrets (credentials, tokens). `nil`: no `webhook.url`.
    public init?(reading keys: ConfigurationKeyReader) {
        let urls = keys.list("url", of: "http:// or https:// URLs", isSecret: true) ?? []
        for url in urls where !Self.isWebhookURL(url) {
            keys.problem("url", "\"\(Self.redacted(url))\" is not an http:// or https:// URL with a host (e.g. https://example.com/hooks/scan)")
        }
        self.init(urls: urls)
        caFile = keys.filePath("ca_file")
        for header in keys.list("headers", of: "headers (Name: value)", isSecret: true) ?? [] {
            let name = header.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            if !header.contains(":") || name.isEmpty || name.contains(" ") || header.contains("\r") || header.contains("\n") {
                keys.problem("headers", "\"\(name)\" is not a header: give Name: value (e.g. X-Scanner: dock1)")
            } else if name.lowercased() == "authorization" || name.lowercased() == "idempotency-key" || name.lowercased() == "content-type" {
                keys.problem("headers", "\(name) is set by syncscan (Authorization from \(keys.fullKey("token_file"))): remove it")
            } else { headers.append(header) }
        }
        tokenFile = keys.filePath("token_file")
        if let v = keys.double("timeout_seconds", in: 0...3_600, lowerOpen: true) { timeoutSeconds = v }
        if let v = keys.int("batch_max", in: 1...10_000, " (codes per request; 1 sends each code's object alone)") { batchMax = v }
        if let v = keys.int("batch_wait_ms", in: 0...60_000) { batchWaitMilliseconds = v }
        if let v = keys.int("queue_messages", in: 1...10_000_000) { queueMessages = v }
        // "" turns the spool off; the default is the unit's state directory (systemd's $STATE_DIRECTORY).
        let spool = keys.string("spool_directory", "a directory path, or \"\" for none") ?? keys.systemdStateDirectory
        spoolDirectory = spool?.isEmpty == false ? spool : nil
        if let v = keys.int("spool_max_bytes", in: 4096...(1 << 40)) { spoolMaxBytes = v }
        if urls.isEmpty { return nil }
    }

    /// `http://HOST…` or `https://HOST…`: a host after any `user:password@` (`https://user:pw@`
    /// has none).
    static func isWebhookURL(_ url: String) -> Bool {
        guard let parsed = URLAuthority(Substring(url)), ["http", "https"].contains(parsed.scheme.lowercased()) else { return false }
        return !parsed.hostAndPort.isEmpty && !parsed.hostAndPort.hasPrefix(":") && !url.contains(" ")
    }
}
