import Capture
import ConfigurationKeys
import Daemon
import Media
import Testing

@Suite struct TriggerConfigurationTests {
    @Test("trigger.* reach the metadata output's settings; continuous is the default")
    func triggerKeysReachTheScanner() async throws {
        let defaults = try await SyncscanConfiguration.load(file: nil, environment: [:])
        #expect(defaults.metadataSettings.trigger == TriggerSettings(mode: .continuous))
        let file = try TemporaryConfigFile("trigger:\n  mode: Presentation\n  change_level: 12.5\n  change_blocks: 9\n")
        let c = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        #expect(c.metadataSettings.trigger == TriggerSettings(mode: .presentation, changeLevel: 12.5, changeBlocks: 9))
        let fromEnvironment = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_TRIGGER_MODE": "presentation"])
        #expect(fromEnvironment.trigger.mode == .presentation)
    }

    @Test("an unknown trigger mode and out-of-range thresholds are refused, naming the key")
    func badTriggerKeysAreRefused() async throws {
        let file = try TemporaryConfigFile("trigger:\n  mode: motion\n  change_level: 0\n  change_blocks: 0\n")
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines.contains { $0.contains("trigger.mode") && $0.contains("unknown trigger mode \"motion\"") && $0.contains("continuous, presentation") }, "\(lines)")
        #expect(lines.contains { $0.contains("trigger.change_level") && $0.contains("out of range") }, "\(lines)")
        #expect(lines.contains { $0.contains("trigger.change_blocks") && $0.contains("out of range") }, "\(lines)")
    }

    @Test("trigger.window.*, trigger.expected, trigger.motion, trigger.no_read_directory and no_read_keep reach the triggered reads")
    func triggeredReadKeysAreRead() async throws {
        let defaults = try await SyncscanConfiguration.load(file: nil, environment: [:]).trigger
        #expect(defaults.window == TriggerSettings.Window(duration: MediaTime(seconds: 1), codes: 0, untilRelease: false))
        #expect(defaults.expected == 1 && defaults.noReadDirectory == nil && defaults.noReadKeep == 100 && !defaults.motion)
        let file = try TemporaryConfigFile("""
            trigger:
              mode: triggered
              window:
                duration_ms: 250
                codes: 2
                until_release: true
              motion: true
              expected: 2
              no_read_directory: /var/lib/syncscan/no_read
              no_read_keep: 7

            """)
        let t = try await SyncscanConfiguration.load(file: file.path, environment: [:]).metadataSettings.trigger
        #expect(t == TriggerSettings(mode: .triggered, window: .init(duration: MediaTime(seconds: 0.25), codes: 2, untilRelease: true),
                                     motion: true, expected: 2, noReadDirectory: "/var/lib/syncscan/no_read", noReadKeep: 7))
        let fromEnvironment = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_TRIGGER_WINDOW_DURATION_MS": "40"])
        #expect(fromEnvironment.trigger.window.duration == MediaTime(seconds: 0.04))
    }

    @Test("out-of-range window keys are refused, naming the key")
    func badTriggeredReadKeysAreRefused() async throws {
        let file = try TemporaryConfigFile("trigger:\n  mode: triggered\n  window:\n    duration_ms: 0\n    codes: -1\n    until_release: often\n  expected: 0\n  no_read_keep: 0\n  motion: sometimes\n")
        let lines = await expectConfigurationError(file: file.path)
        for key in ["trigger.window.duration_ms", "trigger.window.codes", "trigger.window.until_release", "trigger.expected", "trigger.no_read_keep", "trigger.motion"] {
            #expect(lines.contains { $0.contains(key) }, "\(key): \(lines)")
        }
    }
}
