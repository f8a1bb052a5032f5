import Capture
import Foundation
import HTTP
import Logging
import Media
import Results
import SystemCalls
import TestSupport
import Testing
@testable import LiveView

/// A scan with nothing to report: the trigger's endpoints need none.
private struct IdleScan: ScanReporting {
    func statistics() -> CaptureStatistics { CaptureStatistics() }
    func statusJSON() -> [UInt8] { Array("{}".utf8) }
    var currentSource: (any FrameSource)? { nil }
    func metricsExposition() -> [UInt8] { [] }
}

/// The live view's server as the service makes it, with `password` (HTTP Basic) or none, pressing `triggers`
/// and resetting `expected`.
private func server(password: String?, triggers: TriggerSwitch, expected: ExpectedTally? = nil) throws -> HTTPServer {
    let scan = IdleScan()
    let router = LiveViewRouter(hub: LiveViewHub(), scan: scan, status: LiveViewStatus(scan: scan), password: password, triggers: triggers,
                                expected: expected)
    let server = LiveViewHTTPService.server(HTTPSettings(listen: HTTPListenAddress(host: "127.0.0.1", port: 0)), router: router,
                                            logger: Logger(label: "test"))
    try server.start()
    return server
}

private func basic(_ password: String) -> String {
    "Authorization: Basic " + Data("any:\(password)".utf8).base64EncodedString()
}

