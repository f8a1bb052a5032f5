import Capture
import Logging

extension ResultsHandlerDescriptor {
    /// The key trigger (`trigger.key.*`): a key of an input device presses the daemon's trigger
    /// switch. Wired as a handler until triggers have a descriptor kind of their own: the handler
    /// types nothing and reports the trigger's counts; its service reads the device. Read at start.
    public static let keyTrigger = ResultsHandlerDescriptor(
        name: "key_trigger", settings: .keyTrigger, read: KeyTriggerSettings.init(reading:),
        reload: .atStart(why: "the key trigger's device is opened at start"),
        make: { settings, context in
            KeyTriggerHandler(trigger: KeyTrigger(settings: settings, triggers: context.triggers, logger: context.logger))
        },
        services: { handler, _, _ in [ComponentService(KeyTriggerService(trigger: handler.trigger)) { _ in }] },
        describe: { [("device", $0.device), ("code", "\($0.code)")] })
}

/// The key trigger's counts among the handlers' (`trigger_key_presses`, …); it handles no code.
public final class KeyTriggerHandler: ResultsHandler {
    public let trigger: KeyTrigger

    public init(trigger: KeyTrigger) { self.trigger = trigger }

    public func handle(_ code: inout DeliveredCode) throws {}
    public func finish() throws {}

    public var counters: [ResultsCounter] {
        let counts = trigger.counts
        return [
            ResultsCounter(name: "trigger_key_presses", help: "Presses of the trigger key.", value: counts.presses),
            ResultsCounter(name: "trigger_key_reopens", help: "Times the trigger key's device was opened again after it went away.",
                           value: counts.reopens),
            ResultsCounter(name: "trigger_key_open", help: "1 while the trigger key's device is open.", kind: .gauge,
                           value: counts.open ? 1 : 0, inLines: false),
        ]
    }
}

extension SettingsKey where Value == KeyTriggerSettings? {
    public static var keyTrigger: Self { Self("trigger.key", default: nil) }
}

extension SyncscanConfiguration {
    /// The key trigger; `nil` (no `trigger.key.device`): none.
    public var keyTrigger: KeyTriggerSettings? { get { self[.keyTrigger] } set { self[.keyTrigger] = newValue } }
}
