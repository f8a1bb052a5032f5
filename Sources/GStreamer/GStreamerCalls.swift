import CGStreamer
import SystemCalls

/// GStreamer's calls as `Result`s: each failure an `IOError` naming the call, GStreamer's own
/// message and what to do. Only this module imports CGStreamer.
enum GStreamerCalls {
    /// `gst_init_check`, once per process; later calls return the first outcome.
    static func initialize() -> Result<Void, IOError> { initialized }

    private static let initialized: Result<Void, IOError> = {
        var message: UnsafeMutablePointer<CChar>?
        guard syncscan_gst_init(&message) == 0 else {
            return .failure(IOError(code: .notSupported, call: "gst_init_check",
                                    message: "\(take(message)); check the GStreamer installation (libgstreamer1.0-0)"))
        }
        return .success(())
    }()

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
