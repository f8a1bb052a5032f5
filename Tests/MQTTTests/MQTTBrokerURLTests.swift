import MQTT
import TestSupport
import Testing

@Suite(.offThePool) struct MQTTBrokerURLTests {
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
}
