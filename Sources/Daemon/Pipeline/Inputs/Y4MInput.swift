import Media
import Y4M

extension InputFamily {
    /// A YUV4MPEG2 file, FIFO or pipe (`y4m:PATH`, `y4m:-`, `-`, `*.y4m`): live unless a
    /// regular file; a reload opens and closes it first.
    static let y4m = InputFamily(
        name: "y4m", schemes: ["y4m"], forms: Y4MSource.uriForms,
        parse: { text throws(SourceURIError) in try Y4MSource.parseURI(text) },
        open: { uri, _, logger in (Y4MSource(path: uri.location, logger: logger), { _ in }) },
        checkOpenable: { uri, _ in try Y4MSource.checkOpenable(path: uri.location) },
        isLive: { uri in Y4MSource.isLive(path: uri.location) })
}
