import JPEG
import Logging
import Media
import V4L2

extension SourceFactory {
    /// A V4L2 camera source with the configured device settings; MJPEG is decoded to grey by
    /// TurboJPEG (`JPEGLumaDecoder`), so a camera's fast MJPEG modes are candidates.
    static func makeCameraSource(path: String, device: V4L2CaptureSource.Configuration, logger: Logger) throws -> V4L2CaptureSource {
        try V4L2CaptureSource(path: path, configuration: device, frameDecoder: JPEGLumaDecoder(), logger: logger)
    }
}
