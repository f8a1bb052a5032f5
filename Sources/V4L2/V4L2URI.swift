import Media

extension V4L2CaptureSource {
    /// The camera forms, for messages.
    public static let uriForms = "/dev/videoN, v4l2:/dev/videoN or /dev/v4l/by-id/…"

    /// How to name a camera, for messages.
    public static let cameraForms = "name the camera as " + uriForms

    /// Parses the camera forms of `text`: `v4l2:PATH`, `v4l2:///dev/…`, `/dev/…` (an absolute
    /// device path, kept as given, symlinks too). Pure: looks at the text only.
    /// - Returns: `nil` when `text` is not a camera form.
    /// - Throws: `SourceURIError` for `v4l2:` without an absolute device path.
    public static func parseURI(_ text: String) throws(SourceURIError) -> SourceURI? {
        if text.hasPrefix("v4l2:") {
            var path = text.dropFirst(5)
            if path.hasPrefix("//") { path = path.dropFirst(2) }
            guard !path.isEmpty else { throw SourceURIError(uri: text, reason: "v4l2: needs a device path; " + cameraForms) }
            guard path.hasPrefix("/"), path.count > 1 else {
                throw SourceURIError(uri: text, reason: "not a device path; " + cameraForms)
            }
            return SourceURI(family: "v4l2", location: String(path))
        }
        if text.hasPrefix("/dev/"), text.count > 5, !text.lowercased().hasSuffix(".y4m") {
            return SourceURI(family: "v4l2", location: text)
        }
        return nil
    }
}
