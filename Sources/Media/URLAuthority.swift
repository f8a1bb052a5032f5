/// The authority of a `scheme://[userinfo@]host[:port][/path][?query][#fragment]` URL and what
/// surrounds it: the one parse behind hiding credentials, checking that a URL names a host and
/// naming a source after its host or path.
///
/// The authority ends at the first `/`, `?` or `#` after `://`, or at one of `alsoEndingAt` (a URL
/// inside a GStreamer pipeline description also ends at a blank or a quote). Its userinfo is what
/// precedes the last `@` in it, so a password may hold an `@`; with `userinfoToLastAt` (what
/// `SecretRedaction` also reads, for a password holding a raw `/`, `?` or `#`) it is what precedes
/// the last `@` before the text's end or a terminator, wherever that `@` is.
public struct URLAuthority: Sendable {
    /// The text up to and including `://` (`rtsp://`; in a description, everything before it too).
    public let prefix: Substring
    /// `user` or `user:password`; `nil` when the authority has no `@`.
    public let userinfo: Substring?
    /// `host`, `host:port` or `[v6]:port`: the authority after its userinfo.
    public let hostAndPort: Substring
    /// What follows the authority: the path, query and fragment (in a description, the rest of it).
    public let rest: Substring

    /// Parses the first URL of `text` (from its first `://`); `nil` when there is none.
    public init?(_ text: Substring, alsoEndingAt terminators: String = "", userinfoToLastAt: Bool = false) {
        guard let separator = text.firstRange(of: "://") else { return nil }
        prefix = text[..<separator.upperBound]
        let after = text[separator.upperBound...]
        let urlEnd = after.firstIndex { terminators.contains($0) } ?? after.endIndex
        if userinfoToLastAt, let at = after[..<urlEnd].lastIndex(of: "@") {
            userinfo = after[..<at]
            let hostStart = after.index(after: at)
            let end = after[hostStart...].firstIndex { "/?#".contains($0) || terminators.contains($0) } ?? after.endIndex
            hostAndPort = after[hostStart..<end]
            rest = after[end...]
            return
        }
        let end = after.firstIndex { "/?#".contains($0) || terminators.contains($0) } ?? after.endIndex
        if let at = after[..<end].lastIndex(of: "@") {
            userinfo = after[..<at]
            hostAndPort = after[after.index(after: at)..<end]
        } else {
            userinfo = nil
            hostAndPort = after[..<end]
        }
        rest = after[end...]
    }

    /// The scheme: what precedes `://` (for a whole URL).
    public var scheme: Substring { prefix.dropLast(3) }

    /// The host without its port, an IPv6 address without its brackets.
    public var host: Substring {
        hostAndPort.hasPrefix("[") ? hostAndPort.dropFirst().prefix { $0 != "]" } : hostAndPort.prefix { $0 != ":" }
    }

    /// The path: `rest` up to its query or fragment.
    public var path: Substring { rest.prefix { $0 != "?" && $0 != "#" } }

    /// How much of a URL's userinfo `SecretRedaction` hides.
    public enum Redaction: Sendable {
        /// `user:***@`: the password only (a camera's user name stays readable).
        case password
        /// `***@`: all of it (a bare userinfo may itself be a token).
        case userinfo
    }
}
