import MQTT
import Testing

@Suite struct MQTTBrokerURLTests {
    @Test func hostAndPortParse() throws {
        let url = try MQTTBrokerURL(parsing: "mqtt://broker.local:1884")
        #expect(url.host == "broker.local")
        #expect(url.port == 1884)
        #expect(!url.tls)
    }

    @Test func defaultPortsFollowTheScheme() throws {
        #expect(try MQTTBrokerURL(parsing: "mqtt://h").port == 1883)
        let tls = try MQTTBrokerURL(parsing: "mqtts://h/")
        #expect(tls.port == 8883 && tls.tls)
    }

    @Test func ipv6HostsAreBracketed() throws {
        let url = try MQTTBrokerURL(parsing: "mqtt://[::1]:1999")
        #expect(url.host == "::1" && url.port == 1999)
        #expect(url.description == "mqtt://[::1]:1999")
    }

    @Test(arguments: ["tcp://h:1883", "mqtt://", "mqtt://h:0", "mqtt://h:70000", "mqtt://h:x", "mqtt://u@h", "mqtt://h/topic"])
    func malformedURLsAreRefused(_ text: String) {
        #expect(throws: MQTTURLError.self) { try MQTTBrokerURL(parsing: text) }
    }

    @Test func refusedConnectionIsAnErrorNamingErrno() throws {
        // Port 1 on loopback: nothing listens, the kernel refuses (at connect or in the first loops).
        var failure: MQTTError?
        switch MQTTConnection.connect(MQTTConnection.Options(host: "127.0.0.1", port: 1)) {
        case .failure(let error): failure = error
        case .success(let connection):
            for _ in 0..<20 where failure == nil {
                let (events, error) = connection.loop(timeoutMilliseconds: 50)
                failure = error ?? events.compactMap { if case .disconnected(let e) = $0 { e } else { nil } }.first
            }
        }
        let error = try #require(failure)
        #expect(error.errno == 111, "\(error)")
        #expect(error.description.contains("listens on the host and port"))
    }
}
