import ConfigurationKeys

/// What the live view shows and what it may cost: preview frames a second and their width, outline updates a second.
public struct LiveViewSettings: Sendable, Hashable {
    /// Preview frames encoded per second at most, while a viewer wants pictures (`http.preview_fps`).
    public var previewFPS = 5.0
    /// The preview's width in pixels; a narrower frame keeps its own (`http.preview_width`).
    public var previewWidth = 640
    /// JPEG quality of the preview.
    public var quality = 70
    /// Code lines kept for a viewer that connects later (the page's list).
    public var recentCodes = 20
    /// Outline updates (what a scanned frame held) sent per second at most: twice the default
    /// preview rate, so an outline follows a code as it moves.
    public var outlinesPerSecond = 10.0

    public init(previewFPS: Double = 5.0, previewWidth: Int = 640) {
        (self.previewFPS, self.previewWidth) = (previewFPS, previewWidth)
    }
}

extension LiveViewSettings: ConfigurationSection {
    /// Reads the live view's keys among `http.*` (given `keys.scoped(to: "http")`): `preview_fps`, `preview_width`.
    public init(reading keys: ConfigurationKeyReader) {
        self.init()
        if let v = keys.double("preview_fps", in: 0...60, lowerOpen: true, " (preview frames a second)") { previewFPS = v }
        if let v = keys.int("preview_width", in: 16...7680, " (preview width in pixels)") { previewWidth = v }
    }
}
