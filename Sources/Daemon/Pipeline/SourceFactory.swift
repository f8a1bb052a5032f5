import Capture
import Logging
import Media
import Y4M

/// Opens the frame source a URI names.
public enum SourceFactory {
    /// Creates (but does not start) the source for `options.source`.
    ///
    /// - Throws: `SourceURIError` when the URI names nothing syncscan can read (see `SourceURI`),
    ///   or the camera source's `IOError` for out-of-range device settings.
    public static func makeSource(_ options: PipelineOptions, logger: Logger) throws -> any FrameSource {
        switch try SourceURI(parsing: options.source) {
        case .y4m(let path):
            return Y4MSource(path: path, logger: logger)
        case .v4l2(let devicePath):
            return try makeCameraSource(path: devicePath, device: options.configuration.device, logger: logger)
        }
    }
}
