import Capture
import Foundation
import HTTP
import Logging
import Media
import TestSupport
import Testing
@testable import LiveView

/// A scan whose source is `source`: fixed counters and status.
private struct ScanOf: ScanReporting {
    let source: (any FrameSource)?
    func statistics() -> CaptureStatistics { CaptureStatistics() }
    func statusJSON() -> [UInt8] { Array("{\"type\":\"status\",\"state\":\"scanning\"}".utf8) }
    var currentSource: (any FrameSource)? { source }
    func metricsExposition() -> [UInt8] { [] }
}

/// `/status` shows what the source says of itself (`FrameSource.report`), whatever the source:
/// a kind of source the live view has never heard of shows its mode, label, health and controls.
@Suite(.offThePool) struct SourceReportStatusTests {
    /// `/status` from the live view's own server over a scan of `source`, parsed.
    private func status(of source: (any FrameSource)?) throws -> [String: Any] {
        let scan = ScanOf(source: source)
        let router = LiveViewRouter(hub: LiveViewHub(), scan: scan, status: LiveViewStatus(scan: scan), password: nil)
        let server = LiveViewHTTPService.server(HTTPSettings(listen: HTTPListenAddress(host: "127.0.0.1", port: 0)), router: router,
                                                logger: Logger(label: "test"))
        try server.start()
        defer { server.stop() }
        let reply = try HTTPTestConnection.request("/status", port: server.port ?? 0)
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any], "\(reply.text)")
    }

    @Test func aFakeSourcesOwnReportIsShown() throws {
        let report = SourceReport(
            kind: "gadget", label: "gadget on bench 3",
            mode: SourceMode(width: 800, height: 600, format: "RGGB", framesPerSecond: 12.5, origin: "gadget firmware"),
            controls: SourceControls(settings: [.init(name: "exposure", value: "40"), .init(name: "gain", value: "\"high\"")], failures: 3),
            health: SourceHealth(missingSince: .now - .seconds(5), reopens: 2))
        let status = try status(of: ScriptedFrameSource(steps: [], isLive: true, report: report))
        #expect(status["state"] as? String == "scanning", "the service's fields come first: \(status)")
        let mode = try #require(status["mode"] as? [String: Any], "\(status)")
        #expect(mode["width"] as? Int == 800 && mode["height"] as? Int == 600 && mode["format"] as? String == "RGGB", "\(mode)")
        #expect(mode["fps"] as? Double == 12.5 && mode["origin"] as? String == "gadget firmware", "\(mode)")
        let input = try #require(status["input"] as? [String: Any], "\(status)")
        #expect(input["kind"] as? String == "gadget" && input["label"] as? String == "gadget on bench 3", "\(input)")
        let health = try #require(input["health"] as? [String: Any], "\(input)")
        #expect(health["reopens"] as? Int == 2 && (health["missing_seconds"] as? Int).map { $0 >= 5 } == true, "\(health)")
        let controls = try #require(input["controls"] as? [String: Any], "\(input)")
        #expect(controls["failures"] as? Int == 3, "\(controls)")
        let settings = (controls["settings"] as? [[String: String]]) ?? []
        #expect(settings == [["name": "exposure", "value": "40"], ["name": "gain", "value": "\"high\""]], "\(controls)")
    }

    /// A source without controls, not missing and without a mode yet: `null` for each; between
    /// sessions (no source) `mode` and `input` are `null`.
    @Test func whatASourceDoesNotHaveIsNull() throws {
        let bare = try status(of: ScriptedFrameSource(steps: [], isLive: false, report: SourceReport(kind: "bare", label: "bare")))
        #expect(bare["mode"] is NSNull, "\(bare)")
        let input = try #require(bare["input"] as? [String: Any], "\(bare)")
        #expect(input["controls"] is NSNull && (input["health"] as? [String: Any])?["missing_seconds"] is NSNull, "\(input)")
        let none = try status(of: nil)
        #expect(none["mode"] is NSNull && none["input"] is NSNull, "\(none)")
    }

    /// The mode's JSON is what `/status` printed before sources described themselves (a camera's, here).
    @Test func theModesJSONIsUnchanged() {
        let mode = SourceMode(width: 64, height: 48, format: "YUYV", framesPerSecond: 30, origin: "negotiated")
        #expect(mode.json == "{\"width\":64,\"height\":48,\"format\":\"YUYV\",\"fps\":30,\"origin\":\"negotiated\"}")
    }
}
