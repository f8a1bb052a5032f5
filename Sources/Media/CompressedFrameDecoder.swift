/// Decodes a compressed frame (MJPEG) to the 8-bit grey plane the scanners read.
///
/// A source that delivers compressed frames attaches one to each (`VideoFrame.decoder`); a
/// scanning thread calls it after the late-frame decision, so a frame dropped as late is never
/// decoded. Implementations are safe to call from several threads at once.
public protocol CompressedFrameDecoder: Sendable {
    /// Decodes `compressed` into `luma`: `width`×`height` bytes, rows `width` bytes apart.
    ///
    /// The frame's size is the stream's; a picture of another size is `undecodable`.
    func decodeLuma(_ compressed: UnsafeRawBufferPointer, width: Int, height: Int,
                    into luma: UnsafeMutableRawBufferPointer) -> LumaDecodeResult

    /// Decodes `compressed` to grey at an eighth of the frame's size each way (`EighthScale.size`), each
    /// pixel about the mean of the frame's 8×8 block there; what a change detector compares.
    ///
    /// Much cheaper than `decodeLuma` where the format allows it (a JPEG's DC coefficients, no
    /// inverse transform). `false` when the frame does not decode whole, or the decoder cannot
    /// (the default): the frame is then taken as changed.
    func decodeLumaEighth(_ compressed: UnsafeRawBufferPointer, width: Int, height: Int,
                          into luma: UnsafeMutableRawBufferPointer) -> Bool
}

extension CompressedFrameDecoder {
    public func decodeLumaEighth(_ compressed: UnsafeRawBufferPointer, width: Int, height: Int,
                                 into luma: UnsafeMutableRawBufferPointer) -> Bool { false }
}

/// The eighth-scale grey picture of a frame (`CompressedFrameDecoder.decodeLumaEighth`, a change detector's input).
public enum EighthScale {
    /// The size of the eighth-scale picture of a `width`×`height` frame: each side divided by 8, rounded up.
    public static func size(width: Int, height: Int) -> (width: Int, height: Int) { ((width + 7) / 8, (height + 7) / 8) }
}

/// What became of one compressed frame.
public enum LumaDecodeResult: Sendable, Hashable {
    /// The whole picture was decoded; `warning`: what the decoder noted about data it skipped
    /// without losing any of the picture (bytes between segments), else `nil`.
    case decoded(warning: String?)
    /// No whole picture came out: empty, truncated, damaged or not a JPEG; `cause` says which,
    /// in the decoder's words.
    case undecodable(cause: String)
}
