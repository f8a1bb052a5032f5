import Logging
import Media
import V4L2

extension SourceFactory {
    /// A V4L2 camera source with the requested device settings.
    static func makeCameraSource(path: String, device: PipelineOptions.Device, logger: Logger) throws -> any FrameSource {
        var pixelFormat: PixelFormat?
        if let fourcc = device.fourcc {
            guard let format = PixelFormat(rawValue: fourcc.uppercased()) else {
                throw SourceURIError(uri: path, reason: "unsupported fourcc \"\(fourcc)\": ask for one zbar reads "
                    + "(\(PixelFormat.allCases.filter { $0 != .yuv444p && $0 != .yuv422p }.map(\.rawValue).joined(separator: ", "))); "
                    + "MJPEG cameras are converted by libv4l2 when no fourcc is given")
            }
            pixelFormat = format
        }
        let configuration = V4L2CaptureSource.Configuration(
            width: device.width, height: device.height, framesPerSecond: device.framesPerSecond, pixelFormat: pixelFormat,
            maximumWidth: device.maximumWidth, maximumHeight: device.maximumHeight, bufferCount: device.bufferCount)
        return try V4L2CaptureSource(path: path, configuration: configuration, logger: logger)
    }
}
