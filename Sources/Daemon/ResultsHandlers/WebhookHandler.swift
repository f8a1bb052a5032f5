import ConfigurationKeys
import Foundation
import HTTPClient
import Logging
import Results
import SystemCalls

extension ResultsHandlerDescriptor {
    /// Every code POSTed to web endpoints (`webhook.*`), a sink; a reload applies its settings in
    /// place (the token file read again; a removed `webhook.url` closes the endpoints), but a
    /// webhook turned on when none was at start waits for a restart.
    public static let webhook = ResultsHandlerDescriptor(
        name: "webhook", settings: .webhook, read: WebhookSettings.init(reading:),
        reload: .inPlace(reloadWebhook), sink: "webhook.url",
        make: { settings, context in
            WebhookResultsHandler(settings: settings, source: context.source, token: readToken(settings, logger: context.logger),
                                  logger: context.logger)
        },
        describe: { [("endpoints", "\($0.urls.count)"), ("batch_max", "\($0.batchMax)")] },
        versionLine: { "libcurl \(CurlLibrary.version) (\(CurlLibrary.versionOrigin))" })

    /// `webhook.*` applied to the running handler.
    @Sendable static func reloadWebhook(_ webhook: WebhookResultsHandler?, _ new: WebhookSettings?, logger: Logger) {
        guard let webhook else {
            if new != nil {
                logger.notice("webhook.url changed: the webhook handler is made at start; restart the service to apply it")
            }
            return
        }
        guard var settings = new else {
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
                         metadata: ["file": "\(LogText.untrusted(path))", "error": "\(LogText.error(error))"])
            // Recorded as the running file, so the next reload reads the new one again.
            settings.tokenFile = webhook.settings.tokenFile
            webhook.apply(settings, keepingToken: true)
        }
    }

    /// The first line of `webhook.token_file`, trimmed; `nil` (logged, the token never) when it cannot be read.
    static func readToken(_ settings: WebhookSettings, logger: Logger) -> String? {
        secretFileLine(settings.tokenFile, key: "webhook.token_file",
                       without: "posting without Authorization (the receiver will likely refuse)", logger: logger)?
            .trimmingCharacters(in: .whitespaces)
    }
}

extension SettingsKey where Value == WebhookSettings? {
    public static var webhook: Self { Self("webhook", default: nil) }
}

extension SyncscanConfiguration {
    /// Every code POSTed to web endpoints; `nil` (no `webhook.url`): none.
    public var webhook: WebhookSettings? { get { self[.webhook] } set { self[.webhook] = newValue } }
}
