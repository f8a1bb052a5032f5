/// One captured frame: its pixels and where it sits on the source's timeline.
public struct VideoFrame: Sendable {
    /// Position in the stream, increasing by one per frame the source produced (kernel
    /// sequence number for a camera, frame index for a file). A jump means frames were lost.
    public var sequenceNumber: UInt64
    /// When the frame was captured, on the source's clock.
    public var presentationTime: MediaTime
    public var width: Int
    public var height: Int
    /// Bytes per row of the luma plane (≥ `format.minimumBytesPerLine(width:)`).
    public var bytesPerLine: Int
    public var format: PixelFormat
    /// The pixels, owned by the source until released; for a compressed format, the compressed bytes.
    public var buffer: PixelBuffer
    /// How a compressed frame becomes grey pixels; set by the source of every compressed frame,
    /// `nil` for raw layouts.
    public var decoder: (any CompressedFrameDecoder)?
    /// When the camera saw it, on the camera's clock (RTSP with `rtsp.camera_time`); `nil` when unknown.
    public var cameraTime: CameraTime?
    /// When a live source captured it (the kernel's stamp) or, without one, took it in, on
    /// CLOCK_MONOTONIC (`MediaTime.monotonicNow`), as triggers stamp their presses; `nil` for a
    /// source with no such time (a file).
    public var capturedAt: MediaTime?

    public init(sequenceNumber: UInt64, presentationTime: MediaTime, width: Int, height: Int,
                bytesPerLine: Int, format: PixelFormat, buffer: PixelBuffer, decoder: (any CompressedFrameDecoder)? = nil,
                cameraTime: CameraTime? = nil, capturedAt: MediaTime? = nil) {
        self.sequenceNumber = sequenceNumber
        self.presentationTime = presentationTime
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.format = format
        self.buffer = buffer
        self.decoder = decoder
        self.cameraTime = cameraTime
        self.capturedAt = capturedAt
    }

    /// The frame's identity and geometry without its pixels.
    public var info: FrameInfo {
        FrameInfo(sequenceNumber: sequenceNumber, presentationTime: presentationTime,
                  width: width, height: height, format: format, cameraTime: cameraTime)
    }
}

/// A frame's identity and geometry, kept after its pixels went back to the source.
public struct FrameInfo: Sendable, Hashable {
    public var sequenceNumber: UInt64
    public var presentationTime: MediaTime
    public var width: Int
    public var height: Int
    public var format: PixelFormat
    /// When the camera saw it, on the camera's clock; `nil` when unknown.
    public var cameraTime: CameraTime?

    public init(sequenceNumber: UInt64, presentationTime: MediaTime, width: Int, height: Int, format: PixelFormat,
                cameraTime: CameraTime? = nil) {
        self.sequenceNumber = sequenceNumber
        self.presentationTime = presentationTime
        self.width = width
        self.height = height
        self.format = format
        self.cameraTime = cameraTime
    }
}
