extension SyncscanConfiguration {
    /// The handlers' key groups read only at start that differ in `old`: `("webhook.*", "webhook")`
    /// for each, so a reload says a restart applies them.
    public func startOnlyChanges(from old: SyncscanConfiguration) -> [(keys: String, what: String)] {
        [
            snapshots != old.snapshots ? ("snapshots.*", "snapshot") : nil,
            mqtt != old.mqtt ? ("mqtt.*", "MQTT") : nil,
            webhook != old.webhook ? ("webhook.*", "webhook") : nil,
        ].compactMap { $0 }
    }
}
