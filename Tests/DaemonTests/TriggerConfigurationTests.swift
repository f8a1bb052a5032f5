import Capture
import ConfigurationKeys
import Daemon
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
}
