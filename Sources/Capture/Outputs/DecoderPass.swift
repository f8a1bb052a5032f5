import Media

/// One way of reading a frame, by one library with fixed options: a step of a scan, data a library declares.
///
/// Different passes read different codes: zxing-cpp with its fast options reads clean codes at a
/// fraction of its full cost; its full options find more; zbar reads EAN-13 and very low-contrast
/// QR best. A library lists its passes (`DecoderLibrary.passes`); an engine is an ordered list of
/// them (`DecoderEngine.passes`); which a frame gets is `effort`'s choice (`ScanEffort`). A pass is
/// known by its name (code lines' `pass`, the `passes` key, counters): two with one name are one.
public struct DecoderPass: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// How much a pass costs, roughly: an engine lists its passes in this order.
    public enum Cost: Int, Sendable, Hashable, Comparable {
        /// A fraction of a full pass (zxing-fast: about 1 ms a 1280x720 frame).
        case light
        /// A library's full reading (zbar, zxing-full: 4–6 times a light pass).
        case full
        /// More than a full reading (zxing-histogram), or a reading of enlarged parts of the frame (zxing-upscale).
        case heavy

        public static func < (a: Cost, b: Cost) -> Bool { a.rawValue < b.rawValue }
    }

    /// The name code lines and the configuration give it (`zxing-fast`).
    public let rawValue: String
    /// The library that runs it (the code line's `engine`).
    public let library: DecoderLibraryID
    public let cost: Cost
    /// 1: the pass reads the frame. More: an upscaling pass, which reads only the parts of the frame
    /// where the earlier passes saw a code and read none, each enlarged up to this many times
    /// (`RegionUpscaler`); a frame with no such part does not run it.
    public let scale: Int

    public init(_ name: String, library: DecoderLibraryID, cost: Cost, scale: Int = 1) {
        (self.rawValue, self.library, self.cost, self.scale) = (name, library, cost, max(1, scale))
    }

    public var description: String { rawValue }

    public static func == (a: DecoderPass, b: DecoderPass) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// By cost class, then by name: the order passes are shown in (stats, metrics).
    public static func < (a: DecoderPass, b: DecoderPass) -> Bool { (a.cost, a.rawValue) < (b.cost, b.rawValue) }

    /// The passes `engine` has for `symbologies`, in the engine's order; a library with no
    /// requested symbology to read has none (`DecoderEngine.part(of:for:)`).
    public static func passes(for engine: DecoderEngine, symbologies: Set<Symbology>) -> [DecoderPass] {
        engine.passes.filter { !engine.part(of: symbologies, for: $0.library).isEmpty }
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
            let reads = engine.part(of: symbologies, for: pass.library)
            if base.isEmpty || !reads.isSubset(of: covered) { base.append(pass); covered.formUnion(reads) }
        }
        return base
    }
}
