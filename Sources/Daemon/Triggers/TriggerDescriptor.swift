import Capture
import Logging
import ServiceLifecycle
import UnixSignals

/// A trigger of a triggered reader (`trigger.mode: triggered`): what presses and releases the
/// service's `TriggerSwitch`, registered by one line in `Components.standard` (issue 41's trigger
/// descriptors). It names itself and the services it runs beside the scan, given the switch and
/// the configuration. A trigger's keys belong under `trigger.<name>.*`; there is no settings
/// section here yet (`.signal` has no keys): the first trigger with keys adds one, read and
/// checked as a results handler's are.
public struct TriggerDescriptor: Sendable {
    /// Its name: `signal`; its settings, if any, are `trigger.<name>.*`.
    public let name: String
    let services: @Sendable (SyncscanConfiguration, TriggerSwitch, ComponentServiceContext) -> [ComponentService]

    /// - Parameter services: the services it runs beside the scan, pressing `TriggerSwitch`
    ///   (started with the scan, shut down with it, each with what a reload hands it).
    public init(name: String,
                services: @escaping @Sendable (SyncscanConfiguration, TriggerSwitch, ComponentServiceContext) -> [ComponentService]) {
        (self.name, self.services) = (name, services)
    }
}

extension TriggerDescriptor {
    /// SIGUSR1: a press per signal (origin `sigusr1`); the window closes by its duration or its
    /// codes (no release comes). Trapped in every mode, so a stray SIGUSR1 never ends the
    /// daemon; outside `trigger.mode: triggered` its press is dropped at the next frame.
    public static let signal = TriggerDescriptor(name: "signal") { _, triggers, context in
        [ComponentService(TriggerOnSignal(triggers: triggers, logger: context.logger), reload: { _ in })]
    }
}

/// Presses the trigger once per SIGUSR1 until the group shuts down (swift-service-lifecycle's
/// `UnixSignalsSequence`: the signal's default action, ending the process, is replaced).
struct TriggerOnSignal: Service {
    let triggers: TriggerSwitch
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sigusr1).cancelOnGracefulShutdown() {
            logger.debug("SIGUSR1: trigger pressed")
            triggers.press(origin: "sigusr1")
        }
    }
}
