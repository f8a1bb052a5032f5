import Capture
import HTTP
import Results

extension LiveViewRouter {
    /// The trigger's endpoints: `POST /trigger` presses, `POST /trigger/release` releases.
    static let triggerPaths: Set<String> = ["/trigger", "/trigger/release"]

    /// Presses (`/trigger`) or releases (`/trigger/release`) the scan's trigger, origin `http`,
    /// and answers 202 with `{"trigger":"press"|"release","pulls":N,"dropped":N}` (the switch's
    /// counts after it). Only POST (others 405, nothing pressed). A browser's request from a page
    /// of another site (an `Origin` that is not one of the server's) never gets here: the server
    /// answered it 403, and a `Host` it does not serve 421. The password, when set, was checked
    /// before. The switch only records the pull (bounded, never blocking), so a storm of requests
    /// costs each one its connection's thread for a moment and the scan nothing.
    func trigger(_ request: HTTPRequest) -> HTTPResponse {
        guard let triggers else { return .text("404 not found: \(request.path)", status: 404) }
        guard request.method == "POST" else {
            return .text("405 method not allowed: \(request.method) (\(request.path) takes POST)", status: 405, headers: [("Allow", "POST")])
        }
        let kind: TriggerSwitch.Pull.Kind = request.path == "/trigger/release" ? .release : .press
        switch kind {
        case .press: triggers.press(origin: "http")
        case .release: triggers.release(origin: "http")
        }
        let counts = triggers.counts
        let body = "{\"trigger\":\"\(kind.rawValue)\",\"pulls\":\(counts.pulls),\"dropped\":\(counts.dropped)}\n"
        return .bytes(Array(body.utf8), contentType: "application/json", status: 202)
    }
}

extension LiveViewRouter {
    /// The endpoint that starts the tally against `match.list` over.
    static let expectedResetPath = "/expected/reset"

    /// Starts the tally against `match.list` over (`ExpectedTally.reset`: the run's, or the open
    /// read window's) and answers 202 with `{"reset":true,"correct":N,"wrong":N,"missing":N,"extra":N}`
    /// (the tally after it); 409 without `match.list`. Only POST (others 405), guarded as `trigger`.
    func resetExpected(_ request: HTTPRequest) -> HTTPResponse {
        guard let expected else { return .text("404 not found: \(request.path)", status: 404) }
        guard request.method == "POST" else {
            return .text("405 method not allowed: \(request.method) (\(request.path) takes POST)", status: 405, headers: [("Allow", "POST")])
        }
        guard expected.reset(), let now = expected.totals else { return .text("409 no match.list: nothing is expected", status: 409) }
        let body = "{\"reset\":true,\"correct\":\(now.correct),\"wrong\":\(now.wrong),\"missing\":\(now.missing),\"extra\":\(now.extra)}\n"
        return .bytes(Array(body.utf8), contentType: "application/json", status: 202)
    }
}
