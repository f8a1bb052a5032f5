import Capture
import Logging
import Results

extension TriggerDescriptor {
    /// The key trigger (`trigger.key.*`): a key of an input device presses and releases the
    /// daemon's trigger switch (`KeyTrigger`, its thread run by `KeyTriggerService`); it counts
    /// `trigger_key_presses`, `trigger_key_reopens` and `trigger_key_open`. Read at start.
    public static let key = TriggerDescriptor(
        name: "key", settings: .keyTrigger, read: KeyTriggerSettings.init(reading:),
        why: "the key trigger's device is opened at start",
        make: { settings, triggers, logger in KeyTrigger(settings: settings, triggers: triggers, logger: logger) },
        counters: { trigger in
            let counts = trigger.counts
            return [
                ResultsCounter(name: "trigger_key_presses", help: "Presses of the trigger key.", value: counts.presses),
                ResultsCounter(name: "trigger_key_reopens", help: "Times the trigger key's device was opened again after it went away.",
                               value: counts.reopens),
                ResultsCounter(name: "trigger_key_open", help: "1 while the trigger key's device is open.", kind: .gauge,
                               value: counts.open ? 1 : 0, inLines: false),
            ]
        },
        services: { trigger in [ComponentService(KeyTriggerService(trigger: trigger)) { _ in }] },
        describe: { [("device", $0.device), ("code", "\($0.code)")] })
}

extension SettingsKey where Value == KeyTriggerSettings? {
    public static var keyTrigger: Self { Self("trigger.key", default: nil) }
}

extension SyncscanConfiguration {
    /// The key trigger; `nil` (no `trigger.key.device`): none.
    public var keyTrigger: KeyTriggerSettings? { get { self[.keyTrigger] } set { self[.keyTrigger] = newValue } }
}
