import Configuration
import ConfigurationKeys
import Daemon
import Foundation
import Results
import TestSupport
import Testing

@Suite(.offThePool) struct WebhookConfigurationTests {
    @Test func noURLMeansNoWebhook() async throws {
        let c = try await SyncscanConfiguration.load(file: nil, environment: [:])
        #expect(c.webhook == nil)
    }

    @Test func everyWebhookKeyReachesTheSettings() async throws {
        let file = try TemporaryConfigFile("""
        output:
          stdout: false
        webhook:
          url:
            - https://inventory.example/hooks/scan
            - http://127.0.0.1:1880/scan
          ca_file: /etc/syncscan/ca.pem
          headers:
            - "X-Scanner: dock1"
          token_file: /etc/syncscan/webhook-token
          timeout_seconds: 2.5
          batch_max: 20
          batch_wait_ms: 200
          queue_messages: 500
          spool_directory: /var/lib/syncscan
          spool_max_bytes: 1048576
        """)
        let c = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        var expected = WebhookSettings(urls: ["https://inventory.example/hooks/scan", "http://127.0.0.1:1880/scan"])
        expected.caFile = "/etc/syncscan/ca.pem"
        expected.headers = ["X-Scanner: dock1"]
        expected.tokenFile = "/etc/syncscan/webhook-token"
        expected.timeoutSeconds = 2.5
        expected.batchMax = 20
        expected.batchWaitMilliseconds = 200
        expected.queueMessages = 500
        expected.spoolDirectory = "/var/lib/syncscan"
        expected.spoolMaxBytes = 1_048_576
        #expect(c.webhook == expected)
        #expect(!c.output.stdout)
    }

    @Test func aURLFromTheEnvironmentAndTheStateDirectoryAsSpool() async throws {
        let c = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_WEBHOOK_URL": "http://a/x, http://b/y",
                                                                            "STATE_DIRECTORY": "/var/lib/syncscan"])
        #expect(c.webhook?.urls == ["http://a/x", "http://b/y"])
        #expect(c.webhook?.spoolDirectory == "/var/lib/syncscan")
    }

    @Test func problemsNameTheFileAndLine() async throws {
        let file = try TemporaryConfigFile("""
        webhook:
          url: ftp://user:secret@host/x
          headers:
            - "Authorization: Bearer abc"
          timeout_seconds: 0
          batch_max: 0
        """)
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == [
            "\(file.path):2: webhook.url: \"ftp://***@host/x\" is not an http:// or https:// URL with a host (e.g. https://example.com/hooks/scan)",
            "\(file.path):3: webhook.headers: Authorization is set by syncscan (Authorization from webhook.token_file): remove it",
            "\(file.path):5: webhook.timeout_seconds: 0 is out of range: must be greater than 0 and at most 3600",
            "\(file.path):6: webhook.batch_max: 0 is out of range: must be from 1 to 10000 (codes per request; 1 sends each code's object alone)",
        ])
    }

    /// Credentials with no host after them (`https://user:pw@`) are not a URL to post to; the
    /// message shows the URL with its credentials redacted.
    @Test func aURLWithCredentialsButNoHostIsRefused() async throws {
        let file = try TemporaryConfigFile("""
        webhook:
          url: ["https://user:pw@", "http://user:pw@/hook", "https://:8443/hook"]
        """)
        let lines = await expectConfigurationError(file: file.path)
        let refusal = "is not an http:// or https:// URL with a host (e.g. https://example.com/hooks/scan)"
        #expect(lines == [
            "\(file.path):2: webhook.url: \"https://***@\" \(refusal)",
            "\(file.path):2: webhook.url: \"http://***@/hook\" \(refusal)",
            "\(file.path):2: webhook.url: \"https://:8443/hook\" \(refusal)",
        ])
        #expect(!lines.joined().contains("pw"))
    }

    @Test func webhookKeysAreNotReadOnlyAtStart() async throws {
        let old = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_WEBHOOK_URL": "http://a/x"])
        let changed = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_WEBHOOK_URL": "http://b/y",
                                                                                     "SYNCSCAN_MQTT_URL": "mqtt://broker"])
        #expect(changed.startOnlyChanges(from: old).map(\.keys) == ["mqtt.*"])
    }
}
