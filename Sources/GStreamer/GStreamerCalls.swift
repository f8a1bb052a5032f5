import CGStreamer
import SystemCalls

/// GStreamer's calls as `Result`s: each failure an `IOError` naming the call, GStreamer's own
/// message and what to do. Only this module imports CGStreamer.
enum GStreamerCalls {
    /// `gst_init_check`, then `pipelinePlugins` loaded, once per process; later calls
    /// return the first outcome.
    ///
    /// Every use of GStreamer comes through here first, so the plugins are loaded before any
    /// pipeline exists in the process, never while another thread's decodebin is loading or
    /// creating elements.
    static func initialize() -> Result<Void, IOError> { initialized }

    private static let initialized: Result<Void, IOError> = {
        var message: UnsafeMutablePointer<CChar>?
        guard syncscan_gst_init(&message) == 0 else {
            return .failure(IOError(code: .notSupported, call: "gst_init_check",
                                    message: "\(take(message)); check the GStreamer installation (libgstreamer1.0-0)"))
        }
        for plugin in pipelinePlugins { _ = syncscan_gst_load_plugin(plugin) }
        return .success(())
    }()

    /// Every plugin whose elements a syncscan pipeline creates: the pipeline's own (core,
    /// `decodebin`, `videoconvert`, `appsink`, the RTSP, HTTP and file sources), what `rtspsrc`
    /// creates on its own threads (RTP session, UDP), and what decodebin plugs once a stream's
    /// data arrives: RTP depayloaders, the video parsers, libav's decoders, JPEG, multipart
    /// (MJPEG over HTTP), the MP4, Matroska and AVI demuxers and the type finders.
    ///
    /// Loaded by `initialize()` (`gst_plugin_load_by_name`; one not installed is skipped), for
    /// two reasons. Loading a plugin lazily on a streaming thread races with other threads
    /// creating their first objects of a class: GStreamer's plugin-loading mutex and GLib's
    /// class-initialization lock are then taken in opposite orders, and a process with two
    /// pipelines starting at once (the unit tests' RTSP and file sources) hung for good with
    /// `typefind:sink` waiting for the one and `rtspsrc`'s tasks for the other. And decodebin
    /// loads a plugin only when it first needs one of its elements, after a network stream's
    /// first packets have come; loading libav took 58–84 ms on a 2-core machine, and the frames
    /// that come meanwhile are decoded back to back once it has (from the test server's RTSP
    /// H.264: frames 0–5 within 30 ms, against 0–2 with the plugins loaded first), so with two
    /// scanners busy with the first two, the next frame of such a burst is `lateData`.
    static let pipelinePlugins = [
        "coreelements", "playback", "app", "videoconvertscale", "rtsp", "rtpmanager", "udp", "soup",
        "rtp", "videoparsersbad", "libav", "jpeg", "multipart", "isomp4", "matroska", "avi", "typefindfunctions",
    ]

    /// Whether the installed plugin `name` is loaded (`gst_registry_find_plugin`, `gst_plugin_is_loaded`).
    static func pluginIsLoaded(_ name: String) -> Bool { syncscan_gst_plugin_is_loaded(name) != 0 }

    /// A GStreamer-allocated string as a Swift string, freed (`g_free`).
    static func take(_ text: UnsafeMutablePointer<CChar>?) -> String {
        guard let text else { return "(no message)" }
        defer { syncscan_gst_free(text) }
        return String(cString: text)
    }

    /// `gst_parse_launch` of `description`; the error shows `shown`, the description redacted.
    static func parseLaunch(_ description: String, shown: String) -> Result<OpaquePointer, IOError> {
        var message: UnsafeMutablePointer<CChar>?
        guard let pipeline = syncscan_gst_parse_launch(description, &message) else {
            return .failure(IOError(code: .invalidArgument, call: "gst_parse_launch",
                                    message: "\(shown): \(take(message)); install the plugin that has the element, or fix the description"))
        }
        return .success(OpaquePointer(pipeline))
    }

    /// The sink named `syncscan` of `pipeline` (`gst_bin_get_by_name`), holding at most `maxBuffers` samples.
    static func appSink(of pipeline: OpaquePointer, maxBuffers: UInt32) -> Result<OpaquePointer, IOError> {
        guard let sink = syncscan_gst_appsink(UnsafeMutablePointer(pipeline), maxBuffers) else {
            return .failure(IOError(code: .invalidArgument, call: "gst_bin_get_by_name",
                                    message: "the pipeline has no appsink named syncscan; end a gst: description with its elements only"))
        }
        return .success(OpaquePointer(sink))
    }

    /// `gst_element_set_state(PLAYING)`.
    static func play(_ pipeline: OpaquePointer) -> Result<Void, IOError> {
        syncscan_gst_set_playing(UnsafeMutablePointer(pipeline)) == 0
            ? .failure(IOError(code: .refused, call: "gst_element_set_state", message: "the pipeline refused to play"))
            : .success(())
    }

    /// What the bus says within `timeout` (`gst_bus_timed_pop_filtered`, ERROR and EOS only).
    enum BusMessage { case none, endOfStream, error(GStreamerFailure) }
    static func pollBus(_ pipeline: OpaquePointer, timeoutNanoseconds: UInt64) -> BusMessage {
        var message: UnsafeMutablePointer<CChar>?
        var cause: Int32 = 0
        switch syncscan_gst_poll_bus(UnsafeMutablePointer(pipeline), timeoutNanoseconds, &message, &cause) {
        case 0: return .none
        case 1: return .endOfStream
        default: return .error(GStreamerFailure(message: take(message), cause: GStreamerFailure.Cause(cause)))
        }
    }
}

/// A pipeline's error: GStreamer's message (`element: text`, which may quote the location: show
/// it redacted) and what its GError says went wrong.
struct GStreamerFailure: Sendable, Equatable {
    enum Cause: Sendable, Equatable {
        /// The server refused the credentials (RTSP or HTTP 401).
        case notAuthorized
        /// No such stream or file (RTSP or HTTP 404, a missing file).
        case notFound
        /// The server or file could not be opened (a refused or unreachable port).
        case cannotOpen
        case other

        /// The `IOError` code for it.
        var code: IOError.Code {
            switch self {
            case .notAuthorized: .permissionDenied
            case .notFound: .notFound
            case .cannotOpen, .other: .refused
            }
        }

        init(_ cause: Int32) {
            switch cause {
            case SYNCSCAN_GST_CAUSE_NOT_AUTHORIZED: self = .notAuthorized
            case SYNCSCAN_GST_CAUSE_NOT_FOUND: self = .notFound
            case SYNCSCAN_GST_CAUSE_CANNOT_OPEN: self = .cannotOpen
            default: self = .other
            }
        }
    }

    var message: String
    var cause: Cause
}
