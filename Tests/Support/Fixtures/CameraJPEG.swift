import JPEG
import Media

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
