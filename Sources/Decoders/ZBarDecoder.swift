import Capture
import Media
import ZBar

/// zbar as a `DecoderLibrary`: two passes (`zbar`, `zbar-upscale`), every symbology with a zbar symbol type.
///
/// zbar has no pixel stride: it is given packed 4:2:2 frames' luma extracted into a plane, and
/// reports no code it detected without decoding. Its second look (`readBand`) reads the band
/// with the requested symbologies and zbar's defaults.
public struct ZBarDecoder: DecoderLibrary {
    public init() {}
    public var id: DecoderLibraryID { .zbar }
    public var readable: Set<Symbology> { Symbology.zbarReadable }
    public var passes: [DecoderPass] { [.zbar, .zbarUpscale] }
    public var version: DecoderLibraryVersion {
        DecoderLibraryVersion(name: "zbar", version: ZBarLibrary.version, origin: ZBarLibrary.versionOrigin)
    }
    public var readsPixelStride: Bool { false }
    public var reportsUndecoded: Bool { false }
    public func makeReader() -> any DecoderReader { ZBarReader() }
}

extension DecoderLibraryID {
    /// zbar (`ZBarDecoder`).
    public static let zbar: DecoderLibraryID = "zbar"
}

extension DecoderPass {
    /// zbar, with the `zbar.*` settings.
    public static let zbar = DecoderPass("zbar", library: .zbar, cost: .full)
    /// zbar, with the `zbar.*` settings, on the parts of the frame left unread enlarged 3 times
    /// (`DecoderPass.scale`): 1-D codes whose bars are thinner than a pixel.
    public static let zbarUpscale = DecoderPass("zbar-upscale", library: .zbar, cost: .heavy, scale: 3)
}

/// One thread's zbar scanner (made on first use, reconfigured for each pass's settings).
final class ZBarReader: DecoderReader {
    private var scanner: ImageScanner?

    func read(_ pass: DecoderPass, in luma: LumaPlane, region: PixelRect?, request: DecoderRequest) -> Result<DecoderReading, DecoderFailure> {
        var settings = request.scanner
        settings.symbologies = request.symbologies
        return .success(DecoderReading(codes: scan(luma, settings: settings, region: region)))
    }

    func readBand(_ band: LumaPlane, symbologies: Set<Symbology>) -> (pass: DecoderPass, codes: [DecodedCode])? {
        (.zbar, scan(band, settings: ScannerSettings(symbologies: symbologies), region: nil))
    }

    private func scan(_ luma: LumaPlane, settings: ScannerSettings, region: PixelRect?) -> [DecodedCode] {
        precondition(luma.pixelStride == 1, "zbar reads no pixel stride")
        let scanner = self.scanner ?? ImageScanner(settings: settings)
        self.scanner = scanner
        scanner.reconfigure(settings)
        return scanner.scan(luma: luma.bytes, width: luma.width, height: luma.height, bytesPerLine: luma.rowStride, region: region)
            .map(Self.code)
    }

    /// zbar's result. QR and SQ codes keep zbar's four corners; for 1-D codes zbar reports one
    /// point per scan line that crossed the code, so their corners are those of the box around
    /// all of them (top-left, bottom-left, bottom-right, top-right, zbar's QR order).
    static func code(_ symbol: DecodedSymbol) -> DecodedCode {
        var corners = symbol.points.map { PixelPoint(x: $0.x, y: $0.y) }
        if corners.count != 4 {
            let xs = corners.map(\.x), ys = corners.map(\.y)
            let x0 = xs.min() ?? 0, x1 = xs.max() ?? 0, y0 = ys.min() ?? 0, y1 = ys.max() ?? 0
            corners = [PixelPoint(x: x0, y: y0), PixelPoint(x: x0, y: y1), PixelPoint(x: x1, y: y1), PixelPoint(x: x1, y: y0)]
        }
        return DecodedCode(symbology: symbol.symbology, data: symbol.data, text: symbol.text, quality: symbol.quality,
                           orientation: symbol.orientation, corners: corners, symbologyIdentifier: symbol.symbologyIdentifier, addOn: symbol.addOn)
    }
}
