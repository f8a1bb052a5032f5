import Capture
import JPEG
import Media
import Testing
import TestSupport
@testable import LiveView

/// The next picture a `/stream.mjpeg` viewer is sent: the bytes of one multipart part's body.
private func nextPicture(_ viewer: LiveViewPictureViewer) throws -> [UInt8] {
    var part: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 1 << 16)
    var body: Range<Int>?
    let ended = waitUntil(every: .zero) {
        guard let n = buffer.withUnsafeMutableBytes({ viewer.read(into: $0) }) else { return true }
        part += buffer[0..<n]
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0...max(0, part.count - separator.count)).first(where: { part[$0..<min(part.count, $0 + 4)].elementsEqual(separator) }),
              let length = String(decoding: part[..<end], as: UTF8.self).split(separator: "\r\n")
                  .first(where: { $0.hasPrefix("Content-Length: ") }).flatMap({ Int($0.dropFirst("Content-Length: ".count)) })
        else { return false }
        guard part.count >= end + 4 + length else { return false }
        body = (end + 4)..<(end + 4 + length)
        return true
    }
    let range = try #require(body, "a picture within the hang timeout (ended: \(ended))")
    return Array(part[range])
}

/// Hands the handler one whole-frame copy of a camera MJPEG frame, as the session does for a
/// picked frame, and returns the picture a viewer is then sent.
private func servedPreview(of jpeg: [UInt8], width: Int, height: Int, settings: LiveViewSettings) throws -> (served: [UInt8], pixels: FramePixels) {
    let handler = LiveViewResultsHandler(settings: settings, source: "v4l2:/dev/video0", logger: LogRecorder().logger)
    handler.start()
    let viewer = handler.hub.openPictures()
    defer { viewer.close(); try? handler.finish() }
    let pool = FramePixelPool(capacity: 2)
    let (pixels, info) = try mjpegFramePixels(jpeg, width: width, height: height, seq: 3, region: nil, pool: pool)
    #expect(handler.wantsPixels(of: info))
    try handler.frameCompleted(SynchronizedDataCollection(
        video: SynchronizedVideoData(sequenceNumber: 3, presentationTime: info.presentationTime, frame: info, droppedReason: nil,
                                     pixels: pixels),
        metadata: SynchronizedMetadataObjectData(presentationTime: info.presentationTime, metadataObjects: [])))
    return (try nextPicture(viewer), pixels)
}

@Suite(.offThePool) struct LiveViewPreviewTests {
    /// The copies the handler holds at once, counted as the pool's copies lent while frames come
    /// faster than previews are encoded (each picked as the session picks it): never more than
    /// `pixelCopiesHeld`, what the session's pool makes room for; that many while one preview is
    /// made and the next waits (the event waited for); none once the handler has finished.
    @Test func theHandlerHoldsAtMostThePixelCopiesItDeclares() throws {
        let handler = LiveViewResultsHandler(settings: LiveViewSettings(previewFPS: 1000, previewWidth: 1280), source: "test",
                                             logger: LogRecorder().logger)
        handler.start()
        let viewer = handler.hub.openPictures()
        let pool = FramePixelPool(capacity: handler.pixelCopiesHeld + 4)
        let scene = GreyFrame(width: 1280, height: 720).videoFrame()
        var frames: UInt64 = 0
        /// Offers the handler one more frame; its copy, when picked, is the handler's alone after.
        func offer() throws {
            frames += 1
            var frame = scene
            frame.sequenceNumber = frames
            var pixels: FramePixels?
            if handler.wantsPixels(of: frame.info) {
                let copy = try #require(pool.copy(frame), "a copy of frame \(frames)")
                pixels = copy
            }
            try handler.frameCompleted(SynchronizedDataCollection(
                video: SynchronizedVideoData(sequenceNumber: frames, presentationTime: frame.presentationTime, frame: frame.info,
                                             droppedReason: nil, pixels: pixels),
                metadata: SynchronizedMetadataObjectData(presentationTime: frame.presentationTime, metadataObjects: [])))
        }
        var held: [Int] = []
        let reached = try waitUntil(every: .zero) {
            try offer()
            held.append(pool.lentCount)
            return held.last! >= handler.pixelCopiesHeld
        }
        #expect(reached, "\(handler.pixelCopiesHeld) copies held at once within \(frames) frames: \(held.max() ?? 0) at most")
        #expect(held.allSatisfy { $0 <= handler.pixelCopiesHeld }, "copies held after each frame: \(held)")
        // Frames keep coming while the previews are made: still no more than declared.
        for _ in 0..<50 {
            try offer()
            #expect(pool.lentCount <= handler.pixelCopiesHeld, "after frame \(frames)")
        }
        viewer.close()
        try handler.finish()
        #expect(pool.lentCount == 0, "copies held once the handler finished")
    }

