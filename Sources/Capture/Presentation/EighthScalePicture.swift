import Media

/// A frame's luma at an eighth of its size each way: each pixel the mean of an 8×8 block
/// (`EighthScale.size`; the blocks of the last row and column may be smaller), what
/// `ChangeDetector` compares.
///
/// From an uncompressed frame it is summed from the luma samples in place (`PixelFormat.lumaLayout`),
/// from every other row of each block (rows 0, 2, 4, 6: half the frame is read; the mean of 32
/// samples still holds sensor noise well below the detector's level), eight at a time for 8-bit
/// planar luma; from a compressed one (MJPEG) the frame's decoder makes it
/// (`CompressedFrameDecoder.decodeLumaEighth`: TurboJPEG's 1/8 scale, the blocks' DC
/// coefficients), never the full picture. Its storage is kept from frame to frame.
public struct EighthScalePicture: Sendable {
    public private(set) var width = 0
    public private(set) var height = 0
    /// `width` × `height` block means, row by row.
    public private(set) var pixels: [UInt8] = []

    public init() {}

    /// Makes the picture of `frame`; `false` when it cannot be made (a compressed frame that does
    /// not decode, or whose decoder has no eighth-scale decode).
    public mutating func make(from frame: borrowing VideoFrame) -> Bool {
        let (w, h) = EighthScale.size(width: frame.width, height: frame.height)
        guard w > 0, h > 0 else { return false }
        (width, height) = (w, h)
        if pixels.count != w * h { pixels = [UInt8](repeating: 0, count: w * h) }
        let (frameWidth, frameHeight, stride, format) = (frame.width, frame.height, frame.bytesPerLine, frame.format)
        let decoder = frame.decoder
        return frame.buffer.withUnsafeBytes { bytes in
            pixels.withUnsafeMutableBytes { out in
                if format.isCompressed {
                    return decoder?.decodeLumaEighth(bytes, width: frameWidth, height: frameHeight, into: out) ?? false
                }
                guard stride > 0, bytes.count >= stride * (frameHeight - 1) + format.lumaLayout.offset + format.lumaLayout.step * frameWidth
                else { return false }
                Self.blockMeans(of: bytes, width: frameWidth, height: frameHeight, bytesPerLine: stride, luma: format.lumaLayout,
                                into: out.bindMemory(to: UInt8.self))
                return true
            }
        }
    }

    /// Makes this picture a copy of `other`, in the storage it has (reallocated only for a new size).
    public mutating func copy(from other: EighthScalePicture) {
        (width, height) = (other.width, other.height)
        guard pixels.count == other.pixels.count else { pixels = other.pixels; return }
        pixels.withUnsafeMutableBytes { out in other.pixels.withUnsafeBytes { out.copyMemory(from: $0) } }
    }

    /// The blocks covering `rect` of the frame (at least one each way).
    public func blocks(covering rect: NormalizedRect) -> (x: Range<Int>, y: Range<Int>) {
        let r = rect.pixels(width: width, height: height)
        let x0 = min(max(0, r.x), width - 1), y0 = min(max(0, r.y), height - 1)
        return (x0..<max(x0 + 1, min(width, r.x + r.width)), y0..<max(y0 + 1, min(height, r.y + r.height)))
    }

    /// Each 8×8 block's mean luma over its even rows (`rowStep` 2; 1: every row), rounded, into
    /// `out` (`EighthScale.size` of the frame).
    ///
    /// For 8-bit planar luma the samples are summed eight at a load into four 16-bit lanes per
    /// block (adjacent pairs added), the lanes of a block row's rows accumulated before
    /// they are added up once per block: a row costs a load, two masks, a shift and two adds per
    /// eight samples. Other layouts (packed 4:2:2) are summed sample by sample.
    static func blockMeans(of bytes: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerLine: Int,
                           luma: (offset: Int, step: Int), rowStep: Int = 2, into out: UnsafeMutableBufferPointer<UInt8>) {
        let columns = (width + 7) / 8
        let wholeWords = luma.step == 1 ? width / 8 : 0
        let mask: UInt64 = 0x00FF_00FF_00FF_00FF
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: columns) { lanes in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: columns) { sums in
                let lanes = lanes.baseAddress!, sums = sums.baseAddress!
                for blockRow in 0..<((height + 7) / 8) {
                    lanes.initialize(repeating: 0, count: columns)
                    sums.initialize(repeating: 0, count: columns)
                    let (first, end) = (blockRow * 8, min(height, blockRow * 8 + 8))
                    let rowCount = (end - first + rowStep - 1) / rowStep
                    for y in stride(from: first, to: end, by: rowStep) {
                        let row = bytes.baseAddress! + y * bytesPerLine + luma.offset
                        // Four 16-bit lanes a block, each at most 8 rows × 2 × 255: no carry between lanes.
                        for c in 0..<wholeWords {
                            let word = row.loadUnaligned(fromByteOffset: c &* 8, as: UInt64.self)
                            lanes[c] &+= (word & mask) &+ ((word >> 8) & mask)
                        }
                        var x = wholeWords * 8
                        while x < width {
                            sums[x / 8] &+= UInt32(row.load(fromByteOffset: x * luma.step, as: UInt8.self))
                            x += 1
                        }
                    }
                    for c in 0..<columns {
                        let total = sums[c] &+ UInt32(truncatingIfNeeded: (lanes[c] &* 0x0001_0001_0001_0001) >> 48)
                        let count = UInt32(rowCount * (min(width, c * 8 + 8) - c * 8))
                        out[blockRow * columns + c] = UInt8(truncatingIfNeeded: (total + count / 2) / count)
                    }
                }
            }
        }
    }
}
