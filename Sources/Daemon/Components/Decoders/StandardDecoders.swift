import Capture
import ConfigurationKeys
import Decoders
import Media

extension DecoderLibraryDescriptor {
    /// zbar: the `zbar` engine.
    public static let zbar = DecoderLibraryDescriptor(library: ZBarDecoder(), engines: [.zbar])
    /// zxing-cpp: the `zxing` engine, and `hybrid`, zxing-cpp's and zbar's passes together.
    public static let zxing = DecoderLibraryDescriptor(library: ZXingDecoder(), engines: [.zxing, .hybrid])
}

extension SettingsKey where Value == DecoderSettings {
    /// `engine`, `effort`, `symbologies`, `passes`, `zbar.*`, `zxing.*`.
    public static var decoders: Self { Self("decoders", default: DecoderSettings()) }
}

extension Components {
    /// The decoding settings every library shares (`engine` among the registered libraries'
    /// engines, `effort`, `symbologies`, `passes`) and zbar's and zxing-cpp's own (`zbar.*`,
    /// `zxing.*`, read with them: `zbar.<symbology>.enable` changes the symbologies): top-level
    /// keys, applied in place.
    var decoding: SettingsSection {
        let engines = self.engines
        return SettingsSection(.decoders, prefix: nil, reload: .inPlace, read: { DecoderSettings(reading: $0, engines: engines) })
    }
}

extension SyncscanConfiguration {
    /// The engine, effort, passes, symbologies, zbar's and zxing-cpp's settings.
    public var decoders: DecoderSettings { get { self[.decoders] } set { self[.decoders] = newValue } }

    // The decoder settings' fields, as the pipeline and the tests name them; kept in `decoders`.
    public var engine: DecoderEngine { get { decoders.engine } set { decoders.engine = newValue } }
    public var effort: ScanEffort { get { decoders.effort } set { decoders.effort = newValue } }
    public var passes: Set<DecoderPass>? { get { decoders.passes } set { decoders.passes = newValue } }
    public var scanner: ScannerSettings { get { decoders.scanner } set { decoders.scanner = newValue } }
    public var zxing: ZXingSettings { get { decoders.zxing } set { decoders.zxing = newValue } }

    /// The metadata output's settings: what the engine scans for and where, and each registered
    /// library's own settings, passed through to its reader.
    public var metadataSettings: MetadataOutput.Settings {
        // Codes detected and not decoded: a live view outlines them, and they keep an item
        // alive at its place through frames that do not read it.
        var settings = MetadataOutput.Settings(engine: engine, scanner: scanner, zxing: zxing, effort: effort, onlyPasses: passes,
                                               rectOfInterest: rectOfInterest, reportsUndecoded: http != nil || duplicateSuppression.mode == .items,
                                               confirmsByItem: duplicateSuppression.mode == .items)
        for decoder in components.decoders {
            if let section = decoder.settings, let options = componentSettings.opaque(section.name) { settings.libraryOptions[decoder.library.id] = options }
        }
        settings.trigger = trigger
        if duplicateSuppression.mode == .items { settings.confirmation = duplicateSuppression.confirmation }
        return settings
    }
}
