import Configuration
import ConfigurationKeys
import Daemon
import Foundation
import MQTT
import Results
import TestSupport
import Testing

@Suite(.offThePool) struct MQTTConfigurationTests {
    @Test func noURLMeansNoMQTTAndStdoutOn() async throws {
        let c = try await SyncscanConfiguration.load(file: nil, environment: [:])
        #expect(c.mqtt == nil)
        #expect(c.output.stdout)
    }

    @Test func everyMQTTKeyReachesTheSettings() async throws {
        let file = try TemporaryConfigFile("""
        output:
          stdout: false
        mqtt:
          url: mqtts://broker.example:8884
          topic_prefix: site/dock1/cam
          client_id: dock1-cam
          qos: 2
          keepalive_seconds: 15
          username: scanner
          password_file: /etc/syncscan/mqtt-password
          ca_file: /etc/ssl/certs/ca.pem
          queue_messages: 50
          spool_directory: /var/spool/syncscan
          spool_max_bytes: 1048576
          trigger: true
          homeassistant:
            discovery: true
            prefix: ha-test
        """)
        let c = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        let mqtt = try #require(c.mqtt)
        #expect(mqtt.url == (try MQTTBrokerURL(parsing: "mqtts://broker.example:8884")))
        #expect(mqtt.topicPrefix == "site/dock1/cam")
        #expect(mqtt.clientID == "dock1-cam")
        #expect(mqtt.qos == 2)
        #expect(mqtt.keepaliveSeconds == 15)
        #expect(mqtt.username == "scanner")
        #expect(mqtt.passwordFile == "/etc/syncscan/mqtt-password")
        #expect(mqtt.caFile == "/etc/ssl/certs/ca.pem")
        #expect(mqtt.queueMessages == 50)
        #expect(mqtt.spoolDirectory == "/var/spool/syncscan")
        #expect(mqtt.spoolMaxBytes == 1 << 20)
        #expect(mqtt.homeAssistantDiscovery == true)
        #expect(mqtt.homeAssistantPrefix == "ha-test")
        #expect(mqtt.trigger)
        #expect(!c.output.stdout)
    }

    @Test func theSpoolIsInSystemdsStateDirectoryUnlessSetOrTurnedOff() async throws {
        let url = ["mqtt.url": ConfigValue(.string("mqtt://127.0.0.1:1883"), isSecret: false)]
        let outside = try await SyncscanConfiguration.load(file: nil, environment: [:], overrides: url)
        #expect(outside.mqtt?.spoolDirectory == nil, "no unit, no key: memory only")
        let unit = ["STATE_DIRECTORY": "/var/lib/syncscan/video0:/var/lib/other"]
        #expect(try await SyncscanConfiguration.load(file: nil, environment: unit, overrides: url).mqtt?.spoolDirectory == "/var/lib/syncscan/video0")
        let set = try await SyncscanConfiguration.load(file: nil, environment: unit.merging(["SYNCSCAN_MQTT_SPOOL_DIRECTORY": "/srv/spool"]) { $1 },
                                                       overrides: url)
        #expect(set.mqtt?.spoolDirectory == "/srv/spool")
        let off = try await SyncscanConfiguration.load(file: nil, environment: unit.merging(["SYNCSCAN_MQTT_SPOOL_DIRECTORY": ""]) { $1 },
                                                       overrides: url)
        #expect(off.mqtt?.spoolDirectory == nil, "\"\" turns the spool off")
        #expect(set.mqtt?.spoolMaxBytes == 64 << 20)
    }

    @Test func homeAssistantDiscoveryIsOffUnderHomeassistantByDefaultAndTheEnvironmentTurnsItOn() async throws {
        let url = ["mqtt.url": ConfigValue(.string("mqtt://127.0.0.1:1883"), isSecret: false)]
        let plain = try #require(try await SyncscanConfiguration.load(file: nil, environment: [:], overrides: url).mqtt)
        #expect(plain.homeAssistantDiscovery == nil, "not set: nothing under the discovery prefix")
        #expect(plain.homeAssistantPrefix == "homeassistant")
        #expect(!plain.trigger, "no trigger topic unless asked: anyone who may publish there starts reads")
        let on = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_MQTT_HOMEASSISTANT_DISCOVERY": "true"], overrides: url)
        #expect(on.mqtt?.homeAssistantDiscovery == true)
        let off = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_MQTT_HOMEASSISTANT_DISCOVERY": "false"], overrides: url)
        #expect(off.mqtt?.homeAssistantDiscovery == false)
    }

