import CGStreamer
import Media
import SystemCalls

/// One playing GStreamer pipeline ending in syncscan's `appsink`; set to NULL and unreferenced in deinit.
///
/// Pulled from one thread at a time (the source's); `deinit` from whichever drops it last.
final class GStreamerPipeline: @unchecked Sendable {  // unchecked: owns GStreamer C handles pulled from one thread at a time
    private let pipeline: OpaquePointer
    private let sink: OpaquePointer
    /// Whether each pulled buffer's NTP reference timestamp is read.
    private let readsCameraTime: Bool

    /// What one pull gave.
    enum Pulled {
        case frame(GStreamerLuma)
        /// Nothing within the timeout.
        case none
        case endOfStream
        case failed(GStreamerFailure)
    }

    /// Parses `description` (`gst_parse_launch`), finds its sink and sets it playing; a refusal
    /// to play is thrown with GStreamer's reason and `advice` for its cause.
    /// - Parameter readsCameraTime: read each buffer's `timestamp/x-ntp` reference timestamp
    ///   (`gst_buffer_get_reference_timestamp_meta`) into `GStreamerLuma.cameraTime`.
    init(description: String, shown: String, maxBuffers: UInt32, readsCameraTime: Bool = false,
         advice: (GStreamerFailure.Cause) -> String) throws(IOError) {
        self.readsCameraTime = readsCameraTime
        try GStreamerCalls.initialize().get()
        pipeline = try GStreamerCalls.parseLaunch(description, shown: shown).get()
        do throws(IOError) {
            sink = try GStreamerCalls.appSink(of: pipeline, maxBuffers: maxBuffers).get()
        } catch {
            syncscan_gst_unref(UnsafeMutablePointer(pipeline))
            throw error
        }
        if case .failure(let error) = GStreamerCalls.play(pipeline) {
            // The bus usually says why (a refused port, a missing file): name that instead.
            // Thrown with every property set: deinit releases the pipeline.
            if case .error(let failure) = GStreamerCalls.pollBus(pipeline, timeoutNanoseconds: 0) {
                throw IOError(code: failure.cause.code, call: "gst_element_set_state", message: "\(shown): \(failure.message); \(advice(failure.cause))")
            }
            throw error
        }
    }

    deinit { release() }

    private func release() {
        _ = syncscan_gst_set_null(UnsafeMutablePointer(pipeline))
        syncscan_gst_unref(UnsafeMutablePointer(sink))
        syncscan_gst_unref(UnsafeMutablePointer(pipeline))
    }

    /// The next frame within `timeoutNanoseconds` (`gst_app_sink_try_pull_sample`, then
    /// `gst_video_frame_map`), or what the bus reported (an error, the end of the stream).
    func pull(timeoutNanoseconds: UInt64) -> Pulled {
        let luma = UnsafeMutablePointer<syncscan_gst_luma>.allocate(capacity: 1)
        var message: UnsafeMutablePointer<CChar>?
        switch syncscan_gst_pull_luma(UnsafeMutablePointer(sink), timeoutNanoseconds, readsCameraTime ? 1 : 0, luma, &message) {
        case 1:
            return .frame(GStreamerLuma(luma))
        case 2:
            luma.deallocate()
            if case .error(let failure) = GStreamerCalls.pollBus(pipeline, timeoutNanoseconds: 0) { return .failed(failure) }
            return .endOfStream
        case 0:
            luma.deallocate()
            switch GStreamerCalls.pollBus(pipeline, timeoutNanoseconds: 0) {
            case .none: return .none
            case .endOfStream: return .endOfStream
            case .error(let failure): return .failed(failure)
            }
        default:
            luma.deallocate()
            return .failed(GStreamerFailure(message: GStreamerCalls.take(message), cause: .other))
        }
    }
}

/// A mapped sample's luma plane; its bytes are lent to a `PixelBuffer`, which unmaps the frame
/// and drops the sample (`gst_video_frame_unmap`, `gst_sample_unref`) when the pipeline lets go.
struct GStreamerLuma: @unchecked Sendable {  // unchecked: a mapped C frame, handed once to the `PixelBuffer` that unmaps it
    private let mapped: UnsafeMutablePointer<syncscan_gst_luma>

    fileprivate init(_ mapped: UnsafeMutablePointer<syncscan_gst_luma>) { self.mapped = mapped }

    var width: Int { Int(mapped.pointee.width) }
    var height: Int { Int(mapped.pointee.height) }
    var bytesPerLine: Int { Int(mapped.pointee.stride) }
    /// The buffer's running time, nanoseconds; `nil` without a timestamp.
    var runningTime: Int64? { mapped.pointee.running_time_ns >= 0 ? mapped.pointee.running_time_ns : nil }
    /// The caps' frame rate, frames a second; `nil` for a variable or unknown rate (0/1).
    var framesPerSecond: Double? {
        mapped.pointee.fps_n > 0 && mapped.pointee.fps_d > 0 ? Double(mapped.pointee.fps_n) / Double(mapped.pointee.fps_d) : nil
    }
    /// The caps' video format as GStreamer names it (`I420`, `GRAY8`, `NV12`).
    var formatName: String { mapped.pointee.format.map { String(cString: $0) } ?? "unknown" }
    /// Flagged DISCONT or GAP by GStreamer.
    var isDiscontinuity: Bool { mapped.pointee.discont != 0 }
    /// The camera's wall clock for this buffer, from its `timestamp/x-ntp` reference timestamp meta
    /// (an RTCP sender report's NTP time carried to the buffer's RTP time by rtpjitterbuffer);
    /// `nil` without one (before the first report, or a buffer the depayloader did not stamp).
    var cameraTime: CameraTime? {
        mapped.pointee.ntp_ns >= 0 ? CameraTime(ntpNanoseconds: mapped.pointee.ntp_ns) : nil
    }

    /// The pixels, owning the mapping from now on.
    func pixelBuffer() -> PixelBuffer {
        let mapped = self.mapped
        return PixelBuffer(bytes: UnsafeRawBufferPointer(start: mapped.pointee.luma, count: mapped.pointee.byte_count)) {
            syncscan_gst_luma_release(mapped)
            mapped.deallocate()
        }
    }

    /// Unmaps without handing the pixels on.
    func release() {
        syncscan_gst_luma_release(mapped)
        mapped.deallocate()
    }
}
