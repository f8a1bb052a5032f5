import Capture
@testable import Daemon
import Evdev
import TestSupport
import Testing

/// The key trigger as a trigger descriptor (`Components.standard.triggers`): its settings are
/// `trigger.key.*`, read at start; what it makes counts beside the handlers and describes itself
/// in `/status` as a trigger.
@Suite struct KeyTriggerDescriptorTests {
    @Test func theKeyTriggerIsATriggerWithItsSettingsCountersAndStatus() async throws {
        #expect(Components.standard.triggers.map(\.name) == ["signal", "key"])
        #expect(!Components.standard.handlers.map(\.name).contains("key_trigger"))
        #expect(TriggerDescriptor.key.settings?.keys == "trigger.key.*")

        let file = try TemporaryConfigFile("trigger:\n  key:\n    device: /dev/input/by-id/none-event-kbd\n    code: BTN_0\n")
        let configuration = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        let handlers = ResultsHandlerRegistry.make(configuration, context: .init(source: "y4m:-", logger: LogRecorder().logger))
        let counters = handlers.counted.flatMap(\.counters).map(\.name)
        #expect(counters == ["trigger_key_presses", "trigger_key_reopens", "trigger_key_open"], "\(counters)")
        #expect(handlers.triggers.map(\.descriptor.name) == ["signal", "key"])
        let status = configuration.components.descriptions(configuration, handlers: handlers).filter { $0.kind == "trigger" }
        #expect(status == [ComponentDescription(kind: "trigger", name: "key",
                                                fields: [("device", "/dev/input/by-id/none-event-kbd"), ("code", "BTN_0")])], "\(status)")

        // Off without a device: nothing counted; a change to trigger.key.* says a restart applies it.
        let none = try await SyncscanConfiguration.load(file: nil, environment: [:])
        let off = ResultsHandlerRegistry.make(none, context: .init(source: "y4m:-", logger: LogRecorder().logger))
        #expect(off.counted.flatMap(\.counters).isEmpty && off.triggers.map(\.descriptor.name) == ["signal"])
        #expect(configuration.startOnlyChanges(from: none).map(\.keys) == ["trigger.key.*"])
    }
}
