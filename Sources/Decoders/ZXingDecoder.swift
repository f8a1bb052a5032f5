import Capture
import Media
import ZXing

/// zxing-cpp as a `DecoderLibrary`: four passes (`zxing-fast`, `zxing-full`, `zxing-histogram`, `zxing-upscale`).
///
/// It reads every luma layout in place (pixel stride 2 for packed 4:2:2) and reports the codes it
/// detected but could not decode (`ZXingHints.returnErrors`). Its second look (`readBand`) is
/// try-harder on, rotate, invert and downscale off (the band is upright), stamped `zxing-full`.
public struct ZXingDecoder: DecoderLibrary {
    public init() {}
    public var id: DecoderLibraryID { .zxing }
    public var readable: Set<Symbology> { BarcodeReader.readable }
    public var passes: [DecoderPass] { [.zxingFast, .zxingFull, .zxingHistogram, .zxingUpscale] }
    public var version: DecoderLibraryVersion {
        DecoderLibraryVersion(name: "zxing-cpp", version: ZXingLibrary.version, origin: ZXingLibrary.versionOrigin)
    }
    public var readsPixelStride: Bool { true }
    public var reportsUndecoded: Bool { true }
    public func makeReader() -> any DecoderReader { ZXingReader() }
}

extension DecoderLibraryID {
    /// zxing-cpp (`ZXingDecoder`).
    public static let zxing: DecoderLibraryID = "zxing"
}

extension DecoderPass {
    /// zxing-cpp with try-harder, rotate, invert and downscale off.
    public static let zxingFast = DecoderPass("zxing-fast", library: .zxing, cost: .light)
    /// zxing-cpp with the `zxing.*` options (by default try-harder, rotate, invert, downscale on).
    public static let zxingFull = DecoderPass("zxing-full", library: .zxing, cost: .full)
    /// The full pass with zxing-cpp's GlobalHistogram binarizer (`ZXing_Binarizer_GlobalHistogram`).
    public static let zxingHistogram = DecoderPass("zxing-histogram", library: .zxing, cost: .heavy)
    /// zxing-cpp with try-harder, rotate and invert on, downscale off, on the parts of the frame left
    /// unread enlarged 3 times (`DecoderPass.scale`).
    public static let zxingUpscale = DecoderPass("zxing-upscale", library: .zxing, cost: .heavy, scale: 3)
}

/// One thread's zxing-cpp readers: one per pass (each keeps its options), one for second looks.
final class ZXingReader: DecoderReader {
    private var readers: [DecoderPass: BarcodeReader] = [:]
    private var band: BarcodeReader?

    /// zxing-cpp's hints for `pass`: the fast pass turns every try-* off, the full pass takes
    /// `zxing.*`, the histogram pass those with its binarizer; every pass reads add-ons as
    /// `ean.addon` says; `nil` for a pass not zxing-cpp's.
    static func hints(for pass: DecoderPass, _ request: DecoderRequest) -> ZXingHints? {
        var hints = passHints(for: pass, request)
        hints?.eanAddOn = request.scanner.eanAddOn
        return hints
    }

    private static func passHints(for pass: DecoderPass, _ request: DecoderRequest) -> ZXingHints? {
        let settings = request.zxing
        switch pass {
        case .zxingFast:
            return ZXingHints(symbologies: request.symbologies, tryHarder: false, tryRotate: false, tryDownscale: false, tryInvert: false,
                              returnErrors: request.reportsUndecoded)
        case .zxingUpscale:
            return ZXingHints(symbologies: request.symbologies, tryHarder: true, tryRotate: true, tryDownscale: false, tryInvert: true,
                              returnErrors: request.reportsUndecoded)
        case .zxingFull, .zxingHistogram:
            return ZXingHints(symbologies: request.symbologies, tryHarder: settings.tryHarder, tryRotate: settings.tryRotate,
                              tryDownscale: settings.tryDownscale, binarizer: pass == .zxingHistogram ? .globalHistogram : .localAverage,
                              returnErrors: request.reportsUndecoded)
        default:
            return nil
        }
    }

    func read(_ pass: DecoderPass, in luma: LumaPlane, region: PixelRect?, request: DecoderRequest) -> Result<DecoderReading, DecoderFailure> {
        guard let hints = Self.hints(for: pass, request) else {
            return .failure(DecoderFailure(library: .zxing, description: "zxing-cpp has no pass \(pass)"))
        }
        let reader = readers[pass] ?? BarcodeReader(hints: hints)
        readers[pass] = reader
        reader.reconfigure(hints)
        return Result { () throws(ZXingError) in
            try reader.readReporting(luma: luma.bytes, width: luma.width, height: luma.height, rowStride: luma.rowStride,
                                     pixelStride: luma.pixelStride, region: region)
        }
        .map { DecoderReading(codes: $0.barcodes.map(Self.code), undecoded: $0.undecoded.map(Self.detected)) }
        .mapError { DecoderFailure(library: .zxing, description: "\($0)") }
    }

    func readBand(_ luma: LumaPlane, symbologies: Set<Symbology>) -> (pass: DecoderPass, codes: [DecodedCode])? {
        let reader = band ?? BarcodeReader(hints: ZXingHints(symbologies: [], tryHarder: true, tryRotate: false, tryDownscale: false, tryInvert: false))
        band = reader
        var hints = reader.configuration
        hints.symbologies = symbologies
        reader.reconfigure(hints)
        let found = (try? reader.read(luma: luma.bytes, width: luma.width, height: luma.height, rowStride: luma.rowStride,
                                      pixelStride: luma.pixelStride)) ?? []
        return (.zxingFull, found.map(Self.code))
    }

    /// zxing-cpp's corners (top-left, top-right, bottom-right, bottom-left) in zbar's order, so a
    /// consumer sees one outline convention whichever library read the code.
    static func zbarOrder(_ corners: [(x: Int, y: Int)]) -> [PixelPoint] {
        let c = corners.map { PixelPoint(x: $0.x, y: $0.y) }
        return c.count == 4 ? [c[0], c[3], c[2], c[1]] : c
    }

    static func code(_ barcode: ZXingBarcode) -> DecodedCode {
        DecodedCode(symbology: barcode.symbology, data: barcode.data, text: barcode.text, quality: nil, orientation: barcode.orientation,
                    corners: zbarOrder(barcode.corners), symbologyIdentifier: barcode.symbologyIdentifier, addOn: barcode.addOn)
    }

    static func detected(_ code: ZXingUndecodedCode) -> DetectedCode {
        DetectedCode(symbology: code.symbology, error: code.error, corners: zbarOrder(code.corners))
    }
}
