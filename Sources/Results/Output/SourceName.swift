import Media

/// A source's short name as handlers put it in what they send (MQTT topics and client ids, webhook ids).
public enum SourceName {
    /// The source's name: `SourceURI.name(of:)` (`video0` for `/dev/video0`, `stream1` for
    /// `rtsp://cam:554/stream1`, never a credential), topic-safe.
    public static func of(_ uri: String) -> String { topicSafe(SourceURI.name(of: uri)) }

    /// `name` (a source's own, `SourceURI.name`) as a topic level: MQTT's wildcards and the level
    /// separator as `_`; `stdin` when empty.
    public static func topicSafe(_ name: String) -> String {
        let cleaned = String(name.map { $0 == "+" || $0 == "#" || $0 == "/" ? "_" : $0 })
        return cleaned.isEmpty ? "stdin" : cleaned
    }
}
