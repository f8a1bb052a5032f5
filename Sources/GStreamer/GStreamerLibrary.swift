import CGStreamer

/// The GStreamer library syncscan runs with.
public enum GStreamerLibrary {
    /// GStreamer's own version (`gst_version_string`, e.g. `1.22.0`).
    ///
    /// Asked without `gst_init`: the version needs no initialized library, and initializing it
    /// (the plugin registry, its threads and allocations) is left to the first GStreamer source,
    /// so every other run of syncscan (`--version` is computed at each start) never loads it.
    public static var version: String {
        let text = GStreamerCalls.take(syncscan_gst_version_string())  // "GStreamer 1.22.0"
        return String(text.split(separator: " ").last ?? Substring(text))
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
