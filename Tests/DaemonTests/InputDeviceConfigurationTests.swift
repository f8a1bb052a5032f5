import ConfigurationKeys
import Daemon
import Evdev
import Results
import TestSupport
import Testing

/// `keyboard.*` (the keyboard wedge) and `trigger.key.*` (the key trigger).
@Suite struct InputDeviceConfigurationTests {
    @Test("the keyboard wedge and the key trigger are off by default")
    func offByDefault() async throws {
        let c = try await SyncscanConfiguration.load(file: nil, environment: [:])
        #expect(c.keyboard == nil && c.keyTrigger == nil)
    }

    @Test("keyboard.* reach the wedge's settings; a wedge alone is a sink")
    func keyboardKeys() async throws {
        let file = try TemporaryConfigFile("""
        output:
          stdout: false
        keyboard:
          enabled: true
          device_name: dock scanner
          suffix: Tab
          what: codes
          layout: us
        """)
        let c = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        var expected = KeyboardSettings()
        expected.deviceName = "dock scanner"
        expected.suffix = .tab
        #expect(c.keyboard == expected)
        let defaults = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_KEYBOARD_ENABLED": "true"])
        #expect(defaults.keyboard == KeyboardSettings())
        #expect(defaults.keyboard?.deviceName == "syncscan keyboard" && defaults.keyboard?.suffix == .enter)
    }

    @Test("bad keyboard.* values are check-config problems naming the key")
    func badKeyboardKeys() async throws {
        let file = try TemporaryConfigFile("""
        keyboard:
          enabled: true
          device_name: ""
          suffix: space
          what: everything
          layout: de
        """)
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines.contains { $0.contains("keyboard.device_name") && $0.contains("1 to 79 bytes") }, "\(lines)")
        #expect(lines.contains { $0.contains("keyboard.suffix") && $0.contains("enter, tab, none") }, "\(lines)")
        #expect(lines.contains { $0.contains("keyboard.what") && $0.contains("(known: codes, results)") }, "\(lines)")
        #expect(lines.contains { $0.contains("keyboard.layout") && $0.contains("(known: us)") }, "\(lines)")
    }

    @Test("trigger.key.* reach the key trigger's settings; KEY_F12 is the default key")
    func keyTriggerKeys() async throws {
        let file = try TemporaryConfigFile("trigger:\n  key:\n    device: /dev/input/by-id/usb-foot-switch-event-kbd\n    code: btn_0\n")
        let c = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        #expect(c.keyTrigger == KeyTriggerSettings(device: "/dev/input/by-id/usb-foot-switch-event-kbd", code: try #require(KeyCode(named: "BTN_0"))))
        let defaults = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_TRIGGER_KEY_DEVICE": "/dev/input/event3"])
        #expect(defaults.keyTrigger?.code.description == "KEY_F12")
    }

    @Test("an unknown key name and a relative device path are check-config problems")
    func badKeyTriggerKeys() async throws {
        let file = try TemporaryConfigFile("trigger:\n  key:\n    device: event3\n    code: KEY_FOOT\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines.contains { $0.contains("trigger.key.code") && $0.contains("unknown key \"KEY_FOOT\"") }, "\(lines)")
        #expect(lines.contains { $0.contains("trigger.key.device") && $0.contains("absolute path") }, "\(lines)")
    }
}
