import Logging
import Media
import V4L2

extension SourceFactory {
    static func makeCameraSource(path: String, device: PipelineOptions.Device, logger: Logger) throws -> any FrameSource {
        throw SourceURIError(uri: path, reason: "camera input is not wired yet")
    }
}
