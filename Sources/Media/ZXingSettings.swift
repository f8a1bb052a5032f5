/// zxing-cpp's decode hints that a user may turn off to trade recall for speed (`zxing.*` keys).
///
/// Plain values beside `ScannerSettings`: what the configuration reads for zxing-cpp's full
/// passes, handed to the decoder libraries with the rest of the scan's settings.
public struct ZXingSettings: Sendable, Hashable {
    /// Look harder: more scan lines and binarizer passes (`ZXing_ReaderOptions_setTryHarder`).
    public var tryHarder = true
    /// Also try the frame turned 90° (`setTryRotate`).
    public var tryRotate = true
    /// Also try downscaled copies, which finds large codes faster (`setTryDownscale`).
    public var tryDownscale = true

    public init(tryHarder: Bool = true, tryRotate: Bool = true, tryDownscale: Bool = true) {
        (self.tryHarder, self.tryRotate, self.tryDownscale) = (tryHarder, tryRotate, tryDownscale)
    }
}
