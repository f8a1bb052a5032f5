import Media

extension PixelBuffer {
    /// A copy of the buffer's bytes, for comparing with what a source was given.
    public var copiedBytes: [UInt8] { withUnsafeBytes { Array($0) } }
}
