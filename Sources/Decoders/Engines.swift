import Capture
import Media

/// syncscan's engines, each an ordered list of passes: what `engine: zbar | zxing | hybrid` names.
extension DecoderEngine {
    /// zbar alone: output identical to `zbarimg`'s.
    public static let zbar = DecoderEngine(name: "zbar", libraries: [ZBarDecoder()], passes: [.zbar])
    /// zxing-cpp alone, cheapest pass first (the default).
    public static let zxing = DecoderEngine(name: "zxing", libraries: [ZXingDecoder()], passes: [.zxingFast, .zxingFull, .zxingHistogram])
    /// Both, each on the requested symbologies it reads: zxing-cpp's reading kept for 2-D codes
    /// (its corners are the code's own), zbar's for 1-D ones (they carry zbar's quality), and
    /// zbar's 1-D readings checked by zxing-cpp (`LinearReadingCheck`). Last, its upscaling passes:
    /// only where the others saw a code and read none (`RegionUpscaler`), zbar's readings checked too.
    public static let hybrid = DecoderEngine(name: "hybrid", libraries: [ZXingDecoder(), ZBarDecoder()],
                                             passes: [.zxingFast, .zbar, .zxingFull, .zxingHistogram, .zxingUpscale, .zbarUpscale],
                                             preferred: Preference(twoDimensional: .zxing, linear: .zbar),
                                             readingCheck: LinearReadingCheck.Kind(checked: .zbar, checker: .zxing))

    /// Every engine the configuration names, in the order messages list them.
    public static let allCases: [DecoderEngine] = [zbar, zxing, hybrid]

    /// The engines that read `symbology`, for an error that names them.
    public static func engines(reading symbology: Symbology) -> [DecoderEngine] {
        allCases.filter { $0.readable.contains(symbology) }
    }
}

extension DecoderPass {
    /// Every pass of every engine, cheapest first: what the `passes` key may name.
    public static let allCases: [DecoderPass] = DecoderEngine.allCases.flatMap(\.passes).reduce(into: []) { all, pass in
        if !all.contains(pass) { all.append(pass) }
    }.sorted()

    /// The pass called `name` (any case); `nil` for a name no engine has.
    public init?(rawValue name: String) {
        guard let pass = Self.allCases.first(where: { $0.rawValue == name.lowercased() }) else { return nil }
        self = pass
    }
}

/// The decoder libraries syncscan runs with, for `syncscan --version`.
public enum DecoderLibraries {
    public static let all: [any DecoderLibrary] = [ZBarDecoder(), ZXingDecoder()]
}
