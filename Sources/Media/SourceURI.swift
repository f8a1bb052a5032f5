/// Where frames come from, as named by the `source` setting: a Y4M stream or a V4L2 camera.
///
/// `init(parsing:)` is the one parser of source URIs (the source factory, the V4L2 source and
/// configuration validation all use it). It is pure: it looks at the text only, never at the
/// file system. Accepted forms:
///
/// - `y4m:PATH`, `y4m:-` (standard input), `-`, any path ending in `.y4m` → ``y4m(path:)``
/// - `v4l2:PATH`, `v4l2:///dev/…`, `/dev/…` → ``v4l2(devicePath:)``, with an absolute path
public enum SourceURI: Sendable, Hashable, CustomStringConvertible {
    /// A YUV4MPEG2 file, FIFO or pipe at `path`; `-` is standard input.
    case y4m(path: String)
    /// A V4L2 capture node: `/dev/video0`, `/dev/v4l/by-id/…` (kept as given, symlinks too).
    case v4l2(devicePath: String)

    /// The forms `init(parsing:)` accepts, for messages.
    public static let acceptedForms = "y4m:PATH, y4m:- (standard input), a .y4m file, /dev/videoN or v4l2:/dev/videoN"

    /// How to name a camera, for messages.
    public static let cameraForms = "name the camera as /dev/videoN, v4l2:/dev/videoN or /dev/v4l/by-id/…"

    /// Parses `text`; throws a `SourceURIError` naming the accepted forms when it names nothing usable.
    public init(parsing text: String) throws(SourceURIError) {
        guard !text.utf8.contains(0) else {
            throw SourceURIError(uri: text, reason: "it contains a NUL byte; expected \(Self.acceptedForms)")
        }
        if text.hasPrefix("y4m:") {
            let path = String(text.dropFirst(4))
            guard !path.isEmpty else { throw SourceURIError(uri: text, reason: "y4m: needs a path or - for stdin") }
            self = .y4m(path: path)
        } else if text.hasPrefix("v4l2:") {
            var path = text.dropFirst(5)
            if path.hasPrefix("//") { path = path.dropFirst(2) }
            guard !path.isEmpty else { throw SourceURIError(uri: text, reason: "v4l2: needs a device path; " + Self.cameraForms) }
            guard path.hasPrefix("/"), path.count > 1 else {
                throw SourceURIError(uri: text, reason: "not a device path; " + Self.cameraForms)
            }
            self = .v4l2(devicePath: String(path))
        } else if text == "-" || text.lowercased().hasSuffix(".y4m") {
            self = .y4m(path: text)
        } else if text.hasPrefix("/dev/"), text.count > 5 {
            self = .v4l2(devicePath: text)
        } else {
            throw SourceURIError(uri: text, reason: "expected \(Self.acceptedForms)")
        }
    }

    /// The source as written in output lines and logs: `y4m:PATH` or `v4l2:PATH`.
    public var description: String {
        switch self {
        case .y4m(let path): "y4m:" + path
        case .v4l2(let devicePath): "v4l2:" + devicePath
        }
    }
}

/// A source URI that names nothing syncscan can read; `description` says which forms it accepts.
public struct SourceURIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text as given.
    public var uri: String
    /// What is wrong with it and what to write instead.
    public var reason: String

    public init(uri: String, reason: String) {
        self.uri = uri
        self.reason = reason
    }

    public var description: String { "unsupported source \"\(uri.isEmpty ? "(empty)" : uri)\": \(reason)" }
}
