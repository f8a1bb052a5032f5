import Capture
import ConfigurationKeys
import Foundation
import LiveView
import Logging
import Results

/// The results handlers a configuration turns on beside stdout's JSON lines: one registration
/// line per handler kind, in the order each code passes through them (snapshots first, so the
/// lines and the messages after them name the code's snapshot).
///
/// To add a handler: its type (a `ResultsHandler`), its configuration reading
/// (`SyncscanConfiguration`), and one line in `make`. The service starts, feeds, counts and
/// finishes it through the protocol alone.
public enum ResultsHandlerRegistry {
    /// The handlers one configuration turned on: every one in the order codes pass through them,
    /// and, typed, the two the daemon reaches by kind: the live view (its HTTP service serves the
    /// handler's frames) and the webhook (a reload applies `webhook.*` to it in place).
    public struct Handlers: Sendable {
        public let all: [any ResultsHandler]
        public let liveView: LiveViewResultsHandler?
        public let webhook: WebhookResultsHandler?
    }

    /// What a handler may need besides its own settings.
    public struct Context: Sendable {
        /// The starting source's URI (the `source` field, MQTT's default topic prefix).
        public var source: String
        /// The name the source's input family gives it (`SourceURI.name`: MQTT's default topic
        /// prefix, client id and Home Assistant device); `nil`: read from `source`.
        public var sourceName: String?
        public var logger: Logger
        /// Where snapshots go; `nil`: `snapshots.directory` on disk (tests pass a fake disk).
        public var snapshotDirectory: (any SnapshotDirectory)?
        /// The program's version (MQTT's Home Assistant device).
        public var softwareVersion: String

        public init(source: String, sourceName: String? = nil, logger: Logger, snapshotDirectory: (any SnapshotDirectory)? = nil,
                    softwareVersion: String = "unknown") {
            self.source = source
            self.sourceName = sourceName
            self.logger = logger
            self.snapshotDirectory = snapshotDirectory
            self.softwareVersion = softwareVersion
        }
    }

    /// The handlers `configuration` asks for, made (their threads start with `start()`).
    public static func make(_ configuration: SyncscanConfiguration, context: Context) -> Handlers {
        let webhook = configuration.webhook.map { settings in
            WebhookResultsHandler(settings: settings, source: context.source, token: readToken(settings, logger: context.logger),
                                  logger: context.logger)
        }
        let liveView = configuration.http.map { LiveViewResultsHandler(settings: $0.liveView, source: context.source, logger: context.logger) }
        let made: [(any ResultsHandler)?] = [
            configuration.snapshots.map { settings in
                SnapshotResultsHandler(settings: settings, directory: context.snapshotDirectory ?? FileSystemSnapshotDirectory(path: settings.directory),
                                       logger: context.logger)
            },
            configuration.mqtt.map { settings in
                MQTTResultsHandler(settings: settings, source: context.source, sourceName: context.sourceName, hostname: shortHostname(),
                                   password: readPassword(settings, logger: context.logger), softwareVersion: context.softwareVersion,
                                   logger: context.logger)
            },
            webhook,
            liveView,
        ]
        return Handlers(all: made.compactMap { $0 }, liveView: liveView, webhook: webhook)
    }

    /// Applies a reloaded configuration to the handlers that take one in place: the webhook's
    /// `webhook.*` (the token file read again; a removed `webhook.url` closes the endpoints).
    /// The rest are read at start (`SyncscanConfiguration.startOnlyChanges`), as is a webhook
    /// turned on when none was at start.
    public static func reload(_ handlers: Handlers, to new: SyncscanConfiguration, logger: Logger) {
        guard let webhook = handlers.webhook else {
            if new.webhook != nil {
                logger.notice("webhook.url changed: the webhook handler is made at start; restart the service to apply it")
            }
            return
        }
        guard var settings = new.webhook else {
            var none = webhook.settings
            none.urls = []
            webhook.apply(none, token: nil)
            return
        }
        guard let path = settings.tokenFile else { return webhook.apply(settings, token: nil) }
        do {
            webhook.apply(settings, token: try SecretFile.firstLine(of: path).trimmingCharacters(in: .whitespaces))
        } catch {
            logger.error("webhook.token_file cannot be read at the reload; the running token is kept until it can",
                         metadata: ["file": "\(path)", "error": "\(error)"])
            // Recorded as the running file, so the next reload reads the new one again.
            settings.tokenFile = webhook.settings.tokenFile
            webhook.apply(settings, keepingToken: true)
        }
    }

    /// This machine's host name up to its first dot, for MQTT's default topic prefix.
    static func shortHostname() -> String {
        let name = ProcessInfo.processInfo.hostName
        return name.split(separator: ".").first.map(String.init) ?? (name.isEmpty ? "localhost" : name)
    }

    /// The first line of `mqtt.password_file`; `nil` (logged) when it cannot be read.
    static func readPassword(_ settings: MQTTSettings, logger: Logger) -> String? {
        guard let path = settings.passwordFile else { return nil }
        do {
            return try SecretFile.firstLine(of: path)
        } catch {
            logger.error("mqtt.password_file cannot be read; connecting without a password (the broker will likely refuse)",
                         metadata: ["file": "\(path)", "error": "\(error)"])
            return nil
        }
    }

    /// The first line of `webhook.token_file`, trimmed; `nil` (logged, the token never) when it cannot be read.
    static func readToken(_ settings: WebhookSettings, logger: Logger) -> String? {
        guard let path = settings.tokenFile else { return nil }
        do {
            return try SecretFile.firstLine(of: path).trimmingCharacters(in: .whitespaces)
        } catch {
            logger.error("webhook.token_file cannot be read; posting without Authorization (the receiver will likely refuse)",
                         metadata: ["file": "\(path)", "error": "\(error)"])
            return nil
        }
    }
}
