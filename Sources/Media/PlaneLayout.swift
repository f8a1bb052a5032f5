/// Where one plane of a single-planar frame sits and how it maps to pixel columns and rows.
public struct PlaneLayout: Sendable, Hashable {
    /// Byte offset of the plane's first row in the frame.
    public var offset: Int
    /// Bytes per row of the plane.
    public var bytesPerLine: Int
    /// Rows of the plane.
    public var rows: Int
    /// Pixel columns per sample group (2 for subsampled chroma, else 1).
    public var horizontalSubsampling: Int
    /// Pixel rows per plane row (2 for 4:2:0 chroma, else 1).
    public var verticalSubsampling: Int
    /// Bytes per sample group: 2 for packed 4:2:2 (a Y and a chroma byte per pixel) and for
    /// interleaved CbCr (NV12/NV21), else 1.
    public var bytesPerGroup: Int

    /// The byte range within a row of this plane that holds pixel columns `x..<x+width`.
    public func columnBytes(x: Int, width: Int) -> Range<Int> {
        let first = x / horizontalSubsampling
        let end = (x + width + horizontalSubsampling - 1) / horizontalSubsampling
        return (first * bytesPerGroup)..<(end * bytesPerGroup)
    }

    /// The plane rows that hold pixel rows `y..<y+height`.
    public func rowRange(y: Int, height: Int) -> Range<Int> {
        (y / verticalSubsampling)..<((y + height + verticalSubsampling - 1) / verticalSubsampling)
    }
}

extension PixelFormat {
    /// The planes of a `height`-row frame whose luma rows are `bytesPerLine` bytes, in memory
    /// order, as `frameSize(width:height:bytesPerLine:)` counts them.
    public func planes(height: Int, bytesPerLine: Int) -> [PlaneLayout] {
        let luma = PlaneLayout(offset: 0, bytesPerLine: bytesPerLine, rows: height,
                               horizontalSubsampling: 1, verticalSubsampling: 1, bytesPerGroup: lumaLayout.step)
        let halfStride = (bytesPerLine + 1) / 2, halfRows = (height + 1) / 2, lumaBytes = bytesPerLine * height
        func chroma(_ index: Int, stride: Int, rows: Int, h: Int, v: Int, group: Int) -> PlaneLayout {
            PlaneLayout(offset: lumaBytes + index * stride * rows, bytesPerLine: stride, rows: rows,
                        horizontalSubsampling: h, verticalSubsampling: v, bytesPerGroup: group)
        }
        switch self {
        case .grey, .yuyv, .uyvy: return [luma]
        case .nv12, .nv21: return [luma, chroma(0, stride: 2 * halfStride, rows: halfRows, h: 2, v: 2, group: 2)]
        case .yuv420, .yvu420:
            return [luma] + (0..<2).map { chroma($0, stride: halfStride, rows: halfRows, h: 2, v: 2, group: 1) }
        case .yuv422p: return [luma] + (0..<2).map { chroma($0, stride: halfStride, rows: height, h: 2, v: 1, group: 1) }
        case .yuv444p: return [luma] + (0..<2).map { chroma($0, stride: bytesPerLine, rows: height, h: 1, v: 1, group: 1) }
        case .mjpeg: return []
        }
    }

    /// Pixel columns and rows a crop must start on and span in multiples of, so no chroma
    /// sample is split: (2, 2) for 4:2:0, (2, 1) for 4:2:2, (1, 1) for grey and 4:4:4.
    public var cropAlignment: (x: Int, y: Int) {
        switch self {
        case .grey, .yuv444p, .mjpeg: (1, 1)
        case .yuyv, .uyvy, .yuv422p: (2, 1)
        case .nv12, .nv21, .yuv420, .yvu420: (2, 2)
        }
    }
}
