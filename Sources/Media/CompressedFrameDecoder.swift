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
