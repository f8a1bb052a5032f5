import Capture
import Media

/// The luma of a frame's pixels, scaled down (nearest sample) to a grey picture at most `width`
/// wide: the live view's preview, a few frames a second — unless the camera's own JPEG fits.
struct PreviewScaler {
    /// `width`×`height` grey bytes, rows of `width`.
    struct Grey {
        var bytes: [UInt8]
        var width: Int
        var height: Int
    }

    /// The camera's JPEG of a whole MJPEG frame at most `maximumWidth` wide, byte for byte (colour,
    /// `LiveViewSettings.quality` not applied); `nil` for any other frame or copy, which is scaled.
    static func cameraJPEG(of pixels: FramePixels, maximumWidth: Int) -> [UInt8]? {
        guard pixels.frame.format == .mjpeg, pixels.frame.width <= maximumWidth, let jpeg = pixels.cameraJPEG else { return nil }
        return jpeg
    }

    /// The grey picture of `pixels` at most `maximumWidth` wide (even sides, at least 2x2).
    static func scale(_ pixels: FramePixels, maximumWidth: Int) -> Grey {
        let width = max(2, min(maximumWidth, pixels.width) & ~1)
        let height = max(2, (pixels.height * width / max(1, pixels.width)) & ~1)
        let (offset, step) = pixels.format.lumaLayout
        var out = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeBytes { bytes in
            out.withUnsafeMutableBufferPointer { grey in
                for y in 0..<height {
                    let row = (y * pixels.height / height) * pixels.bytesPerLine + offset
                    for x in 0..<width {
                        let at = row + (x * pixels.width / width) * step
                        if at < bytes.count { grey[y * width + x] = bytes[at] }
                    }
                }
            }
        }
        return Grey(bytes: out, width: width, height: height)
    }
}
