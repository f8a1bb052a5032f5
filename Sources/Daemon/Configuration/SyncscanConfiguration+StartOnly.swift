extension SyncscanConfiguration {
    /// The handlers' key groups read only at start that differ in `old`, with why: a reload says a
    /// restart applies them. (`webhook.*` apply in place: `ResultsHandlerRegistry.reload`.)
    public func startOnlyChanges(from old: SyncscanConfiguration) -> [(keys: String, why: String)] {
        [
            snapshots != old.snapshots ? ("snapshots.*", "snapshot settings are read at start") : nil,
            mqtt != old.mqtt ? ("mqtt.*", "MQTT settings are read at start") : nil,
            shutdownTimeoutSeconds != old.shutdownTimeoutSeconds
                ? ("shutdown_timeout_seconds", "the shutdown limit is set when the service starts") : nil,
        ].compactMap { $0 }
    }
}
