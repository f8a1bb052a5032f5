/// The most recent durations (seconds) in a ring of fixed capacity, for the medians and p99s the
/// stats and summary lines print (scan times, snapshot encode times).
public struct RecentDurations: Sendable {
    private var samples: [Double] = []
    private var next = 0
    private let capacity: Int

    public init(capacity: Int) { self.capacity = capacity }

    public mutating func add(_ seconds: Double) {
        if samples.count < capacity { samples.append(seconds) } else { samples[next] = seconds }
        next = (next + 1) % capacity
    }

    /// The 50th and 99th percentiles (nearest rank); `nil` before the first sample.
    public func percentiles() -> (p50: Double, p99: Double)? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))] }
        return (at(0.5), at(0.99))
    }

    /// The median; `nil` before the first sample.
    public var median: Double? { percentiles()?.p50 }
}
