import ServiceLifecycle
import SystemCalls

/// The key trigger as a service of the daemon's group: its thread runs from the group's start
/// to its graceful shutdown.
public struct KeyTriggerService: Service {
    public let trigger: KeyTrigger

    public init(trigger: KeyTrigger) { self.trigger = trigger }

    public func run() async throws {
        trigger.start()
        try? await gracefulShutdown()
        let trigger = self.trigger
        await runOnThread(name: "syncscan-keyx") { trigger.stop() }
    }
}
