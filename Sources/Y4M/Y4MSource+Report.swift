import Media

extension Y4MSource {
    /// The stream as it says of itself: `y4m`, `Y4M file PATH` (a regular file), `Y4M stream PATH`
    /// (a pipe, FIFO or device) or `Y4M stream on standard input`, and the mode its header gives
    /// once `start()` has read it (origin `file`, or `assumed` without an `F` tag: 25 fps). No
    /// controls; never reopened.
    public var report: SourceReport {
        let mode = header.map { header in
            SourceMode(width: header.width, height: header.height, format: header.pixelFormat.description,
                       framesPerSecond: Double(header.frameRate.numerator) / Double(max(1, header.frameRate.denominator)),
                       origin: header.frameRateIsFromHeader ? "file" : "assumed")
        }
        let label = path == "-" ? "Y4M stream on standard input" : (isLive ? "Y4M stream " : "Y4M file ") + SecretRedaction.redacted(path)
        return SourceReport(kind: "y4m", label: label, mode: mode)
    }
}
