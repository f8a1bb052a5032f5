import Capture
import ConfigurationKeys
import Media

/// One decoder library, its descriptor: the library (`DecoderLibrary`: its passes, a reader per
/// scanning thread), the engines it brings (the `engine` key's choices), its own settings under
/// its prefix, and how it describes itself (`--version`, `/status`).
///
/// Its settings reach its reader through `Capture` opaque (`DecoderRequest.options`), and a
/// reload applies them in place, as the running pipeline takes every scan setting
/// (`SettingsReload.inPlace`). Registered by one line in `Components.standard`.
public struct DecoderLibraryDescriptor: Sendable {
    public let library: any DecoderLibrary
    /// The engines it brings, in the order messages list them; an engine of several libraries is
    /// listed by the last of them to register.
    public let engines: [DecoderEngine]
    /// Its own settings, under the prefix of its id (`dot.*`); `nil`: none.
    public let settings: SettingsSection?

    /// A library without settings of its own (zbar's and zxing-cpp's are read with the engine's
    /// choice, `Components.decoding`, as `zbar.<symbology>.enable` changes the symbologies).
    public init(library: any DecoderLibrary, engines: [DecoderEngine]) {
        (self.library, self.engines, self.settings) = (library, engines, nil)
    }

    /// A library whose settings are `key`'s, read under `<id>.*` by `read` (each problem named
    /// with its key), shown in `/status` by `describe`.
    public init<Value>(library: any DecoderLibrary, engines: [DecoderEngine], settings key: SettingsKey<Value>,
                       read: @escaping @Sendable (ConfigurationKeyReader) -> Value,
                       describe: @escaping @Sendable (Value) -> [(name: String, value: String)] = { _ in [] }) {
        (self.library, self.engines) = (library, engines)
        settings = SettingsSection(key, prefix: library.id.rawValue, reload: .inPlace, read: read, describe: describe)
    }

    /// Its name: the library's id (`zbar`, `zxing`), as code lines' `engine` gives it.
    public var name: String { library.id.rawValue }

    /// What it says of itself in `/status`: its version, then its settings' fields.
    func description(_ store: ComponentSettingsStore) -> ComponentDescription {
        ComponentDescription(kind: "decoder", name: name,
                             fields: [("version", library.version.version)] + (settings?.describe(store) ?? []))
    }
}
