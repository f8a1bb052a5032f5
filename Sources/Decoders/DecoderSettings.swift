import Capture
import ConfigurationKeys
import Media

/// Which library decodes which symbology, and how hard: `engine`, `effort`, `symbologies`,
/// `passes`, `ean.addon`, `zbar.*` and `zxing.*`.
public struct DecoderSettings: Sendable, Hashable, ConfigurationSection {
    /// Which library decodes which symbology.
    public var engine = DecoderEngine.zxing
    /// How many of the engine's passes a frame gets: `fast`, `auto` or `max` (`ScanEffort`).
    public var effort = ScanEffort.auto
    /// The engine's passes restricted to these (`passes`, for benchmarks and known-good subsets); `nil`: all.
    public var passes: Set<DecoderPass>?
    /// Symbologies, per-symbology lengths, `test-inverted` and densities, for zbar.
    public var scanner = ScannerSettings()
    /// zxing-cpp's hints, for the symbologies the engine sends to zxing-cpp.
    public var zxing = ZXingSettings()

    public init() {}

    /// Reads its keys from the top-level reader (they have no common prefix), the symbologies
    /// checked against the engine and the passes against both.
    public init(reading keys: ConfigurationKeyReader) { self.init(reading: keys, engines: DecoderEngine.allCases) }

    /// As `init(reading:)`, `engine` naming one of `engines` (the registered libraries' engines).
    public init(reading keys: ConfigurationKeyReader, engines: [DecoderEngine]) {
        if let v = keys.choice("engine", "engine", among: engines, named: \.name) { engine = v }
        if let v: ScanEffort = keys.choice("effort", "effort") { effort = v }
        let zbar = keys.scoped(to: "zbar")
        readSymbologies(keys, zbar: zbar, engines: engines)
        readAddOn(keys)
        if let names = keys.list("passes", of: "a list of decoder pass names") { passes = readPasses(names, keys) }
        let hints = keys.scoped(to: "zxing")
        if let v = hints.bool("try-harder") { zxing.tryHarder = v }
        if let v = hints.bool("try-rotate") { zxing.tryRotate = v }
        if let v = hints.bool("try-downscale") { zxing.tryDownscale = v }
        if let v = zbar.bool("test-inverted") { scanner.testInverted = v }
        if let v = zbar.int("x-density", in: 0...100, " (0 skips columns, 1 scans every column)") { scanner.xDensity = v }
        if let v = zbar.int("y-density", in: 0...100, " (0 skips rows, 1 scans every row)") { scanner.yDensity = v }
        if scanner.xDensity == 0 && scanner.yDensity == 0 {
            zbar.problem("x-density", "\(zbar.fullKey("x-density")) and \(zbar.fullKey("y-density")) are both 0, so nothing would be scanned")
        }
    }

    /// `symbologies` and zbar's per-symbology `zbar.<name>.enable`, `min-length` and `max-length`.
    private mutating func readSymbologies(_ keys: ConfigurationKeyReader, zbar: ConfigurationKeyReader, engines: [DecoderEngine]) {
        if let names = keys.list("symbologies", of: "a list of symbology names or \"all\"") {
            let parsed = Symbology.parse(list: names, all: engine.readable)
            parsed.problems.forEach { keys.problem($0.index.map { "symbologies[\($0)]" } ?? "symbologies", $0.message) }
            scanner.symbologies = parsed.symbologies
        }
        for symbology in Symbology.allCases where ZBarDecoder().readable.contains(symbology) {
            let keys = zbar.scoped(to: symbology.rawValue)
            if let enable = keys.bool("enable") {
                if enable { scanner.symbologies.insert(symbology) } else { scanner.symbologies.remove(symbology) }
            }
            let minLength = keys.int("min-length", in: 0...100_000)
            let maxLength = keys.int("max-length", in: 0...100_000)
            if let minLength, let maxLength, minLength > maxLength {
                keys.problem("min-length", "\(minLength) is greater than \(keys.fullKey("max-length")) \(maxLength)")
            }
            if minLength != nil || maxLength != nil { scanner.settings[symbology] = .init(minLength: minLength, maxLength: maxLength) }
        }
        if scanner.symbologies.isEmpty {
            keys.problem("symbologies", "no symbology is left enabled (zbar.<name>.enable: false removed them all)")
        }
        for symbology in Symbology.allCases where scanner.symbologies.contains(symbology) && !engine.readable.contains(symbology) {
            let readers = engines.filter { $0.readable.contains(symbology) }.map { "engine: \($0)" }.joined(separator: " or ")
            keys.problem("symbologies", "the \(engine) engine does not read \(symbology); \(readers) does, or remove \(symbology)")
        }
    }

    /// `ean.addon`: whether EAN/UPC add-ons are read with their main codes; a problem with
    /// `symbologies` when they are and it names add-ons but no main code (nothing would be read).
    private mutating func readAddOn(_ keys: ConfigurationKeyReader) {
        let ean = keys.scoped(to: "ean")
        if let v: EANAddOn = ean.choice("addon", "add-on mode") { scanner.eanAddOn = v }
        let symbologies = scanner.symbologies
        if scanner.eanAddOn != .ignore, !symbologies.isDisjoint(with: EANAddOn.addOnSymbologies),
           symbologies.isDisjoint(with: EANAddOn.mainSymbologies) {
            keys.problem("symbologies", "names add-ons (ean2, ean5) and no ean13, upca or upce: with \(ean.fullKey("addon")): "
                         + "\(scanner.eanAddOn) an add-on is read only with the code it follows; add that, or set "
                         + "\(ean.fullKey("addon")): ignore to read add-ons as codes of their own")
        }
    }

    /// The passes `names` chooses among the engine's passes for the symbologies.
    private func readPasses(_ names: [String], _ keys: ConfigurationKeyReader) -> Set<DecoderPass> {
        let engines = DecoderPass.passes(for: engine, symbologies: scanner.symbologies)
        var chosen: Set<DecoderPass> = []
        for (index, name) in names.enumerated() {
            guard let pass = DecoderPass(rawValue: name.lowercased()) else {
                keys.problem("passes[\(index)]", "unknown pass \"\(name)\" (known: \(DecoderPass.allCases.map(\.rawValue).joined(separator: ", ")))")
                continue
            }
            if engines.contains(pass) { chosen.insert(pass) } else {
                keys.problem("passes[\(index)]", "the \(engine) engine has no \(pass) pass for these symbologies; its passes: "
                             + engines.map(\.rawValue).joined(separator: ", "))
            }
        }
        if names.isEmpty { keys.problem("passes", "names no pass; remove the key for all of the engine's passes") }
        return chosen
    }
}
