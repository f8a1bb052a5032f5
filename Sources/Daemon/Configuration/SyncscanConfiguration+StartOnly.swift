extension SyncscanConfiguration {
    /// The key groups read only at start that differ in `old`, with why: a reload says a restart
    /// applies them. The components' follow from their descriptors (`SettingsReload.restartsService`:
    /// `snapshots.*`, `mqtt.*`); `shutdown_timeout_seconds` is the service's own.
    public func startOnlyChanges(from old: SyncscanConfiguration) -> [(keys: String, why: String)] {
        components.startOnlyChanges(from: old.componentSettings, to: componentSettings) + [
            shutdownTimeoutSeconds != old.shutdownTimeoutSeconds
                ? ("shutdown_timeout_seconds", "the shutdown limit is set when the service starts") : nil,
        ].compactMap { $0 }
    }
}
