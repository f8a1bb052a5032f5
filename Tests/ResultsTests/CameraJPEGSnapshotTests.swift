import Capture
import Decoders
import JPEG
import Media
import Testing
import TestSupport
@testable import Results

@Suite(.offThePool) struct CameraJPEGSnapshotTests {
    @Test func aSnapshotOfAWholeMJPEGFrameIsTheCamerasJPEGByteForByte() throws {
        let (jpeg, _) = try CameraJPEG.make(width: 320, height: 240, text: "CAMERA JPEG", moduleSize: 4)
        let directory = InMemorySnapshotDirectory()
        let handler = SnapshotResultsHandler(settings: SnapshotSettings(directory: directory.path), directory: directory,
                                             logger: LogRecorder().logger)
        let pool = FramePixelPool(capacity: 2)
        let (pixels, info) = try mjpegFramePixels(jpeg, width: 320, height: 240, seq: 7, region: nil, pool: pool)
        #expect(pixels.cameraJPEG == jpeg && pixels.format == .grey && pixels.frame.format == .mjpeg)
        let code = MachineReadableCodeObject(symbology: .qrcode, data: Array("CAMERA JPEG".utf8), text: "CAMERA JPEG", quality: 1,
                                             orientation: .up, corners: [PixelPoint(x: 16, y: 16), PixelPoint(x: 16, y: 100),
                                                                         PixelPoint(x: 100, y: 100), PixelPoint(x: 100, y: 16)], frame: info, pass: .zbar)
        var delivered = DeliveredCode(code: code, pixels: pixels)
        try handler.handle(&delivered)
        try handler.finish()
        let name = try #require(delivered.fields.first { $0.name == "snapshot" }?.value)
        #expect(directory.contents[name] == jpeg, "the file is the camera's JPEG, not a re-encode")
        #expect(handler.written == 1 && handler.failed == 0)
    }

    @Test func aCroppedCopyOfAnMJPEGFrameIsEncodedFromItsGreyPlane() throws {
        let (jpeg, _) = try CameraJPEG.make(width: 320, height: 240, text: "CROP", moduleSize: 4)
        let pool = FramePixelPool(capacity: 2)
        let (pixels, _) = try mjpegFramePixels(jpeg, width: 320, height: 240, seq: 1,
                                               region: PixelRect(x: 8, y: 8, width: 160, height: 120), pool: pool)
        #expect(pixels.cameraJPEG == nil && pixels.format == .grey && pixels.width == 160)
        let directory = InMemorySnapshotDirectory()
        var settings = SnapshotSettings(directory: directory.path)
        settings.crop = .code
        let handler = SnapshotResultsHandler(settings: settings, directory: directory, logger: LogRecorder().logger)
        let code = MachineReadableCodeObject(symbology: .qrcode, data: Array("CROP".utf8), text: "CROP", quality: 1, orientation: .up,
                                             corners: [PixelPoint(x: 16, y: 16)], frame: pixels.frame, pass: .zbar)
        var delivered = DeliveredCode(code: code, pixels: pixels)
        try handler.handle(&delivered)
        try handler.finish()
        let file = try #require(directory.contents.values.first)
        #expect(file.starts(with: [0xFF, 0xD8]) && file != jpeg)
    }
}
