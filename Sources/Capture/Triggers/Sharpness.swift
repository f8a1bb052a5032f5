import Media

/// How sharp a frame looks, for picking a read window's diagnosis frame.
public enum Sharpness {
    /// The mean squared luma gradient (horizontal and vertical neighbour differences) over every
    /// `step`-th row of `frame`'s luma, each sample of it (a column subsampled too would miss
    /// edges of a pattern that repeats at an even period); 0 for a compressed frame or a tiny one.
    public static func gradientEnergy(of frame: borrowing VideoFrame, step: Int = 4) -> Double {
        let (width, height, stride) = (frame.width, frame.height, frame.bytesPerLine)
        let luma = frame.format.lumaLayout
        guard !frame.format.isCompressed, width > step, height > step, step > 0 else { return 0 }
        return frame.buffer.withUnsafeBytes { bytes -> Double in
            guard bytes.count >= stride * (height - 1) + luma.offset + luma.step * width else { return 0 }
            var sum: UInt64 = 0, count: UInt64 = 0
            var y = 0
            while y + 1 < height {
                let row = y * stride + luma.offset
                var x = 0
                while x + 1 < width {
                    let here = Int(bytes[row + x * luma.step])
                    let right = Int(bytes[row + (x + 1) * luma.step]), below = Int(bytes[row + stride + x * luma.step])
                    let (dx, dy) = (right - here, below - here)
                    sum &+= UInt64(dx * dx + dy * dy)
                    count += 1
                    x += 1
                }
                y += step
            }
            return count > 0 ? Double(sum) / Double(count) : 0
        }
    }
}