@Suite(.offThePool) struct LiveViewTriggerTests {
    /// `POST /expected/reset` starts the tally against `match.list` over and answers its counts;
    /// only POST, only with the password; 409 without a list.
    @Test func postExpectedResetStartsTheTallyOver() throws {
        let tally = ExpectedTally()
        tally.apply(try ExpectedList(["BOX-A,2", "BOX-B"]))
        _ = tally.count(0)
        _ = tally.count(nil)
        let http = try server(password: "s3cret", triggers: TriggerSwitch(), expected: tally)
        defer { http.stop() }
        let port = try #require(http.port)
        let refused = try HTTPTestConnection.request("/expected/reset", port: port, method: "POST")
        #expect(refused.status == 401 && tally.totals?.wrong == 1, "\(refused.status): nothing reset without the password")
        let get = try HTTPTestConnection.request("/expected/reset", port: port, headers: [basic("s3cret")])
        #expect(get.status == 405 && get.headers["allow"] == "POST" && tally.totals?.wrong == 1, "\(get.status)")
        let reset = try HTTPTestConnection.request("/expected/reset", port: port, method: "POST", headers: [basic("s3cret")])
        #expect(reset.status == 202 && reset.headers["content-type"] == "application/json", "\(reset.status) \(reset.text)")
        #expect(reset.text == #"{"reset":true,"correct":0,"wrong":0,"missing":2,"extra":0}"# + "\n", "\(reset.text)")
        #expect(tally.totals == ExpectedCounts(missing: 2) && tally.resets == 1)

        let bare = try server(password: nil, triggers: TriggerSwitch(), expected: ExpectedTally())
        defer { bare.stop() }
        let none = try HTTPTestConnection.request("/expected/reset", port: try #require(bare.port), method: "POST")
        #expect(none.status == 409 && none.text.contains("no match.list"), "\(none.status) \(none.text)")
    }

    /// With `http.password_file`: without the password (or with a wrong one) 401 and nothing
    /// pressed; GET 405; a browser's cross-site POST 403; with it, `POST /trigger` presses and
    /// `POST /trigger/release` releases (origin `http`), each answered 202 with the switch's counts.
    @Test func postTriggerPressesOnlyWithThePassword() throws {
        let triggers = TriggerSwitch()
        let http = try server(password: "s3cret", triggers: triggers)
        defer { http.stop() }
        let port = try #require(http.port)
        for headers in [[], [basic("wrong")]] {
            let reply = try HTTPTestConnection.request("/trigger", port: port, method: "POST", headers: headers)
            #expect(reply.status == 401, "\(reply.status) \(reply.text)")
            #expect(reply.headers["www-authenticate"]?.hasPrefix("Basic") == true)
            #expect(!reply.text.contains("s3cret"))
        }
        for method in ["GET", "HEAD", "PUT"] {
            let reply = try HTTPTestConnection.request("/trigger", port: port, method: method, headers: [basic("s3cret")])
            #expect(reply.status == 405 && reply.headers["allow"] == "POST", "\(method): \(reply.status) \(reply.headers)")
        }
        let crossSite = try HTTPTestConnection.request("/trigger", port: port, method: "POST", headers: [basic("s3cret"), "Origin: http://evil.example"])
        #expect(crossSite.status == 403, "\(crossSite.status) \(crossSite.text)")
        #expect(triggers.counts.pulls == 0, "nothing pressed before the password")

        let press = try HTTPTestConnection.request("/trigger", port: port, method: "POST", headers: [basic("s3cret")])
        #expect(press.status == 202 && press.headers["content-type"] == "application/json", "\(press.status) \(press.headers)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(press.body)) as? [String: Any])
        #expect(body["trigger"] as? String == "press" && body["pulls"] as? Int == 1 && body["dropped"] as? Int == 0, "\(body)")
        let release = try HTTPTestConnection.request("/trigger/release", port: port, method: "POST",
                                                     headers: [basic("s3cret"), "Origin: http://127.0.0.1:\(port)"])
        #expect(release.status == 202 && release.text.contains("\"trigger\":\"release\""), "\(release.status) \(release.text)")
        let pulls = triggers.takePulls()
        #expect(pulls.map(\.kind) == [.press, .release] && pulls.allSatisfy { $0.origin == "http" })
        // The other endpoints keep theirs: POST is not for them.
        #expect(try HTTPTestConnection.request("/status", port: port, method: "POST", headers: [basic("s3cret")]).status == 405)
    }

    /// Without a password (a loopback server) a POST presses; a cross-site one does not.
    @Test func withoutAPasswordAPostPressesAndACrossSiteOneDoesNot() throws {
        let triggers = TriggerSwitch()
        let http = try server(password: nil, triggers: triggers)
        defer { http.stop() }
        let port = try #require(http.port)
        #expect(try HTTPTestConnection.request("/trigger", port: port, method: "POST", headers: ["Origin: null"]).status == 403)
        #expect(try HTTPTestConnection.request("/trigger", port: port, method: "POST").status == 202)
        #expect(triggers.takePulls().map(\.kind) == [.press])
    }

    /// 1,000 POSTs from four clients at once: each answered 202, the switch keeps its bound and
    /// counts the rest as dropped, and `/healthz` is answered meanwhile.
    @Test func aStormOfPostsIsBoundedAndTheServerStaysResponsive() throws {
        let triggers = TriggerSwitch()
        let http = try server(password: "s3cret", triggers: triggers)
        defer { http.stop() }
        let port = try #require(http.port)
        let statuses = LockedValue([Int: Int]())
        let health = LockedValue([Duration]())
        DispatchQueue.concurrentPerform(iterations: 5) { client in
            for _ in 0..<(client == 4 ? 10 : 250) {
                if client == 4 {  // a monitor beside the storm
                    let asked = ContinuousClock.now
                    let ok = (try? HTTPTestConnection.request("/healthz", port: port, headers: [basic("s3cret")]).status) == 200
                    health.withLock { $0.append(ok ? ContinuousClock.now - asked : .seconds(999)) }
                    continue
                }
                let status = (try? HTTPTestConnection.request("/trigger", port: port, method: "POST", headers: [basic("s3cret")]).status) ?? 0
                statuses.withLock { $0[status, default: 0] += 1 }
            }
        }
        #expect(statuses.withLock { $0 } == [202: 1000])
        #expect(triggers.counts == TriggerSwitch.Counts(pulls: 1000, dropped: 1000 - triggers.capacity))
        #expect(triggers.takePulls().count == triggers.capacity)
        let slowest = health.withLock { $0.max() } ?? .seconds(999)
        // Answered beside the storm (a server stuck behind it would not answer at all).
        #expect(slowest < .seconds(30), "/healthz beside the storm: \(health.withLock { $0 })")
    }
}
