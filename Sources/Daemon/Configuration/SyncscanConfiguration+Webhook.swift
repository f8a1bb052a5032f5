import Results

extension SyncscanConfiguration {
    /// `webhook.*`: every key is read (so each is known) whether or not `webhook.url` is set.
    mutating func readWebhook(_ keys: inout ConfigurationKeyReader) {
        let urls = keys.list("webhook.url", of: "http:// or https:// URLs") ?? []
        for url in urls where !Self.isWebhookURL(url) {
            keys.problem("webhook.url", "\"\(WebhookSettings.redacted(url))\" is not an http:// or https:// URL with a host (e.g. https://example.com/hooks/scan)")
        }
        var settings = WebhookSettings(urls: urls)
        settings.caFile = keys.string("webhook.ca_file", "a file path")
        for header in keys.list("webhook.headers", of: "headers (Name: value)") ?? [] {
            let name = header.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            if !header.contains(":") || name.isEmpty || name.contains(" ") || header.contains("\r") || header.contains("\n") {
                keys.problem("webhook.headers", "\"\(name)\" is not a header: give Name: value (e.g. X-Scanner: dock1)")
            } else if name.lowercased() == "authorization" || name.lowercased() == "idempotency-key" || name.lowercased() == "content-type" {
                keys.problem("webhook.headers", "\(name) is set by syncscan (Authorization from webhook.token_file): remove it")
            } else { settings.headers.append(header) }
        }
        settings.tokenFile = keys.string("webhook.token_file", "a file path")
        if let v = keys.double("webhook.timeout_seconds", in: 0...3_600, lowerOpen: true) { settings.timeoutSeconds = v }
        if let v = keys.int("webhook.batch_max", in: 1...10_000, " (codes per request; 1 sends each code's object alone)") { settings.batchMax = v }
        if let v = keys.int("webhook.batch_wait_ms", in: 0...60_000) { settings.batchWaitMilliseconds = v }
        if let v = keys.int("webhook.queue_messages", in: 1...10_000_000) { settings.queueMessages = v }
        // "" turns the spool off; the default is the unit's state directory (systemd's $STATE_DIRECTORY).
        let spool = keys.string("webhook.spool_directory", "a directory path, or \"\" for none") ?? keys.systemdStateDirectory
        settings.spoolDirectory = spool?.isEmpty == false ? spool : nil
        if let v = keys.int("webhook.spool_max_bytes", in: 4096...(1 << 40)) { settings.spoolMaxBytes = v }
        if !urls.isEmpty { webhook = settings }
    }

    /// `http://HOST…` or `https://HOST…`.
    static func isWebhookURL(_ url: String) -> Bool {
        for scheme in ["http://", "https://"] where url.lowercased().hasPrefix(scheme) {
            let rest = url.dropFirst(scheme.count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            let host = authority.split(separator: "@").last ?? ""
            return !host.isEmpty && !host.hasPrefix(":") && !url.contains(" ")
        }
        return false
    }
}
