import ConfigurationKeys

/// Metrics beyond the stats line (`metrics.*`).
public struct MetricsSettings: Sendable, Hashable, ConfigurationSection {
    /// The node_exporter textfile (`*.prom`) written every stats interval and at exit; `nil`: none.
    public var textfile: String?

    public init(textfile: String? = nil) { self.textfile = textfile }

    /// Reads `metrics.*` (given `keys.scoped(to: "metrics")`).
    public init(reading keys: ConfigurationKeyReader) {
        if let v = keys.string("textfile", "a file path ending in .prom") {
            if v.hasSuffix(".prom") && !v.hasSuffix("/.prom") { textfile = v } else {
                keys.problem("textfile", "\"\(v)\" does not end in .prom, and node_exporter's textfile collector reads only *.prom files")
            }
        }
    }
}
