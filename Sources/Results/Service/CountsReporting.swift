/// A part's counts as the stats and summary lines, STATUS=, `/status` and the metrics show them,
/// without the service knowing the part (a results handler, a trigger).
///
/// Adopted only by a part that counts something; the daemon collects adopters by this protocol.
public protocol CountsReporting: AnyObject, Sendable {
    /// The counts now, in the order the stats and summary lines show them.
    var counters: [ResultsCounter] { get }
    /// Extra `name=value` fields for the end-of-run summary line only (a median time); the
    /// default has none.
    var summaryFields: [String] { get }
}

extension CountsReporting {
    public var summaryFields: [String] { [] }
}

/// One count of a results handler, as the stats line, the summary, `<prefix>/stats` and the
/// Prometheus metrics show it.
public struct ResultsCounter: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Only grows over the run (Prometheus `_total`).
        case counter
        /// A level now (a queue's length; 1 or 0 for a state).
        case gauge
    }

    /// The field name in the stats and summary lines and in `<prefix>/stats`: `snapshots_written`.
    public var name: String
    /// The Prometheus metric name after `syncscan_` (a counter gets `_total`): `snapshots_written`.
    public var metric: String
    public var help: String
    public var kind: Kind
    public var value: Int
    /// Shown in the stats and summary lines and `<prefix>/stats`; false: metrics only.
    public var inLines: Bool
    /// Also shown in STATUS= (a count an operator watches: `reads_mismatch`).
    public var inStatus: Bool

    public init(name: String, metric: String? = nil, help: String, kind: Kind = .counter, value: Int, inLines: Bool = true,
                inStatus: Bool = false) {
        self.name = name
        self.metric = metric ?? name
        self.help = help
        self.kind = kind
        self.value = value
        self.inLines = inLines
        self.inStatus = inStatus
    }
}
