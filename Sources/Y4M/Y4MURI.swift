import Media

extension Y4MSource {
    /// The Y4M forms, for messages.
    public static let uriForms = "y4m:PATH, y4m:- (standard input), - or a .y4m file"

    /// Parses the Y4M forms of `text`: `y4m:PATH`, `y4m:-` (standard input), `-`, any path ending
    /// in `.y4m`. Pure: looks at the text only, never at the file system.
    /// - Returns: `nil` when `text` is not a Y4M form.
    /// - Throws: `SourceURIError` for `y4m:` without a path.
    public static func parseURI(_ text: String) throws(SourceURIError) -> SourceURI? {
        if text.hasPrefix("y4m:") {
            let path = String(text.dropFirst(4))
            guard !path.isEmpty else { throw SourceURIError(uri: text, reason: "y4m: needs a path or - for stdin") }
            return SourceURI(family: "y4m", location: path)
        }
        if text == "-" || text.lowercased().hasSuffix(".y4m") {
            return SourceURI(family: "y4m", location: text)
        }
        return nil
    }

    /// Whether `path` is read as a live input (a pipe, FIFO, standard input or character device)
    /// rather than a file, by `stat(2)`; `nil` when it cannot be told (a missing path).
    public static func isLive(path: String) -> Bool? {
        (try? (path == "-" ? Y4MFileKind(of: .standardInput) : Y4MFileKind(atPath: path)))?.isLive
    }
}
