/// Where frames come from, as named by the `source` setting, once an input family has parsed it.
///
/// Each input family (a module: V4L2, Y4M, GStreamer) parses its own forms into a `SourceURI`;
/// the daemon's input registry picks the family by the text's scheme. `description`, the form
/// written in output lines, logs and `/status`, never holds a password: credentials in a network
/// URL are redacted (`rtsp://user:***@host/path?token=***`, `SecretRedaction`).
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

    /// The source's short name, for MQTT topics and client ids and Home Assistant's device:
    /// `name(of: location)` (`video0` for `/dev/video0`, `dock` for a Y4M file `/data/dock.y4m`).
    public var name: String { Self.name(of: location) }

    /// The short name of a source text: the last path component without its extension (`dock`
    /// for `/data/dock.y4m`), `stdin` for `-`; a network URL gives its path's last component
    /// (`stream1` for `rtsp://cam:554/stream1`), or its host when it has no path (`127.0.0.1` for
    /// `rtsp://user:pw@127.0.0.1:8554`): never its credentials, query or port (read from
    /// `SecretRedaction.identity`, which has none of them). A family's prefix before a path or `-`
    /// (`PREFIX:/path`, `PREFIX:-`, whatever the prefix) is not part of the name.
    public static func name(of text: String) -> String {
        var path = SecretRedaction.identity(text)
        if let colon = path.firstIndex(of: ":"), path[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            let rest = path[path.index(after: colon)...]
            if rest == "-" || (rest.hasPrefix("/") && !rest.hasPrefix("//")) { path = String(rest) }
        }
        if path == "-" || path.isEmpty { return "stdin" }
        if let url = URLAuthority(Substring(path)) {
            if url.path.split(separator: "/").isEmpty { return String(url.host) }
            path = String(url.path)
        }
        var name = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        return name
    }

    /// `text` with every secret replaced by `***` (`SecretRedaction.redacted`): a URL's password
    /// (`user:***@`), its secret query parameters, a pipeline's `user-pw=`/`proxy-pw=`.
    public static func redactingCredentials(_ text: String) -> String {
        SecretRedaction.redacted(text, hiding: .password)
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
