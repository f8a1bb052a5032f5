/// Where frames come from, as named by the `source` setting, once an input family has parsed it.
///
/// Each input family (a module: V4L2, Y4M, GStreamer) parses its own forms into a `SourceURI`;
/// the daemon's input registry picks the family by the text's scheme. `description`, the form
/// written in output lines, logs and `/status`, never holds a password: credentials in a network
/// URL are redacted (`rtsp://user:***@host/path`).
public struct SourceURI: Sendable, Hashable, CustomStringConvertible {
    /// The input family that parsed it: `y4m`, `v4l2`, `gst`.
    public var family: String
    /// What the family reads: a path, a device node, a URL or a pipeline description (as given,
    /// credentials included: pass it to the library, never to a log).
    public var location: String
    /// The source as written in output lines and logs (`y4m:PATH`, `v4l2:PATH`, a URL), redacted.
    public let description: String

    /// A parsed source; `written` is how to show it (default `family:location`), redacted here.
    public init(family: String, location: String, written: String? = nil) {
        self.family = family
        self.location = location
        description = Self.redactingCredentials(written ?? family + ":" + location)
    }

    /// `text` with every password replaced by `***`: the one of each `scheme://user:password@`
    /// and the value of each `user-pw=`/`proxy-pw=` property of a pipeline description.
    public static func redactingCredentials(_ text: String) -> String {
        var out = Substring(text)
        var result = ""
        // In a pipeline description a URL also ends at a blank or a quote.
        while let url = URLAuthority(out, alsoEndingAt: " \t\n\"'") {
            result += url.prefix + url.redactedAuthority(hiding: .password)
            out = url.rest
        }
        result += out
        for key in ["user-pw=", "proxy-pw="] {
            var redacted = ""
            var remaining = Substring(result)
            while let found = remaining.firstRange(of: key) {
                redacted += remaining[..<found.upperBound] + "***"
                let valueEnd = remaining[found.upperBound...].firstIndex { " \t\n!".contains($0) } ?? remaining.endIndex
                remaining = remaining[valueEnd...]
            }
            result = redacted + remaining
        }
        return result
    }
}

/// A source URI that names nothing syncscan can read; `description` says which forms it accepts.
///
/// `uri` keeps the text as given; `description` shows it with its credentials redacted.
public struct SourceURIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text as given (credentials included: show `description`, not this).
    public var uri: String
    /// What is wrong with it and what to write instead.
    public var reason: String

    public init(uri: String, reason: String) {
        self.uri = uri
        self.reason = reason
    }

    public var description: String {
        "unsupported source \"\(uri.isEmpty ? "(empty)" : SourceURI.redactingCredentials(uri))\": \(reason)"
    }
}
