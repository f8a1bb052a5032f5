import Capture
import ConfigurationKeys
import Logging
import ServiceLifecycle

/// One kind of results handler, its descriptor: its settings under its key prefix (read from the
/// scoped reader, checked for `check-config`; `nil` leaves it off), how it is made, how a reload
/// reaches it (in place, or at the next start), the services it runs beside the scan, and how it
/// describes itself (`--version`, `/status`).
///
/// Registered by one line in `Components.standard` (in the order codes pass through handlers);
/// `ScanService`, `ResultsHandlerService` and `Daemon` reach it through this alone.
public struct ResultsHandlerDescriptor: Sendable {
    /// How a reload reaches a handler of `Handler`, with settings `Settings`.
    public enum Reload<Settings: Sendable, Handler: ResultsHandler>: Sendable {
        /// `apply` gets the handler made at start (`nil`: none was) and the new settings (`nil`: turned off).
        case inPlace(_ apply: @Sendable (Handler?, Settings?, Logger) -> Void)
        /// Read only at start: a reload that changes them says so (`SettingsReload.restartsService`).
        case atStart(why: String)
    }

    /// Its name in `/status` (`webhook`, `live_view`).
    public let name: String
    public let settings: SettingsSection
    /// The key that makes it a sink for the codes beside stdout (`mqtt.url`): with `output.stdout`
    /// false, one sink must be on; `nil`: not a sink.
    public let sink: String?
    let versionLine: @Sendable () -> String?
    let make: @Sendable (SyncscanConfiguration, ResultsHandlerRegistry.Context) -> (any ResultsHandler)?
    let applyInPlace: (@Sendable ((any ResultsHandler)?, SyncscanConfiguration, Logger) -> Void)?
    let services: @Sendable (any ResultsHandler, SyncscanConfiguration, ComponentServiceContext) -> [ComponentService]
    let isOn: @Sendable (SyncscanConfiguration) -> Bool
    /// Whether `/status` lists it (a handler made whether or not its settings turn it on: `match`).
    let isDescribed: @Sendable (SyncscanConfiguration) -> Bool
    let describe: @Sendable (SyncscanConfiguration) -> [(name: String, value: String)]

    /// - Parameters:
    ///   - key: its settings' key; its name is the handler's key prefix (`webhook` for `webhook.*`).
    ///   - read: reads `<prefix>.*` from the reader scoped to it; `nil` leaves the handler off.
    ///   - make: the handler for the settings (its threads start with `ServiceHooks.start()`).
    ///   - services: the services it runs beside the scan (the live view's HTTP server), each with
    ///     what a reload hands it.
    ///   - describe: its fields in `/status` (never a secret).
    ///   - isDescribed: whether `/status` lists it with its settings now (one whose `read` never
    ///     returns `nil` says when it is off).
    ///   - versionLine: its library's line in `--version`, if it has one.
    public init<Settings: Sendable & Hashable, Handler: ResultsHandler>(
        name: String, settings key: SettingsKey<Settings?>, read: @escaping @Sendable (ConfigurationKeyReader) -> Settings?,
        reload: Reload<Settings, Handler>, sink: String? = nil,
        make: @escaping @Sendable (Settings, ResultsHandlerRegistry.Context) -> Handler,
        services: (@Sendable (Handler, Settings, ComponentServiceContext) -> [ComponentService])? = nil,
        describe: @escaping @Sendable (Settings) -> [(name: String, value: String)] = { _ in [] },
        isDescribed: @escaping @Sendable (Settings) -> Bool = { _ in true },
        versionLine: @escaping @Sendable () -> String? = { nil }
    ) {
        self.name = name
        self.sink = sink
        self.versionLine = versionLine
        switch reload {
        case .inPlace(let apply):
            settings = SettingsSection(key, prefix: key.name, reload: .inPlace, read: read)
            applyInPlace = { handler, configuration, logger in apply(handler.map { $0 as! Handler }, configuration[key], logger) }
        case .atStart(let why):
            settings = SettingsSection(key, prefix: key.name, reload: .restartsService(why: why), read: read)
            applyInPlace = nil
        }
        self.make = { configuration, context in configuration[key].map { make($0, context) } }
        self.services = { handler, configuration, context in
            guard let services, let settings = configuration[key] else { return [] }
            return services(handler as! Handler, settings, context)
        }
        isOn = { $0[key] != nil }
        self.isDescribed = { configuration in configuration[key].map(isDescribed) ?? true }
        self.describe = { configuration in configuration[key].map(describe) ?? [] }
    }
}

/// What a handler's services are made with: the scan they report on, the sockets systemd passed.
public struct ComponentServiceContext: Sendable {
    public var scan: ScanService
    public var sockets: SocketActivation
    public var logger: Logger
}

/// A service a component runs beside the scan (the live view's HTTP server), and what a reload
/// hands it (the new configuration, whose settings it applies in place).
public struct ComponentService: Sendable {
    public var service: any Service
    public var reload: @Sendable (SyncscanConfiguration) -> Void
    public init(_ service: any Service, reload: @escaping @Sendable (SyncscanConfiguration) -> Void) {
        (self.service, self.reload) = (service, reload)
    }
}
