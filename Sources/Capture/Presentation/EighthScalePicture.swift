import Media

/// A frame's luma at an eighth of its size across, each pixel the mean of an 8×8 block
/// (`EighthScale.size`; the blocks of the last row and column may be smaller), what
/// `ChangeDetector` compares.
///
/// From an uncompressed frame it is summed from the luma samples in place (`PixelFormat.lumaLayout`)
/// on a sparse pattern (`Sampling.sparse`): every fourth row of blocks, the even rows of each, so
/// an eighth of the frame's rows is read and each block mean is one of 32 samples (sensor noise
/// stays well below the detector's level); the picture then has a row for every fourth block
/// row (`blockRowStep` 4), each standing for the 32 frame rows from its block row down. A change
/// that misses every sampled band of 8 rows (one shorter than 25 rows can) goes unseen; a code
/// presented is taller. 8-bit planar luma is summed eight samples at a load. From a compressed
/// frame (MJPEG) the frame's decoder makes it (`CompressedFrameDecoder.decodeLumaEighth`:
/// TurboJPEG's 1/8 scale, the blocks' DC coefficients), every block row, never the full picture.
/// Its storage is kept from frame to frame.
public struct EighthScalePicture: Sendable {
    public private(set) var width = 0
    public private(set) var height = 0
    /// Block rows of the frame per row of the picture (4 from uncompressed frames, 1 from compressed ones).
    public private(set) var blockRowStep = 1
    /// `width` × `height` block means, row by row.
    public private(set) var pixels: [UInt8] = []
    /// `blockMeans`'s sums, kept so that a picture allocates nothing once its size is set.
    private var scratch: [UInt64] = []

    /// Which blocks' rows a picture of an uncompressed frame sums.
    struct Sampling: Sendable, Equatable {
        /// Every `blockRowStep`-th row of blocks is summed (a row of the picture each).
        var blockRowStep: Int
        /// A block's rows summed: from `firstRow` (the block's last row when it has fewer), every `rowStep`-th.
        var firstRow: Int
        var rowStep: Int

        /// The even rows of every fourth block row: an eighth of the rows, 32 samples a block.
        static let sparse = Sampling(blockRowStep: 4, firstRow: 0, rowStep: 2)
        /// Every block row, its even rows.
        static let evenRows = Sampling(blockRowStep: 1, firstRow: 0, rowStep: 2)
        /// Every row.
        static let every = Sampling(blockRowStep: 1, firstRow: 0, rowStep: 1)

        /// The picture's size for a `width`×`height` frame.
        func size(width: Int, height: Int) -> (width: Int, height: Int) {
            let (w, h) = EighthScale.size(width: width, height: height)
            return (w, (h + blockRowStep - 1) / blockRowStep)
        }
    }

    public init() {}

    /// Makes the picture of `frame`; `false` when it cannot be made (a compressed frame that does
    /// not decode, or whose decoder has no eighth-scale decode).
    public mutating func make(from frame: borrowing VideoFrame) -> Bool {
        let (frameWidth, frameHeight, stride, format) = (frame.width, frame.height, frame.bytesPerLine, frame.format)
        let sampling = format.isCompressed ? Sampling.every : Sampling.sparse
        let (w, h) = sampling.size(width: frameWidth, height: frameHeight)
        guard w > 0, h > 0 else { return false }
        (width, height, blockRowStep) = (w, h, sampling.blockRowStep)
        if pixels.count != w * h { pixels = [UInt8](repeating: 0, count: w * h) }
        let decoder = frame.decoder
        return frame.buffer.withUnsafeBytes { bytes in
            pixels.withUnsafeMutableBytes { out in
                if format.isCompressed {
                    return decoder?.decodeLumaEighth(bytes, width: frameWidth, height: frameHeight, into: out) ?? false
                }
                guard stride > 0, bytes.count >= stride * (frameHeight - 1) + format.lumaLayout.offset + format.lumaLayout.step * frameWidth
                else { return false }
                Self.blockMeans(of: bytes, width: frameWidth, height: frameHeight, bytesPerLine: stride, luma: format.lumaLayout,
                                sampling: sampling, scratch: &scratch, into: out.bindMemory(to: UInt8.self))
                return true
            }
        }
    }

