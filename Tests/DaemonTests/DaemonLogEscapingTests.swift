import Capture
@testable import Daemon
import SystemCalls
import SystemPackage
import TestSupport
import Testing

/// What ends a log record and forges another, then clears the screen.
private let forged = "\n2026-12-01T21:00:00+0000 critical syncscan: [Daemon] FORGED\u{1B}[2J"

/// The daemon's records that quote text from outside (a configured path, the environment's
/// NOTIFY_SOCKET, an error naming them) show it escaped (`LogText`): no record holds a raw line
/// end or ESC.
@Suite(.offThePool) struct DaemonLogEscapingTests {
    @Test func theKeyTriggerQuotesItsDeviceEscaped() throws {
        let log = LogRecorder()
        let settings = KeyTriggerSettings(device: "/nonexistent/event7" + forged, code: KeyTriggerSettings.defaultCode)
        let trigger = KeyTrigger(settings: settings, triggers: TriggerSwitch(), logger: log.logger, reopenInterval: .seconds(600))
        trigger.start()
        #expect(waitUntil { !log.messages(at: .error).isEmpty })
        trigger.stop()
        #expect(log.recordsWithRawControls.isEmpty, "\(log.recordsWithRawControls)")
        #expect(log.messages(at: .error).first?.hasPrefix("key trigger: /nonexistent/event7\\n2026-12-01T21:00:00+0000") == true,
                "\(log.all.map(\.line))")
    }

    @Test func aNotifySocketSyncscanCannotUseIsQuotedEscaped() {
        let log = LogRecorder()
        _ = SystemdNotifier(environment: ["NOTIFY_SOCKET": "socket" + forged], logger: log.logger)
        #expect(log.lines(containing: "NOTIFY_SOCKET=socket\\n2026-12-01T21:00:00+0000").count == 1, "\(log.all.map(\.line))")
        #expect(log.recordsWithRawControls.isEmpty, "\(log.recordsWithRawControls)")
    }

    @Test func aMetricsTextfileThatCannotBeWrittenIsQuotedEscaped() throws {
        let log = LogRecorder()
        let writer = MetricsTextfileWriter(logger: log.logger)
        defer { writer.finish() }
        writer.submit(Array("syncscan_up 1\n".utf8), to: FilePath("/nonexistent" + forged + "/syncscan.prom"))
        #expect(waitUntil { !log.messages(at: .error).isEmpty })
        #expect(log.recordsWithRawControls.isEmpty, "\(log.recordsWithRawControls)")
        #expect(log.lines(containing: "path=/nonexistent\\n2026-12-01T21:00:00+0000").count == 1, "\(log.all.map(\.line))")
    }

    @Test func aSecretFileThatCannotBeReadIsQuotedEscaped() {
        let log = LogRecorder()
        #expect(secretFileLine("/nonexistent" + forged, key: "webhook.token_file", without: "no token is sent", logger: log.logger) == nil)
        #expect(log.recordsWithRawControls.isEmpty, "\(log.recordsWithRawControls)")
        #expect(log.lines(containing: "file=/nonexistent\\n2026-12-01T21:00:00+0000").count == 1, "\(log.all.map(\.line))")
    }
}
