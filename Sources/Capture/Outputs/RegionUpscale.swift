import Media

/// An upscaling pass's reading: the parts of a frame where a code is seen and not read, each enlarged, read by a library.
///
/// Neither library upscales: a 1-D code whose bars are thinner than a pixel (a product photo scaled
/// down) or a small 2-D code defeats both. An upscaling pass (`DecoderPass.scale` > 1) reads only
/// the `regions` the earlier passes of the frame left unread: the codes a library detected but
/// could not decode (zxing-cpp's, `DetectedCode`), and stretches of bars (`barRegions`) with no
/// code read in them. Each is cropped with a margin, enlarged `scale` times (bilinear, on the luma)
/// and given to the pass's library whole; its corners are put back in frame pixels. With no such
/// region the pass is not run: it costs nothing on a frame whose codes were all read.
final class RegionUpscaler {
    /// The most regions one frame's pass reads (the largest first): what it costs stays bounded.
    static let maxRegions = 4
    /// The most rows across a stretch of bars a crop keeps, about its middle.
    static let maxBarRows = 96
    /// The largest crop enlarged 3 times, in frame pixels; up to `maxArea` it is enlarged 2 times, above it not read.
    static let maxAreaAtThree = 60_000, maxArea = 250_000
    private var plane: [UInt8] = []

    /// The parts of `frame` (of `region`, `nil`: all) an upscaling pass reads: zxing-cpp's undecoded
    /// codes and `barRegions`, each with its margin, leaving out those a code read lies in.
    static func regions(in frame: VideoFrame, region: PixelRect?, detected: [UndecodedCodeObject],
                        read: [MachineReadableCodeObject]) -> [PixelRect] {
        let area = region ?? PixelRect(x: 0, y: 0, width: frame.width, height: frame.height)
        var found = detected.filter { !$0.corners.isEmpty }.map { code in
            let m = max(8, max(code.bounds.width, code.bounds.height) / 6)
            return PixelRect(x: code.bounds.x - m, y: code.bounds.y - m, width: code.bounds.width + 2 * m, height: code.bounds.height + 2 * m)
        }
        found += barRegions(in: frame, area: area)
        let unread = found.map { $0.clamped(width: frame.width, height: frame.height) }.filter { rect in
            rect.width > 8 && rect.height > 8 && !read.contains { code in
                let (cx, cy) = (code.bounds.x + code.bounds.width / 2, code.bounds.y + code.bounds.height / 2)
                return cx >= rect.x && cx <= rect.x + rect.width && cy >= rect.y && cy <= rect.y + rect.height
            }
        }
        return Array(unread.filter { $0.width * $0.height <= maxArea }.sorted { $0.width * $0.height > $1.width * $1.height }.prefix(maxRegions))
    }

    /// Stretches of parallel bars in `area`: 16-pixel cells whose luma changes at least twice as much
    /// along one axis as along the other (over 3 levels a sample on average), joined with their
    /// neighbours of the same axis; a join at least 3 cells long across its bars, with a margin
    /// for the quiet zones, at most `maxBarRows` across. Four rows of a cell are sampled (a quarter
    /// of the frame's pixels, with their right and lower neighbours); bars tilted up to about 25°
    /// still change more along one axis.
    static func barRegions(in frame: VideoFrame, area: PixelRect) -> [PixelRect] {
        let cell = 16, columns = area.width / cell, rows = area.height / cell
        guard columns > 2, rows > 0 else { return [] }
        let (offset, step) = frame.format.lumaLayout, stride = frame.bytesPerLine
        // 1: bars upright (the code reads along x); 2: on their side.
        var kind = [UInt8](repeating: 0, count: columns * rows)
        frame.buffer.withUnsafeBytes { bytes in
            func p(_ x: Int, _ y: Int) -> Int32 { Int32(bytes[offset &+ y &* stride &+ x &* step]) }
            for cy in 0..<rows {
                for cx in 0..<columns {
                    let x0 = area.x + cx * cell, y0 = area.y + cy * cell
                    var gx: Int32 = 0, gy: Int32 = 0
                    for k in Swift.stride(from: 2, to: cell, by: 4) where y0 + k + 1 < frame.height {
                        for i in 0..<cell where x0 + i + 1 < frame.width {
                            gx += abs(p(x0 + i + 1, y0 + k) - p(x0 + i, y0 + k))
                            gy += abs(p(x0 + i, y0 + k + 1) - p(x0 + i, y0 + k))
                        }
                    }
                    let floor = Int32(3 * 4 * cell)
                    kind[cy * columns + cx] = gx > 2 * gy && gx > floor ? 1 : gy > 2 * gx && gy > floor ? 2 : 0
                }
            }
        }
        var regions: [PixelRect] = [], seen = [Bool](repeating: false, count: kind.count)
        for start in kind.indices where kind[start] != 0 && !seen[start] {
            let k = kind[start]
            var queue = [start], (x0, x1, y0, y1) = (Int.max, Int.min, Int.max, Int.min)
            seen[start] = true
            while let i = queue.popLast() {
                let (cx, cy) = (i % columns, i / columns)
                (x0, x1, y0, y1) = (min(x0, cx), max(x1, cx), min(y0, cy), max(y1, cy))
                for (nx, ny) in [(cx - 1, cy), (cx + 1, cy), (cx, cy - 1), (cx, cy + 1)] where nx >= 0 && nx < columns && ny >= 0 && ny < rows {
                    let j = ny * columns + nx
                    if kind[j] == k && !seen[j] { seen[j] = true; queue.append(j) }
                }
            }
            let upright = k == 1
            guard (upright ? x1 - x0 : y1 - y0) >= 2 else { continue }
            var rect = PixelRect(x: area.x + x0 * cell, y: area.y + y0 * cell, width: (x1 - x0 + 1) * cell, height: (y1 - y0 + 1) * cell)
            if upright {
                let margin = rect.width / 4 + cell, rows = min(rect.height + 2 * cell, maxBarRows)
                rect = PixelRect(x: rect.x - margin, y: rect.y + rect.height / 2 - rows / 2, width: rect.width + 2 * margin, height: rows)
            } else {
                let margin = rect.height / 4 + cell, columns = min(rect.width + 2 * cell, maxBarRows)
                rect = PixelRect(x: rect.x + rect.width / 2 - columns / 2, y: rect.y - margin, width: columns, height: rect.height + 2 * margin)
            }
            regions.append(rect)
        }
        return regions
    }

