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
