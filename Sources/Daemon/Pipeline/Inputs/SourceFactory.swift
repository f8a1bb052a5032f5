import Logging
import Media

/// Opens the frame source a URI names, through the input family that parses it (`InputRegistry`), among
/// the configuration's registered ones (`Components.inputs`).
public enum SourceFactory {
    /// Creates (but does not start) the source for `options.source`.
    ///
    /// - Throws: `SourceURIError` when the URI names nothing syncscan can read (see `InputRegistry`),
    ///   or the family's error for settings it refuses (a camera's out-of-range device settings).
    public static func makeSource(_ options: PipelineOptions, logger: Logger) throws -> any FrameSource {
        try make(options, logger: logger).source
    }

    /// A source for `options.source`, and what applies a reload's settings to it in place
    /// without reopening it (a camera's `device.controls`; nothing for a Y4M input).
    static func make(_ options: PipelineOptions, logger: Logger) throws -> InputFamily.Opened {
        let families = options.configuration.components.inputs
        let uri = try InputRegistry.parse(options.source, families: families)
        return try InputRegistry.family(of: uri, in: families).open(uri, options, logger)
    }

    /// Checks, without disturbing a running session, that `options.source` can be opened.
    ///
    /// The source is created (not started), then its family's `checkOpenable` runs: a Y4M input
    /// is opened and closed again (without blocking, a FIFO with no writer too); a camera node
    /// must exist and be readable and writable (`access(2)`).
    /// - Throws: what `makeSource` throws, or the family's error for a source it cannot open.
    public static func checkOpenable(_ options: PipelineOptions, logger: Logger) throws {
        let families = options.configuration.components.inputs
        let uri = try InputRegistry.parse(options.source, families: families)
        let family = InputRegistry.family(of: uri, in: families)
        _ = try family.open(uri, options, logger)
        try family.checkOpenable(uri, options)
    }
}
