import Capture
import ConfigurationKeys
import Logging
import Results
import ServiceLifecycle
import SystemCalls

/// A trigger of a triggered reader (`trigger.mode: triggered`): what presses and releases the
/// service's `TriggerSwitch`, registered by one line in `Components.standard`. It names itself,
/// owns its settings under `trigger.<name>.*` (read from the scoped reader, checked for
/// `check-config`, read at start), makes the trigger for a run given
/// the switch, and says what that trigger counts (shown beside the handlers' counters: the
/// stats and summary lines, `/status`, the metrics), which services it runs beside the scan and
/// how it describes itself in `/status` (`kind: trigger`).
public struct TriggerDescriptor: Sendable {
    /// Its name: `signal`, `key`; its settings, if any, are `trigger.<name>.*`.
    public let name: String
    /// Its settings' section; `nil`: it has no keys (`signal`).
    public let settings: SettingsSection?
    let make: @Sendable (SyncscanConfiguration, TriggerSwitch, Logger) -> MadeTrigger?
    let describe: @Sendable (SyncscanConfiguration) -> [(name: String, value: String)]

    /// A trigger without settings, always on.
    /// - Parameter services: the services it runs beside the scan, pressing `TriggerSwitch`
    ///   (started with the scan, shut down with it, each with what a reload hands it).
    public init(name: String,
                services: @escaping @Sendable (SyncscanConfiguration, TriggerSwitch, ComponentServiceContext) -> [ComponentService]) {
        (self.name, self.settings, self.describe) = (name, nil, { _ in [] })
        make = { configuration, triggers, _ in
            MadeTrigger(name: name, counters: nil, services: { context in services(configuration, triggers, context) }, described: false)
        }
    }

    /// A trigger with settings under `trigger.<name>.*`, read at start; on when `read` gives some.
    /// - Parameters:
    ///   - read: reads `trigger.<name>.*` from the reader scoped to it; `nil` leaves it off.
    ///   - why: why its settings are read only at start (a reload that changes them says so).
    ///   - make: the trigger for the settings, pressing the switch (its threads start with its services).
    ///   - counters: its counts now, in the order the stats and summary lines show them.
    ///   - services: the services it runs beside the scan.
    ///   - describe: its fields in `/status` (never a secret).
    public init<Settings: Sendable & Hashable, Trigger: Sendable>(
        name: String, settings key: SettingsKey<Settings?>, read: @escaping @Sendable (ConfigurationKeyReader) -> Settings?,
        why: String, make: @escaping @Sendable (Settings, TriggerSwitch, Logger) -> Trigger,
        counters: @escaping @Sendable (Trigger) -> [ResultsCounter],
        services: @escaping @Sendable (Trigger) -> [ComponentService],
        describe: @escaping @Sendable (Settings) -> [(name: String, value: String)] = { _ in [] }
    ) {
        self.name = name
        settings = SettingsSection(key, prefix: key.name, reload: .restartsService(why: why), read: read)
        self.make = { configuration, triggers, logger in
            configuration[key].map { settings in
                let trigger = make(settings, triggers, logger)
                return MadeTrigger(name: name, counters: { counters(trigger) }, services: { _ in services(trigger) }, described: true)
            }
        }
        self.describe = { configuration in configuration[key].map(describe) ?? [] }
    }
}

/// A trigger a descriptor made for a run: what it counts and the services it runs.
struct MadeTrigger: Sendable {
    let name: String
    /// Its counts now; `nil`: it counts nothing.
    let counters: (@Sendable () -> [ResultsCounter])?
    let services: @Sendable (ComponentServiceContext) -> [ComponentService]
    /// Whether `/status` lists it.
    let described: Bool
}

/// A made trigger's counters after the results handlers' (the stats and summary lines, STATUS=,
/// `/status`, the metrics read them there).
final class TriggerCounters: CountsReporting {
    let trigger: MadeTrigger
    private let read: @Sendable () -> [ResultsCounter]

    init(_ trigger: MadeTrigger, counters: @escaping @Sendable () -> [ResultsCounter]) { (self.trigger, self.read) = (trigger, counters) }

    var counters: [ResultsCounter] { read() }
}

extension TriggerDescriptor {
    /// SIGUSR1: a press per signal (origin `sigusr1`); the window closes by its duration or its
    /// codes (no release comes). Trapped in every mode, so a stray SIGUSR1 never ends the
    /// daemon; outside `trigger.mode: triggered` its press is dropped at the next frame.
    public static let signal = TriggerDescriptor(name: "signal") { _, triggers, context in
        [ComponentService(TriggerOnSignal(triggers: triggers, logger: context.logger), reload: { _ in })]
    }
}

/// Presses the trigger once per SIGUSR1 until the group shuts down (`ProcessSignals`: those that
/// came while the daemon started are pressed first; after the shutdown began none is).
struct TriggerOnSignal: Service {
    let triggers: TriggerSwitch
    let logger: Logger

    func run() async throws {
        for await arrivals in ProcessSignals.shared.arrivals(of: [.user1]).cancelOnGracefulShutdown() {
            logger.debug("SIGUSR1: trigger pressed", metadata: arrivals.count > 1 ? ["presses": "\(arrivals.count)"] : [:])
            for _ in 0..<arrivals.count { triggers.press(origin: "sigusr1") }
        }
    }
}
