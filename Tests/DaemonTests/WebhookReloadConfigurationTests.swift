import Capture
import Daemon
import Decoders
import Foundation
import Media
import Results
import TestSupport
import Testing

/// Hands the code of frame `seq` to `handler`.
private func send(_ handler: any ResultsHandler, seq: UInt64) throws {
    let frame = GreyFrame(width: 16, height: 16).videoFrame(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 1_000_000))
    var code = DeliveredCode(code: MachineReadableCodeObject(symbology: .qrcode, data: Array("code \(seq)".utf8), text: "code \(seq)",
                                                             quality: 1, orientation: .up, corners: [], frame: frame.info, pass: .zbar))
    try handler.handle(&code)
}

@Suite(.offThePool) struct WebhookReloadConfigurationTests {
    /// `ResultsHandlerRegistry.reload`: the token file read again at each reload, the running
    /// token kept when it cannot be read, `webhook.url` removed closing the URLs, and a webhook
    /// turned on by a reload when none ran at start said to need a restart.
    @Test func aReloadReadsTheTokenAgainKeepsItWhenUnreadableAndRemovesTheURLs() async throws {
        let receiver = try WebhookReceiver()
        let directory = try TemporaryDirectory()
        let tokenFile = directory.path + "/token"
        let (one, two) = ("one-\(UUID().uuidString)", "two-\(UUID().uuidString)")
        try Data("\(one)\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let environment = ["SYNCSCAN_WEBHOOK_URL": receiver.url, "SYNCSCAN_WEBHOOK_TOKEN_FILE": tokenFile,
                           "SYNCSCAN_WEBHOOK_SPOOL_DIRECTORY": ""]
        let configuration = try await SyncscanConfiguration.load(file: nil, environment: environment)
        let logs = LogRecorder()
        let handlers = ResultsHandlerRegistry.make(configuration, context: .init(source: "y4m:-", logger: logs.logger))
        let webhook = try #require(handlers.webhook)
        // Beside it only the match handler, made in every configuration (off here).
        #expect(handlers.all.count == 2 && handlers.all.last === webhook && handlers.liveView == nil)
        webhook.start()
        func authorizations() -> [String?] { receiver.requests.map(\.authorization) }

        try send(webhook, seq: 0)
        #expect(waitUntil { authorizations() == ["Bearer \(one)"] })
        try Data("\(two)\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        ResultsHandlerRegistry.reload(handlers, to: configuration, logger: logs.logger)
        try send(webhook, seq: 1)
        #expect(waitUntil { authorizations().count == 2 }, "\(authorizations())")
        try FileManager.default.removeItem(atPath: tokenFile)
        ResultsHandlerRegistry.reload(handlers, to: configuration, logger: logs.logger)
        try send(webhook, seq: 2)
        #expect(waitUntil { authorizations().count == 3 }, "\(authorizations())")
        #expect(authorizations() == ["Bearer \(one)", "Bearer \(two)", "Bearer \(two)"])
        #expect(logs.lines(containing: "webhook.token_file cannot be read at the reload; the running token is kept").count == 1)

        let none = try await SyncscanConfiguration.load(file: nil, environment: [:])
        ResultsHandlerRegistry.reload(handlers, to: none, logger: logs.logger)
        try send(webhook, seq: 3)
        try webhook.finish()
        #expect(receiver.requests.count == 3, "no URL left after webhook.url was removed")
        #expect(webhook.delivered == 3)
        #expect(logs.lines(containing: "webhook settings reloaded in place").count == 2, "\(logs.all.map(\.line))")
        #expect(logs.all.allSatisfy { !$0.line.contains(one) && !$0.line.contains(two) }, "no token in a log line")

        // No webhook at start: turning one on needs a restart, and says so.
        ResultsHandlerRegistry.reload(ResultsHandlerRegistry.make(none, context: .init(source: "y4m:-", logger: logs.logger)),
                                      to: configuration, logger: logs.logger)
        #expect(logs.lines(containing: "webhook.url changed: the webhook handler is made at start; restart the service").count == 1)
    }
}
