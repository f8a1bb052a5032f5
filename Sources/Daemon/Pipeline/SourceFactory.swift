import Capture
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Media
import SystemCalls
import SystemPackage
import Y4M

/// Opens the frame source a URI names.
public enum SourceFactory {
    /// Creates (but does not start) the source for `options.source`.
    ///
    /// - Throws: `SourceURIError` when the URI names nothing syncscan can read (see `SourceURI`),
    ///   or the camera source's `IOError` for out-of-range device settings.
    public static func makeSource(_ options: PipelineOptions, logger: Logger) throws -> any FrameSource {
        try make(options, logger: logger).source
    }

    /// A source for `options.source`, and what applies a reload's settings to it in place
    /// without reopening it (a camera's `device.controls`; nothing for a Y4M input).
    static func make(_ options: PipelineOptions, logger: Logger) throws
        -> (source: any FrameSource, applyInPlace: @Sendable (PipelineOptions) -> Void) {
        switch try SourceURI(parsing: options.source) {
        case .y4m(let path):
            return (Y4MSource(path: path, logger: logger), { _ in })
        case .v4l2(let devicePath):
            let camera = try makeCameraSource(path: devicePath, device: options.configuration.device, logger: logger)
            return (camera, { new in
                // Against the settings in force, not the first ones: a reload back to them applies too.
                if new.configuration.device.controls != camera.controlSettings {
                    camera.setControls(new.configuration.device.controls)
                }
            })
        }
    }

    /// Checks, without disturbing a running session, that `options.source` can be opened.
    ///
    /// A Y4M input is opened and closed again (without blocking, a FIFO with no writer too);
    /// a camera node must exist and be readable and writable (`access(2)`): it is not opened,
    /// since the running session may hold it.
    /// - Throws: what `makeSource` throws, or the `IOError` of the failed `open`/`access`.
    public static func checkOpenable(_ options: PipelineOptions, logger: Logger) throws {
        _ = try makeSource(options, logger: logger)
        switch try SourceURI(parsing: options.source) {
        case .y4m(let path):
            try Y4MSource.checkOpenable(path: path)
        case .v4l2(let devicePath):
            if access(devicePath, R_OK | W_OK) != 0 {
                let errno = Errno(rawValue: Glibc.errno)
                throw IOError(call: "access", message: "\(devicePath): cannot open the camera; plug it in or name another device", errno: errno)
            }
        }
    }
}
