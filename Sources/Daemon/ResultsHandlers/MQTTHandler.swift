import ConfigurationKeys
import Foundation
import Logging
import MQTT
import Results

extension ResultsHandlerDescriptor {
    /// Every code, the status and the counters to an MQTT broker (`mqtt.*`), a sink; with
    /// `mqtt.trigger` its `<prefix>/trigger` presses the scan's trigger; read at start.
    public static let mqtt = ResultsHandlerDescriptor(
        name: "mqtt", settings: .mqtt, read: MQTTSettings.init(reading:),
        reload: .atStart(why: "MQTT settings are read at start"), sink: "mqtt.url",
        make: { settings, context in
            MQTTResultsHandler(settings: settings, source: context.source, sourceName: context.sourceName, hostname: shortHostname(),
                               password: readPassword(settings, logger: context.logger), softwareVersion: context.softwareVersion,
                               logger: context.logger, triggers: context.triggers, readResults: context.readWindows)
        },
        describe: { [("qos", "\($0.qos)"), ("trigger", "\($0.trigger)")] },
        versionLine: { "libmosquitto \(MosquittoLibrary.version) (\(MosquittoLibrary.versionOrigin))" })

    /// This machine's host name up to its first dot, for MQTT's default topic prefix.
    static func shortHostname() -> String {
        let name = ProcessInfo.processInfo.hostName
        return name.split(separator: ".").first.map(String.init) ?? (name.isEmpty ? "localhost" : name)
    }

    /// The first line of `mqtt.password_file`; `nil` (logged) when it cannot be read.
    static func readPassword(_ settings: MQTTSettings, logger: Logger) -> String? {
        secretFileLine(settings.passwordFile, key: "mqtt.password_file",
                       without: "connecting without a password (the broker will likely refuse)", logger: logger)
    }
}

extension SettingsKey where Value == MQTTSettings? {
    public static var mqtt: Self { Self("mqtt", default: nil) }
}

extension SyncscanConfiguration {
    /// Every code, the status and the counters to an MQTT broker; `nil` (no `mqtt.url`): none.
    public var mqtt: MQTTSettings? { get { self[.mqtt] } set { self[.mqtt] = newValue } }
}