    /// A camera MJPEG frame as wide as the preview is streamed as the camera sent it: no decode, no re-encode.
    @Test func anMJPEGFrameThatFitsThePreviewIsStreamedAsTheCamerasJPEG() throws {
        let (jpeg, _) = try CameraJPEG.make(width: 640, height: 360, text: "LIVE VIEW", moduleSize: 5)
        let (served, _) = try servedPreview(of: jpeg, width: 640, height: 360, settings: LiveViewSettings(previewFPS: 5, previewWidth: 640))
        let identical = served == jpeg  // compared outside #expect: a failure prints the counts, not every byte
        #expect(identical, "byte for byte the camera's JPEG (\(served.count) bytes served, \(jpeg.count) from the camera)")
    }

    /// A camera MJPEG frame wider than the preview is scaled from its grey plane and encoded, as any other frame.
    @Test func anMJPEGFrameWiderThanThePreviewIsScaledFromItsGreyPlane() throws {
        let (jpeg, _) = try CameraJPEG.make(width: 1280, height: 720, text: "WIDE", moduleSize: 6)
        let settings = LiveViewSettings(previewFPS: 5, previewWidth: 640)
        let (served, pixels) = try servedPreview(of: jpeg, width: 1280, height: 720, settings: settings)
        let reused = served == jpeg
        #expect(!reused)
        // What the preview was before camera JPEGs were reused: the luma scaled to 640x360, encoded grey.
        let grey = PreviewScaler.scale(pixels, maximumWidth: 640)
        #expect(grey.width == 640 && grey.height == 360)
        let expected = try grey.bytes.withUnsafeBytes {
            try JPEGEncoder().encode($0, format: .grey, width: 640, height: 360, bytesPerLine: 640, quality: settings.quality)
        }
        let asBefore = served == expected
        #expect(asBefore, "the grey 640x360 preview at quality \(settings.quality) (\(served.count) bytes served, \(expected.count) expected)")
        let plane = UnsafeMutableRawBufferPointer.allocate(byteCount: 640 * 360, alignment: 64)
        defer { plane.deallocate() }
        #expect(served.withUnsafeBytes { JPEGLumaDecoder().decodeLuma($0, width: 640, height: 360, into: plane) } == .decoded(warning: nil))
    }

    /// Only a whole MJPEG frame carries the camera's bytes; a frame of another format is always scaled.
    @Test func onlyAWholeMJPEGFrameNoWiderThanThePreviewIsReused() throws {
        let (jpeg, _) = try CameraJPEG.make(width: 320, height: 240, text: "CHOICE", moduleSize: 4)
        let pool = FramePixelPool(capacity: 2)
        let (whole, _) = try mjpegFramePixels(jpeg, width: 320, height: 240, seq: 1, region: nil, pool: pool)
        let fits = PreviewScaler.cameraJPEG(of: whole, maximumWidth: 320) == jpeg
        #expect(fits)
        #expect(PreviewScaler.cameraJPEG(of: whole, maximumWidth: 319) == nil)
        let grey = GreyFrame(width: 320, height: 240).videoFrame(sequenceNumber: 2, presentationTime: .zero)
        let copy = try #require(pool.copy(grey))
        #expect(copy.cameraJPEG == nil && PreviewScaler.cameraJPEG(of: copy, maximumWidth: 640) == nil)
    }
}
