import Media

/// The GStreamer input's URI forms: network streams, video files and `gst:` pipeline descriptions.
public enum GStreamerURI {
    /// The forms, for messages.
    public static let forms = "rtsp://, rtsps://, http(s):// (MJPEG, HLS), a video file (.mp4, .mkv, .mov, .webm, .avi, …) or gst:PIPELINE"

    /// Network schemes, read live.
    public static let networkSchemes: Set<String> = ["rtsp", "rtsps", "http", "https"]
    /// Every scheme the family owns.
    public static let schemes: Set<String> = networkSchemes.union(["gst", "file"])
    /// File name endings read as video files (case-insensitive).
    public static let fileExtensions: Set<String> = ["mp4", "m4v", "mkv", "mov", "webm", "avi", "ts", "mts", "mpg", "mpeg",
                                                     "ogv", "flv", "3gp", "mjpeg", "mjpg", "h264", "h265"]

    /// Parses `text`: a network URL (kept whole, shown redacted), `file:PATH` or `file:///PATH`, a
    /// path ending in a video extension, or `gst:DESCRIPTION`. Pure: text only.
    /// - Returns: `nil` when `text` is not one of these forms.
    /// - Throws: `SourceURIError` for one of its schemes without what must follow.
    public static func parse(_ text: String) throws(SourceURIError) -> SourceURI? {
        let lowered = text.lowercased()
        if let colon = text.firstIndex(of: ":") {
            let scheme = String(text[..<colon]).lowercased()
            let rest = text[text.index(after: colon)...]
            if networkSchemes.contains(scheme) {
                guard rest.hasPrefix("//"), rest.count > 2 else {
                    throw SourceURIError(uri: text, reason: "\(scheme): needs //HOST/PATH, e.g. \(scheme)://camera.local/stream")
                }
                return SourceURI(family: "gst", location: text, written: text)
            }
            if scheme == "gst" {
                guard !rest.allSatisfy(\.isWhitespace) else {
                    throw SourceURIError(uri: text, reason: "gst: needs a pipeline description, e.g. gst:libcamerasrc")
                }
                return SourceURI(family: "gst", location: text, written: text)
            }
            if scheme == "file" {
                var path = rest
                if path.hasPrefix("//") { path = path.dropFirst(2) }
                guard path.count > 1 else { throw SourceURIError(uri: text, reason: "file: needs a path, e.g. file:/srv/clip.mp4") }
                return SourceURI(family: "gst", location: "file:" + path, written: "file:" + path)
            }
        }
        if let dot = lowered.lastIndex(of: "."), !lowered[dot...].contains("/"),
           fileExtensions.contains(String(lowered[lowered.index(after: dot)...])) {
            return SourceURI(family: "gst", location: "file:" + text, written: "file:" + text)
        }
        return nil
    }

    /// What kind of input `uri` (parsed by `parse`) names.
    public enum Kind: Sendable, Equatable {
        case network(scheme: String)
        case file(path: String)
        case pipeline(description: String)
    }

    public static func kind(of uri: SourceURI) -> Kind {
        let text = uri.location
        if text.hasPrefix("file:") { return .file(path: String(text.dropFirst(5))) }
        if text.hasPrefix("gst:") { return .pipeline(description: String(text.dropFirst(4))) }
        return .network(scheme: String(text.prefix { $0 != ":" }).lowercased())
    }

    /// Whether `uri` is live: network streams and `gst:` pipelines (cameras) are, files are not.
    public static func isLive(_ uri: SourceURI) -> Bool {
        if case .file = kind(of: uri) { return false }
        return true
    }

    /// How RTSP's media packets travel (`rtspsrc protocols`).
    public enum RTSPTransport: String, CaseIterable, Sendable, Hashable {
        /// Interleaved on the RTSP connection: through NAT and firewalls, and a lost server is
        /// noticed at once.
        case tcp
        /// RTP over UDP: no head-of-line blocking, but a lost server is noticed only by its
        /// silence (rtspsrc's 5 s timeout).
        case udp
    }

    /// The appsink every pipeline ends in: 8-bit luma-first formats only, so a decoder giving one
    /// of them passes through `videoconvert` untouched (no colour conversion).
    static let sinkTail = "videoconvert ! appsink name=syncscan sync=false caps=\"video/x-raw,format=(string){GRAY8,I420,YV12,NV12,NV21,Y42B,Y444}\""

    /// The `gst_parse_launch` description for `uri` (credentials included: never log it), with
    /// RTSP's `transport` and jitter buffer (`latencyMilliseconds`); with `cameraTime`, RTSP
    /// buffers carry the camera's NTP time once an RTCP sender report came.
    public static func pipelineDescription(_ uri: SourceURI, transport: RTSPTransport = .tcp, latencyMilliseconds: Int = 200,
                                           cameraTime: Bool = false) -> String {
        switch kind(of: uri) {
        case .network(let scheme) where scheme.hasPrefix("rtsp"):
            // buffer-mode=none: the buffers' timestamps are the RTP clock's (the camera's own
            // timeline), not the jitter buffer's default "slave" estimate, which follows the
            // arrival times for seconds after frames come late or in a burst.
            // add-reference-timestamp-meta: rtpjitterbuffer stamps each buffer with the sender
            // report's NTP time carried to its RTP time; the pts stay as they are (ntp-sync,
            // which would move them onto the NTP clock, is left off).
            let meta = cameraTime ? " add-reference-timestamp-meta=true" : ""
            return "rtspsrc location=\(quoted(uri.location)) latency=\(latencyMilliseconds) protocols=\(transport.rawValue) buffer-mode=none\(meta) ! decodebin ! " + sinkTail
        case .network:
            return "souphttpsrc location=\(quoted(uri.location)) is-live=true ! decodebin ! " + sinkTail
        case .file(let path):
            return "filesrc location=\(quoted(path)) ! decodebin ! " + sinkTail
        case .pipeline(let description):
            return description + " ! " + sinkTail
        }
    }

    /// `text` as a quoted `gst_parse_launch` value.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// The Debian package holding the elements a scheme needs, for messages.
    public static func package(forScheme scheme: String) -> String {
        switch scheme {
        case "rtsp", "rtsps": "gstreamer1.0-plugins-good (rtspsrc) and gstreamer1.0-libav (H.264/H.265 decoders)"
        case "http", "https": "gstreamer1.0-plugins-good (souphttpsrc) and gstreamer1.0-plugins-bad (HLS)"
        default: "gstreamer1.0-plugins-good, gstreamer1.0-plugins-bad and gstreamer1.0-libav"
        }
    }

    /// Checks without opening that installed elements can read `uri`: the source element its
    /// pipeline starts with, `decodebin` and `videoconvert`. Throws naming the Debian package.
    public static func checkInstalled(_ uri: SourceURI) throws(SourceURIError) {
        var needed = ["decodebin": "gstreamer1.0-plugins-base", "videoconvert": "gstreamer1.0-plugins-base", "appsink": "gstreamer1.0-plugins-base"]
        switch kind(of: uri) {
        case .network(let scheme):
            needed[scheme.hasPrefix("rtsp") ? "rtspsrc" : "souphttpsrc"] = package(forScheme: scheme)
        case .file:
            needed["filesrc"] = "libgstreamer1.0-0"
        case .pipeline:
            break  // its elements are named by the user: gst_parse_launch names a missing one at start
        }
        for (element, package) in needed.sorted(by: { $0.key < $1.key }) where !GStreamerLibrary.hasElement(element) {
            throw SourceURIError(uri: uri.location, reason: "no installed GStreamer plugin has \(element); install \(package)")
        }
    }
}
