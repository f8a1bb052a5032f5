import Foundation
import MQTT
import Testing
@testable import Results

private let discovery = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", topicPrefix: "syncscan/dock1/video0",
                                               hostname: "dock1", sourceName: "video0", softwareVersion: "0.1.0")

/// A config's JSON document.
private func document(_ config: HomeAssistantDiscovery.Config) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(config.payload)) as? [String: Any])
}

@Suite struct HomeAssistantDiscoveryTests {
    @Test func oneTagScannerThreeSensorsAndAnItemsEventUnderTheNodeOfHostAndSource() {
        #expect(discovery.nodeID == "syncscan_dock1_video0")
        #expect(discovery.scanConfigs.map(\.topic) == [
            "homeassistant/tag/syncscan_dock1_video0/scanner/config",
            "homeassistant/sensor/syncscan_dock1_video0/last_code/config",
            "homeassistant/sensor/syncscan_dock1_video0/frames_per_second/config",
            "homeassistant/sensor/syncscan_dock1_video0/dropped/config",
            "homeassistant/event/syncscan_dock1_video0/items/config",
        ])
        #expect(discovery.scanConfigs.map(\.component) == ["tag", "sensor", "sensor", "sensor", "event"])
        #expect(Array(discovery.configs.prefix(5).map(\.topic)) == discovery.scanConfigs.map(\.topic), "the scan's first, as before")
    }

    @Test func everyConfigNamesTheDeviceWithItsVersion() throws {
        for config in discovery.configs {
            let device = try #require(try document(config)["device"] as? [String: Any], "\(config.topic)")
            #expect(device["identifiers"] as? [String] == ["syncscan_dock1_video0"])
            #expect(device["name"] as? String == "syncscan dock1 video0")
            #expect(device["model"] as? String == "syncscan")
            #expect(device["sw_version"] as? String == "0.1.0")
        }
    }

    @Test func theTagScannerReadsTheCodesTopicAndTheCodesText() throws {
        let tag = try document(discovery.configs[0])
        #expect(tag["topic"] as? String == "syncscan/dock1/video0/codes")
        #expect(tag["value_template"] as? String == "{{ value_json.text | default(value_json.data_b64) }}")
        // Home Assistant's tag schema has topic, value_template and device only.
        #expect(Set(tag.keys) == ["topic", "value_template", "device"])
    }

    @Test func sensorsHaveAStableUniqueIDTheirTopicAndTheStatusAsAvailability() throws {
        let sensors = try discovery.scanConfigs.filter { $0.component == "sensor" }.map(document)
        #expect(sensors.map { $0["unique_id"] as? String } == [
            "syncscan_dock1_video0_last_code", "syncscan_dock1_video0_frames_per_second", "syncscan_dock1_video0_dropped"])
        #expect(sensors.map { $0["state_topic"] as? String } == [
            "syncscan/dock1/video0/codes", "syncscan/dock1/video0/stats", "syncscan/dock1/video0/stats"])
        for sensor in sensors {
            #expect(sensor["name"] is String)
            #expect(sensor["availability_topic"] as? String == "syncscan/dock1/video0/status")
            #expect(sensor["payload_available"] as? String == "online" && sensor["payload_not_available"] as? String == "offline")
        }
        let (last, fps, dropped) = (sensors[0], sensors[1], sensors[2])
        #expect(last["value_template"] as? String == "{{ (value_json.text | default(value_json.data_b64))[:255] }}")
        #expect(last["json_attributes_topic"] as? String == "syncscan/dock1/video0/codes")
        let attributes = try #require(last["json_attributes_template"] as? String)
        for field in ["value_json.symbology", "value_json.data_b64", "value_json.frame.seq", "value_json.time", "value_json.snapshot"] {
            #expect(attributes.contains(field), "\(field) in \(attributes)")
        }
        #expect(fps["value_template"] as? String == "{{ value_json.frames_per_second }}")
        #expect(fps["unit_of_measurement"] as? String == "fps" && fps["state_class"] as? String == "measurement")
        #expect(dropped["value_template"] as? String == "{{ value_json.dropped }}")
        #expect(dropped["unit_of_measurement"] as? String == "frames" && dropped["state_class"] as? String == "total_increasing")
    }

    /// Home Assistant's MQTT event platform: `state_topic` and `event_types` (required), the
    /// payload a JSON object whose `event_type` is one of them; a unique id and the status as availability.
    @Test func theItemsEventReadsTheItemEventsTopicWithAddedAndRemoved() throws {
        let config = try #require(discovery.configs.first { $0.component == "event" })
        #expect(config.objectID == "items")
        let event = try document(config)
        #expect(event["state_topic"] as? String == "syncscan/dock1/video0/item_events")
        #expect(event["event_types"] as? [String] == ["added", "removed"] && HomeAssistantDiscovery.itemEventTypes == ["added", "removed"])
        #expect(event["unique_id"] as? String == "syncscan_dock1_video0_items" && event["name"] as? String == "Items")
        #expect(event["availability_topic"] as? String == "syncscan/dock1/video0/status")
        #expect(event["payload_available"] as? String == "online" && event["payload_not_available"] as? String == "offline")
        // No template: the message is the event as it is (`event_type`, the rest attributes).
        #expect(event["value_template"] == nil)
        // Discovery turned off removes it with the others.
        let removal = discovery.messages(enabled: false).first { $0.topic == config.topic }
        #expect(removal?.payload.isEmpty == true && removal?.retain == true)
    }

    @Test func offEmptiesTheSameTopicsRetainedAtQoS1() {
        let on = discovery.messages(enabled: true, trigger: true, readResults: true)
        let off = discovery.messages(enabled: false, trigger: true, readResults: true)
        #expect(on.map(\.topic) == discovery.configs.map(\.topic) && off.map(\.topic) == on.map(\.topic))
        #expect(on.allSatisfy { !$0.payload.isEmpty && $0.retain && $0.qos == 1 })
        #expect(discovery.messages(enabled: false).map(\.payload) == off.map(\.payload), "off removes the button and the read results' too")
        // In another trigger mode, without mqtt.trigger: the scan's entities as before, the others emptied.
        let scanOnly = discovery.messages(enabled: true)
        #expect(scanOnly.filter { !$0.payload.isEmpty }.map(\.topic) == discovery.scanConfigs.map(\.topic))
        #expect(off.allSatisfy { $0.payload.isEmpty && $0.retain && $0.qos == 1 })
        #expect(discovery.messages(enabled: nil).isEmpty, "not set: nothing under the discovery prefix")
    }

    @Test func theNodeIDKeepsToHomeAssistantsCharactersAndIgnoresTheTopicPrefix() {
        var other = discovery
        (other.hostname, other.sourceName, other.topicPrefix, other.discoveryPrefix) = ("dock.1", "a b+é", "site/x", "ha")
        #expect(other.nodeID == "syncscan_dock_1_a_b__")
        #expect(other.configs[1].topic == "ha/sensor/syncscan_dock_1_a_b__/last_code/config")
        var moved = discovery
        moved.topicPrefix = "site/elsewhere"
        #expect(moved.configs.map(\.topic) == discovery.configs.map(\.topic), "a run with another topic prefix removes the same configs")
    }

    /// The read results' counters: a sensor each on `<prefix>/stats`, its field (0 while absent),
    /// counted since the start (total_increasing), under the agreed field names.
    @Test func readCountersAreTotalIncreasingSensorsOfTheStatsFields() throws {
        let fields = ["reads_good", "reads_no_read", "reads_multiple", "reads_mismatch", "triggers", "triggers_dropped", "triggers_ignored"]
        #expect(HomeAssistantDiscovery.readCounters.map(\.field) == fields)
        let sensors = try discovery.readResultConfigs.filter { $0.component == "sensor" }.map(document)
        #expect(sensors.map { $0["unique_id"] as? String } == fields.map { "syncscan_dock1_video0_\($0)" })
        for (sensor, field) in zip(sensors, fields) {
            #expect(sensor["state_topic"] as? String == "syncscan/dock1/video0/stats")
            #expect(sensor["value_template"] as? String == "{{ value_json.\(field) | default(0) }}")
            #expect(sensor["state_class"] as? String == "total_increasing" && sensor["name"] is String)
            #expect(sensor["availability_topic"] as? String == "syncscan/dock1/video0/status")
        }
        #expect(sensors.map { $0["entity_category"] as? String }.filter { $0 == "diagnostic" }.count == 2, "the dropped and ignored triggers")
    }

    /// "No read": on after a `no_read` result on `<prefix>/results`, off after any other; the
    /// picture: Home Assistant's MQTT image on the retained JPEG of `<prefix>/no_read/image`.
    @Test func aNoReadBinarySensorAndTheNoReadPictureAsAnImage() throws {
        let noRead = try document(try #require(discovery.readResultConfigs.first { $0.component == "binary_sensor" }))
        #expect(noRead["unique_id"] as? String == "syncscan_dock1_video0_no_read")
        #expect(noRead["state_topic"] as? String == "syncscan/dock1/video0/results")
        #expect(noRead["value_template"] as? String == "{{ 'ON' if value_json.result == 'no_read' else 'OFF' }}")
        #expect(noRead["payload_on"] as? String == "ON" && noRead["payload_off"] as? String == "OFF")
        #expect(noRead["device_class"] as? String == "problem")
        #expect(noRead["json_attributes_topic"] as? String == "syncscan/dock1/video0/results")
        #expect((noRead["json_attributes_template"] as? String)?.contains("value_json.snapshot") == true)
        let imageConfig = try #require(discovery.readResultConfigs.first { $0.component == "image" })
        #expect(imageConfig.topic == "homeassistant/image/syncscan_dock1_video0/no_read_image/config")
        let image = try document(imageConfig)
        #expect(image["image_topic"] as? String == "syncscan/dock1/video0/no_read/image")
        #expect(image["content_type"] as? String == "image/jpeg" && image["url_topic"] == nil)
        #expect(image["availability_topic"] as? String == "syncscan/dock1/video0/status")
    }

    /// The button publishes `press` to `<prefix>/trigger` (not retained: a retained press would
    /// press again at every reconnect); published with `mqtt.trigger`, emptied without.
    @Test func theTriggerButtonPressesThroughTheTriggerTopicOnlyWithTheTriggerOn() throws {
        let config = discovery.triggerButton
        #expect(config.topic == "homeassistant/button/syncscan_dock1_video0/trigger/config")
        let button = try document(config)
        #expect(button["command_topic"] as? String == "syncscan/dock1/video0/trigger")
        #expect(button["payload_press"] as? String == "press" && button["retain"] as? Bool == false && button["qos"] as? Int == 1)
        #expect(button["unique_id"] as? String == "syncscan_dock1_video0_trigger")
        let press = MQTTConnection.Received(topic: "syncscan/dock1/video0/trigger", payload: Array(HomeAssistantDiscovery.buttonPayload.utf8))
        #expect(MQTTTriggerInput.command(press) == .press)
        let with = discovery.messages(enabled: true, trigger: true), without = discovery.messages(enabled: true, readResults: true)
        #expect(with.first { $0.topic == config.topic }?.payload == config.payload)
        #expect(without.first { $0.topic == config.topic }?.payload == [], "emptied: a button from a run with the trigger on is removed")
        #expect(without.filter { $0.topic != config.topic }.allSatisfy { !$0.payload.isEmpty })
    }
}
