/// Ways to make a drawn frame hard to read, as real cameras do: blur, noise, low contrast.
extension GreyFrame {
    /// A box blur of `radius` pixels (each pixel the mean of its (2r+1)² neighbourhood), as an
    /// out-of-focus lens smears edges.
    public func blurred(radius: Int) -> GreyFrame {
        guard radius > 0 else { return self }
        var out = self
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0, count = 0
                for dy in -radius...radius where (0..<height).contains(y + dy) {
                    for dx in -radius...radius where (0..<width).contains(x + dx) {
                        sum += Int(self[x + dx, y + dy]); count += 1
                    }
                }
                out[x, y] = UInt8(sum / count)
            }
        }
        return out
    }

    /// Every sample squeezed into `dark...light`: a washed-out print or a dim scene.
    public func withContrast(dark: UInt8, light: UInt8) -> GreyFrame {
        var out = self
        for y in 0..<height {
            for x in 0..<width {
                out[x, y] = UInt8(Int(dark) + Int(self[x, y]) * (Int(light) - Int(dark)) / 255)
            }
        }
        return out
    }

    /// Uniform noise of ±`amplitude` added to every sample, from a fixed `seed` (the same frame
    /// each run), as a sensor in poor light adds.
    public func withNoise(amplitude: Int, seed: UInt64) -> GreyFrame {
        var out = self, state = seed | 1
        for y in 0..<height {
            for x in 0..<width {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17  // xorshift64
                let delta = Int(state % UInt64(2 * amplitude + 1)) - amplitude
                out[x, y] = UInt8(clamping: Int(self[x, y]) + delta)
            }
        }
        return out
    }
}

extension GreyFrame {
    /// This frame with the middle rows of an upright QR `code` (as `draw` returned it) wiped to
    /// `light`, nine modules clear of its top and bottom edges: the finder patterns stand, so a
    /// reader detects the code, and its data is past repair.
    public func withDataRowsWiped(of code: RenderedCode, light: UInt8 = 255) -> GreyFrame {
        var out = self
        let (top, bottom) = (code.topLeft.y + 9 * code.moduleSize, code.bottomLeft.y - 9 * code.moduleSize)
        for y in Int(top)..<Int(bottom) {
            for x in Int(code.topLeft.x)..<Int(code.topRight.x) { out[x, y] = light }
        }
        return out
    }
}
