import Logging
import Media
import V4L2

extension SourceFactory {
    /// A V4L2 camera source with the configured device settings.
    static func makeCameraSource(path: String, device: SyncscanConfiguration.Device, logger: Logger) throws -> any FrameSource {
        let configuration = V4L2CaptureSource.Configuration(
            width: device.width, height: device.height, framesPerSecond: device.fps, pixelFormat: device.fourcc,
            maximumWidth: device.maxWidth, maximumHeight: device.maxHeight, bufferCount: device.buffers)
        return try V4L2CaptureSource(path: path, configuration: configuration, logger: logger)
    }
}
