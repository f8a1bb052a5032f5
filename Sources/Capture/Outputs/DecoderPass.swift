import Media
import ZBar
import ZXing

/// One way of reading a frame, by one library with fixed options: the steps of a scan, cheapest first.
///
/// Different passes read different codes: zxing-cpp with its fast options reads clean codes at a
/// fraction of its full cost; its full options (try-harder, rotate, invert, downscale: the
/// `zxing.*` keys) find more; the GlobalHistogram binarizer reads blurred 1-D codes its default
/// misses; zbar reads EAN-13 and very low-contrast QR best. Which passes a frame gets is `effort`'s
/// choice (`ScanEffort`); which exist is the engine's (`passes(for:symbologies:)`).
public enum DecoderPass: String, Sendable, Hashable, CaseIterable, CustomStringConvertible, Comparable {
    /// zxing-cpp with try-harder, rotate, invert and downscale off.
    case zxingFast = "zxing-fast"
    /// zbar, with the `zbar.*` settings.
    case zbar
    /// zxing-cpp with the `zxing.*` options (by default try-harder, rotate, invert, downscale on).
    case zxingFull = "zxing-full"
    /// The full pass with zxing-cpp's GlobalHistogram binarizer (`ZXing_Binarizer_GlobalHistogram`).
    case zxingHistogram = "zxing-histogram"

    public var description: String { rawValue }

    /// Cases are declared in order of cost: a frame's passes run in this order.
    public static func < (a: DecoderPass, b: DecoderPass) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// The library that runs the pass (the code line's `engine`).
    public var engine: DecoderEngine { self == .zbar ? .zbar : .zxing }

    /// The passes `engine` has for `symbologies`, cheapest first: zbar's (`zbar`), zxing-cpp's
    /// (`zxing-fast`, `zxing-full`, `zxing-histogram`), or both (`hybrid`); a library with no
    /// requested symbology to read has none.
    public static func passes(for engine: DecoderEngine, symbologies: Set<Symbology>) -> [DecoderPass] {
        let zxing = !engine.zxingPart(of: symbologies).isEmpty, zbar = !engine.zbarPart(of: symbologies).isEmpty
        return allCases.filter { $0.engine == .zbar ? zbar : zxing }
    }

    /// zxing-cpp's hints for this pass (`nil` for zbar): the fast pass turns every try-* off,
    /// the full pass takes `settings` (`zxing.*`), the histogram pass those with its binarizer.
    /// `returnErrors` asks for detected-but-undecoded codes (the evidence `auto` looks for).
    func zxingHints(symbologies: Set<Symbology>, settings: ZXingSettings, returnErrors: Bool) -> ZXingHints? {
        switch self {
        case .zbar: nil
        case .zxingFast:
            ZXingHints(symbologies: symbologies, tryHarder: false, tryRotate: false, tryDownscale: false, tryInvert: false,
                       returnErrors: returnErrors)
        case .zxingFull, .zxingHistogram:
            ZXingHints(symbologies: symbologies, tryHarder: settings.tryHarder, tryRotate: settings.tryRotate,
                       tryDownscale: settings.tryDownscale, binarizer: self == .zxingHistogram ? .globalHistogram : .localAverage,
                       returnErrors: returnErrors)
        }
    }
}

/// How many passes a frame gets (`effort`).
public enum ScanEffort: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The cheapest pass only (with `hybrid`, also zbar when a requested symbology is zbar's alone).
    case fast
    /// On a file, every pass. On a live source, the cheapest; a harder pass only on a frame with
    /// evidence of a code not read yet (a code zxing-cpp detected but could not decode, or a code
    /// read in the last frames and not in this one), and only when its recent cost fits in what
    /// is left of the frame's time budget (frame interval × scanning threads).
    case auto
    /// Every pass on every frame.
    case max

    public var description: String { rawValue }

    /// The passes of `passes` that run on every frame: the first, and each that reads a
    /// symbology none before it reads.
    static func basePasses(of passes: [DecoderPass], engine: DecoderEngine, symbologies: Set<Symbology>) -> [DecoderPass] {
        var covered: Set<Symbology> = [], base: [DecoderPass] = []
        for pass in passes {
            let reads = pass.engine == .zbar ? engine.zbarPart(of: symbologies) : engine.zxingPart(of: symbologies)
            if base.isEmpty || !reads.isSubset(of: covered) { base.append(pass); covered.formUnion(reads) }
        }
        return base
    }
}