    /// What `read` (the pass's library reading a whole plane) finds in each of `regions` of `frame`
    /// enlarged: codes and undecoded codes, corners in frame pixels.
    func read(_ frame: VideoFrame, regions: [PixelRect], scale: Int,
              _ read: (LumaPlane) -> Result<DecoderReading, DecoderFailure>) -> Result<DecoderReading, DecoderFailure> {
        var all = DecoderReading(codes: [])
        for rect in regions {
            let k = rect.width * rect.height <= Self.maxAreaAtThree ? min(scale, 3) : min(scale, 2)
            let (width, height) = (rect.width * k, rect.height * k)
            enlarge(frame, rect, scale: k)
            let result = plane.withUnsafeBytes { bytes in
                read(LumaPlane(bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<(width * height)]), width: width, height: height, rowStride: width))
            }
            guard case .success(let found) = result else { return result }
            func inFrame(_ p: PixelPoint) -> PixelPoint { PixelPoint(x: rect.x + p.x / k, y: rect.y + p.y / k) }
            all.codes += found.codes.map { var code = $0; code.corners = code.corners.map(inFrame); return code }
            all.undecoded += found.undecoded.map { var code = $0; code.corners = code.corners.map(inFrame); return code }
        }
        return .success(all)
    }

    /// `rect` of the frame's luma enlarged `scale` times into `plane`, bilinear (8-bit fixed point;
    /// samples at pixel centres, edges repeated).
    private func enlarge(_ frame: VideoFrame, _ rect: PixelRect, scale: Int) {
        let (width, height) = (rect.width * scale, rect.height * scale)
        if plane.count < width * height { plane = [UInt8](repeating: 0, count: width * height) }
        let (offset, step) = frame.format.lumaLayout, stride = frame.bytesPerLine
        // Source position of output sample i, in 1/256 pixel: (i + 0.5) / scale - 0.5, clamped.
        func position(_ i: Int, _ limit: Int) -> (Int, Int) {
            let p = max(0, ((2 * i + 1) * 256 / scale - 256) / 2), whole = min(p >> 8, limit - 1)
            return whole >= limit - 1 ? (limit - 1, 0) : (whole, p & 255)
        }
        let xs = (0..<width).map { position($0, rect.width) }
        frame.buffer.withUnsafeBytes { bytes in
            plane.withUnsafeMutableBufferPointer { out in
                for oy in 0..<height {
                    let (sy, ty) = position(oy, rect.height)
                    let row0 = offset + (rect.y + sy) * stride + rect.x * step, row1 = ty == 0 ? row0 : row0 + stride
                    for ox in 0..<width {
                        let (sx, tx) = xs[ox], nx = tx == 0 ? 0 : step
                        let a = Int(bytes[row0 + sx * step]), b = Int(bytes[row0 + sx * step + nx])
                        let c = Int(bytes[row1 + sx * step]), d = Int(bytes[row1 + sx * step + nx])
                        let top = a * (256 - tx) + b * tx, bottom = c * (256 - tx) + d * tx
                        out[oy * width + ox] = UInt8((top * (256 - ty) + bottom * ty + 32768) >> 16)
                    }
                }
            }
        }
    }
}
