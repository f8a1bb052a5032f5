import Capture
import JPEG
import Media
import Testing

/// JPEG frames as a UVC webcam sends them in its MJPEG modes, made at test time with TurboJPEG:
/// colour 4:2:2 (2x1 luma sampling), baseline, with a real QR code drawn in.
public enum CameraJPEG {
    /// A `width`×`height` JPEG of a grey scene with `text` as a QR code at (`x`, `y`), `moduleSize`
    /// pixels a module, encoded from YUYV (4:2:2) at `quality`; with its grey scene.
    public static func make(width: Int, height: Int, text: String?, x: Double = 16, y: Double = 16, moduleSize: Double = 4,
                            background: UInt8 = 200, quality: Int = 88) throws -> (jpeg: [UInt8], scene: GreyFrame) {
        var scene = GreyFrame(width: width, height: height, background: background)
        // Texture: a gradient band, so the entropy-coded data is not trivially flat.
        for y in 0..<height where y % 8 < 2 {
            for x in 0..<width { scene[x, y] = UInt8(truncatingIfNeeded: (x * 255) / max(1, width - 1)) }
        }
        if let text {
            scene.draw(try ModuleMatrix.qrCode(text), x: x, y: y, moduleSize: moduleSize)
        }
        let (yuyv, stride) = scene.bytes(as: .yuyv)
        let jpeg = try yuyv.withUnsafeBytes { bytes in
            try JPEGEncoder().encode(bytes, format: .yuyv, width: width, height: height, bytesPerLine: stride, quality: quality)
        }
        return (jpeg, scene)
    }
}

/// A camera's MJPEG frame as the session hands it to the handlers: decoded to grey by TurboJPEG,
/// the copy of its pixels taken from the grey plane and, for the whole frame, the camera's bytes.
public func mjpegFramePixels(_ jpeg: [UInt8], width: Int, height: Int, seq: UInt64, region: PixelRect?,
                             pool: FramePixelPool) throws -> (pixels: FramePixels, info: FrameInfo) {
    let info = FrameInfo(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 33_333_333),
                         width: width, height: height, format: .mjpeg)
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: width * height, alignment: 64)
    let result = jpeg.withUnsafeBytes { JPEGLumaDecoder().decodeLuma($0, width: width, height: height, into: storage) }
    #expect(result == .decoded(warning: nil))
    let grey = VideoFrame(sequenceNumber: seq, presentationTime: info.presentationTime, width: width, height: height,
                          bytesPerLine: width, format: .grey, buffer: PixelBuffer(bytes: UnsafeRawBufferPointer(storage)) { storage.deallocate() })
    let pixels = try jpeg.withUnsafeBytes { bytes in
        try #require(pool.copy(grey, region: region, decodedFrom: (info: info, bytes: bytes)))
    }
    return (pixels, info)
}
