import Foundation
import TestSupport
import Testing

@Suite(.offThePool) struct RemoteTriggerRunTests {
    /// In the daemon both remote triggers press its one trigger: presses published on
    /// `PREFIX/trigger` (`mqtt.trigger: true`) show in the pulls `POST /trigger` answers with,
    /// which count more than the POSTs once the handler has subscribed.
    @Test func mqttAndHTTPPressTheDaemonsOneTrigger() throws {
        let broker = try MosquittoBroker()
        let config = try TemporaryFile(contents: Array("mqtt:\n  trigger: true\n".utf8), suffix: ".yaml")
        let live = try LiveViewDaemon(["--config", config.path, "--mqtt-url", broker.url, "--mqtt-topic-prefix", "syncscan/test/remote"])
        var (posts, pulls, statuses) = (0, 0, Set<Int>())
        let pressedByBoth = try waitUntil(every: .milliseconds(200)) {
            let published = try ExternalTool.run("mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1",
                                                                   "-t", "syncscan/test/remote/trigger", "-m", "press"])
            try #require(published.status == 0, "\(published.describe())")
            let reply = try live.get("/trigger", method: "POST")
            posts += 1
            statuses.insert(reply.status)
            let body = try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any]
            pulls = body?["pulls"] as? Int ?? 0
            return pulls > posts
        }
        #expect(pressedByBoth, "pulls \(pulls) after \(posts) POSTs: \(live.daemon.stderr)")
        #expect(statuses == [202])
        #expect(live.finish() == 0, "\(live.daemon.stderr)")
    }
}
