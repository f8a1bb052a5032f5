import Capture
import Logging
import Media
import Y4M

/// Opens the frame source a URI names.
public enum SourceFactory {
    /// What kind of source a URI names, before anything is opened.
    public enum Kind: Sendable, Hashable {
        case y4m(path: String)
        case v4l2(path: String)
    }

    /// Classifies `uri`: `y4m:PATH`, `y4m:-`, a path ending in `.y4m`, `-` → Y4M;
    /// `v4l2:PATH` or a path under `/dev/` → V4L2.
    public static func kind(of uri: String) throws(SourceURIError) -> Kind {
        if uri.hasPrefix("y4m:") {
            let path = String(uri.dropFirst(4))
            guard !path.isEmpty else { throw SourceURIError(uri: uri, reason: "y4m: needs a path or - for stdin") }
            return .y4m(path: path)
        }
        if uri == "-" || uri.lowercased().hasSuffix(".y4m") { return .y4m(path: uri) }
        if uri.hasPrefix("v4l2:") {
            let path = String(uri.dropFirst(5))
            guard !path.isEmpty else { throw SourceURIError(uri: uri, reason: "v4l2: needs a device path") }
            return .v4l2(path: path)
        }
        if uri.hasPrefix("/dev/") { return .v4l2(path: uri) }
        throw SourceURIError(uri: uri, reason: "expected y4m:PATH, y4m:-, a .y4m file, /dev/videoN or v4l2:/dev/videoN")
    }

    /// Creates (but does not start) the source for `options.source`.
    public static func makeSource(_ options: PipelineOptions, logger: Logger) throws -> any FrameSource {
        switch try kind(of: options.source) {
        case .y4m(let path):
            return Y4MSource(path: path, logger: logger)
        case .v4l2(let path):
            return try makeCameraSource(path: path, device: options.configuration.device, logger: logger)
        }
    }
}

/// A source URI that names nothing syncscan can read.
public struct SourceURIError: Error, CustomStringConvertible, Sendable {
    public var uri: String
    public var reason: String
    public var description: String { "unsupported source \"\(uri)\": \(reason)" }
}