    /// Makes this picture a copy of `other`, in the storage it has (reallocated only for a new size).
    public mutating func copy(from other: EighthScalePicture) {
        (width, height, blockRowStep) = (other.width, other.height, other.blockRowStep)
        guard pixels.count == other.pixels.count else { pixels = other.pixels; return }
        pixels.withUnsafeMutableBytes { out in other.pixels.withUnsafeBytes { out.copyMemory(from: $0) } }
    }

    /// The blocks covering `rect` of the frame (at least one each way).
    public func blocks(covering rect: NormalizedRect) -> (x: Range<Int>, y: Range<Int>) {
        let r = rect.pixels(width: width, height: height)
        let x0 = min(max(0, r.x), width - 1), y0 = min(max(0, r.y), height - 1)
        return (x0..<max(x0 + 1, min(width, r.x + r.width)), y0..<max(y0 + 1, min(height, r.y + r.height)))
    }

    /// Each sampled 8×8 block's mean luma over the rows `sampling` names, rounded, into `out`
    /// (`sampling.size` of the frame); `scratch` holds the sums (grown to two words a block column).
    ///
    /// For 8-bit planar luma the samples are summed eight at a load into four 16-bit lanes per
    /// block (adjacent pairs added), the lanes of a block row's rows accumulated before
    /// they are added up once per block: a row costs a load, two masks, a shift and two adds per
    /// eight samples. Other layouts (packed 4:2:2) are summed sample by sample.
    static func blockMeans(of bytes: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerLine: Int,
                           luma: (offset: Int, step: Int), sampling: Sampling = .sparse, scratch: inout [UInt64],
                           into out: UnsafeMutableBufferPointer<UInt8>) {
        let columns = (width + 7) / 8
        let wholeWords = luma.step == 1 ? width / 8 : 0
        let mask: UInt64 = 0x00FF_00FF_00FF_00FF
        if scratch.count < 2 * columns { scratch = [UInt64](repeating: 0, count: 2 * columns) }
        scratch.withUnsafeMutableBufferPointer { scratch in
            do {
                let lanes = scratch.baseAddress!, sums = scratch.baseAddress! + columns
                for (pictureRow, blockRow) in stride(from: 0, to: (height + 7) / 8, by: sampling.blockRowStep).enumerated() {
                    lanes.initialize(repeating: 0, count: columns)
                    sums.initialize(repeating: 0, count: columns)
                    let end = min(height, blockRow * 8 + 8), first = min(blockRow * 8 + sampling.firstRow, end - 1)
                    let rowCount = (end - first + sampling.rowStep - 1) / sampling.rowStep
                    for y in stride(from: first, to: end, by: sampling.rowStep) {
                        let row = bytes.baseAddress! + y * bytesPerLine + luma.offset
                        // Four 16-bit lanes a block, each at most 8 rows × 2 × 255: no carry between lanes.
                        for c in 0..<wholeWords {
                            let word = row.loadUnaligned(fromByteOffset: c &* 8, as: UInt64.self)
                            lanes[c] &+= (word & mask) &+ ((word >> 8) & mask)
                        }
                        var x = wholeWords * 8
                        while x < width {
                            sums[x / 8] &+= UInt64(row.load(fromByteOffset: x * luma.step, as: UInt8.self))
                            x += 1
                        }
                    }
                    for c in 0..<columns {
                        let total = sums[c] &+ ((lanes[c] &* 0x0001_0001_0001_0001) >> 48)
                        let count = UInt64(rowCount * (min(width, c * 8 + 8) - c * 8))
                        out[pictureRow * columns + c] = UInt8(truncatingIfNeeded: (total + count / 2) / count)
                    }
                }
            }
        }
    }
}
