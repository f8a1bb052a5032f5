import CGStreamer

/// The GStreamer library syncscan runs with.
public enum GStreamerLibrary {
    /// GStreamer's own version (`gst_version_string`, e.g. `1.22.0`), or the init error's text.
    public static var version: String {
        switch GStreamerCalls.initialize() {
        case .success:
            let text = GStreamerCalls.take(syncscan_gst_version_string())  // "GStreamer 1.22.0"
            return String(text.split(separator: " ").last ?? Substring(text))
        case .failure(let error):
            return "unavailable: \(error)"
        }
    }

    /// Where `version` comes from.
    public static let versionOrigin = "gst_version_string"

    /// Whether an installed element reads URIs of `scheme` (`gst_uri_protocol_is_supported`).
    public static func readsURIs(ofScheme scheme: String) -> Bool {
        guard case .success = GStreamerCalls.initialize() else { return false }
        return syncscan_gst_has_uri_source(scheme) != 0
    }

    /// Whether the element factory `name` is installed (`gst_element_factory_find`).
    public static func hasElement(_ name: String) -> Bool {
        guard case .success = GStreamerCalls.initialize() else { return false }
        return syncscan_gst_has_element(name) != 0
    }
}