    @Test func flagsAndEnvironmentSetTheURLAndPrefix() async throws {
        let c = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_MQTT_QOS": "0"], overrides: [
            "mqtt.url": ConfigValue(.string("mqtt://127.0.0.1:1999"), isSecret: false),
            "mqtt.topic_prefix": ConfigValue(.string("a/b"), isSecret: false),
        ])
        #expect(c.mqtt?.url.port == 1999)
        #expect(c.mqtt?.topicPrefix == "a/b")
        #expect(c.mqtt?.qos == 0)
    }

    @Test func badValuesNameKeyAndLine() async throws {
        let file = try TemporaryConfigFile("""
        mqtt:
          url: mqtts://broker
          qos: 3
          topic_prefix: syncscan/#
          keepalive_seconds: 1
          password_file: /run/pw
          queue_messages: 0
          spool_max_bytes: 100
          homeassistant:
            discovery: maybe
            prefix: ha/
          trigger: sometimes
        """)
        let lines = await expectConfigurationError(file: file.path)
        // Sorted by line.
        #expect(lines == [
            "\(file.path):2: mqtt.url: mqtts:// needs mqtt.ca_file (the CA certificates that verify the broker)",
            "\(file.path):3: mqtt.qos: 3 is out of range: must be from 0 to 2 (MQTT QoS: 0 at most once, 1 at least once, 2 exactly once)",
            "\(file.path):4: mqtt.topic_prefix: \"syncscan/#\" is not a topic prefix: no leading or trailing /, no + or # wildcards (e.g. syncscan/dock1/video0)",
            "\(file.path):5: mqtt.keepalive_seconds: 1 is out of range: must be from 5 to 65535",
            "\(file.path):6: mqtt.password_file: needs mqtt.username too",
            "\(file.path):7: mqtt.queue_messages: 0 is out of range: must be from 1 to 10000000",
            "\(file.path):8: mqtt.spool_max_bytes: 100 is out of range: must be from 4096 to 1099511627776",
            "\(file.path):10: mqtt.homeassistant.discovery: expected true or false, found \"maybe\"",
            "\(file.path):11: mqtt.homeassistant.prefix: \"ha/\" is not a discovery prefix: no leading or trailing /, no + or # wildcards (Home Assistant's default is homeassistant)",
            "\(file.path):12: mqtt.trigger: expected true or false, found \"sometimes\"",
        ])
    }

    @Test func aMalformedURLSaysWhichFormsWork() async throws {
        let file = try TemporaryConfigFile("mqtt:\n  url: tcp://broker:1883\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == ["\(file.path):2: mqtt.url: \"tcp://broker:1883\" is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"])
    }

    @Test func stdoutOffWithoutABrokerLeavesNoSink() async throws {
        let file = try TemporaryConfigFile("output:\n  stdout: false\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == ["\(file.path):2: output.stdout: false leaves no sink for the codes; set mqtt.url or webhook.url or keyboard.enabled or tcp.listen or modbus.listen too, or remove output.stdout"])
    }

    @Test(arguments: [("/dev/video0", "video0"), ("v4l2:/dev/video2", "video2"), ("y4m:/data/dock.y4m", "dock"), ("y4m:-", "stdin"),
                      ("-", "stdin"), ("y4m:/tmp/a+b#c.y4m", "a_b_c"), ("rtsp://cam.local:554/stream1", "stream1"),
                      ("rtsp://viewer:***@127.0.0.1:8554", "127.0.0.1"), ("rtsp://viewer:secret@127.0.0.1:8554/", "127.0.0.1"),
                      ("http://camera/video.mjpg?fps=5", "video"), ("rtsp://[::1]:8554", "::1"), ("file:/data/dock.mp4", "dock"),
                      // No part of a password with raw delimiters, nor a query, in a topic.
                      ("rtsp://u:pa/ss@cam", "cam"), ("rtsp://u:pa/ss@cam/live?token=t/x", "live")])
    func sourceNamesForTopics(uri: String, name: String) {
        #expect(SourceName.of(uri) == name)
        // The name the input family gives the source it parses (what the MQTT handler is given).
        #expect((try? InputRegistry.parse(uri)).map { SourceName.topicSafe($0.name) } == name, "\(uri)")
    }
}
