import Capture
import Foundation
import Media
import Prometheus
import SystemCalls

/// The service's counts since it started, taken at one moment: what the summary line and the metrics file both show.
public struct ServiceCounters: Sendable, Hashable {
    /// Frames by outcome and codes found by symbology, over every session.
    public var statistics = CaptureStatistics()
    /// Codes written out after duplicate suppression.
    public var codesEmitted = 0
    /// Result lines dropped because stdout's queue was full.
    public var outputLinesDropped = 0
    /// Camera reopens after a fault or unplug (a V4L2 source's opens past its first, over every session).
    public var deviceReopens = 0
    /// Whether a source is streaming now (not between sessions, not waiting for a lost camera).
    public var streaming = false
    /// Snapshot files written, skipped (queue or pixel pool full) and failed; zero without `snapshots.directory`.
    public var snapshotsWritten = 0, snapshotsSkipped = 0, snapshotsFailed = 0
    /// MQTT: codes the broker acknowledged and codes dropped, messages waiting in memory, codes
    /// waiting in the spool, whether the broker is connected; zero without `mqtt.url`.
    public var mqttPublished = 0, mqttDropped = 0, mqttQueued = 0, mqttSpooled = 0, mqttConnected = false

    public init() {}
}

/// The service's Prometheus metrics for one `source` label, fed from `ServiceCounters` snapshots
/// and from every scan duration; rendered in the text exposition format.
///
/// Counters increase by the difference from the previous snapshot, so after a snapshot they equal
/// its counts less `baseline` (the counts when this source's metrics began: zero unless a reload
/// changed the source).
public final class ServiceMetrics: Sendable {
    /// The `source` label: the source URI (`v4l2:/dev/video0`, `y4m:/path/clip.y4m`).
    public let source: String
    /// Upper bounds of the scan-duration histogram's buckets.
    public static let scanDurationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
        .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1), .seconds(2),
    ]

    static var framesTotal: MetricNameDescriptor { .init(namespace: "syncscan", metricName: "frames", unitName: "total",
                                                  helpText: "Frames that left the pipeline, by outcome: scanned, or dropped and why.") }
    static var codesTotal: MetricNameDescriptor { .init(namespace: "syncscan", metricName: "codes", unitName: "total",
                                                 helpText: "Codes found in scanned frames, by symbology (before duplicate suppression).") }

    private let registry = PrometheusCollectorRegistry()
    private let frames: [(outcome: DroppedReason?, counter: Counter)]
    private let codesEmitted: Counter, outputLinesDropped: Counter, deviceReopens: Counter, textfileWriteFailures: Counter
    private let up: Gauge
    /// Written, skipped, failed; only with snapshots.
    private let snapshots: (written: Counter, skipped: Counter, failed: Counter)?
    /// Only with MQTT.
    private let mqtt: (published: Counter, dropped: Counter, queued: Gauge, spooled: Gauge, connected: Gauge)?
    private let scanDuration: DurationHistogram
    private let published: LockedValue<(counters: ServiceCounters, writeFailures: Int)>

    /// - Parameters:
    ///   - baseline: the service's counts when this source's metrics begin.
    ///   - snapshots: whether snapshots are saved (their counters are made only then).
    ///   - mqtt: whether codes go to an MQTT broker (its counters and gauges are made only then).
    public init(source: String, baseline: ServiceCounters = ServiceCounters(), snapshots: Bool = false, mqtt: Bool = false) {
        self.source = source
        let label = ("source", source)
        frames = ([nil] + DroppedReason.allCases).map { [registry] reason in
            (reason, registry.makeCounter(descriptor: Self.framesTotal, labels: [label, ("outcome", reason?.rawValue ?? "scanned")]))
        }
        let counter = { [registry] (name: String, help: String) in
            registry.makeCounter(descriptor: .init(namespace: "syncscan", metricName: name, unitName: "total", helpText: help), labels: [label])
        }
        codesEmitted = counter("codes_emitted", "Codes written out after duplicate suppression.")
        outputLinesDropped = counter("output_lines_dropped", "Result lines dropped because the stdout queue was full.")
        deviceReopens = counter("device_reopens", "Camera reopens after a fault or an unplug.")
        textfileWriteFailures = counter("metrics_textfile_write_failures", "Failed replacements of this metrics file.")
        up = registry.makeGauge(descriptor: .init(namespace: "syncscan", metricName: "up", unitName: "", helpText: "1 while the source is streaming, else 0."),
                                labels: [label])
        let gauge = { [registry] (name: String, help: String) in
            registry.makeGauge(descriptor: .init(namespace: "syncscan", metricName: name, unitName: "", helpText: help), labels: [label])
        }
        self.snapshots = snapshots ? (counter("snapshots_written", "Snapshot files written."),
                                      counter("snapshots_skipped", "Frames with codes saved no snapshot: the snapshot queue or the pixel pool was full."),
                                      counter("snapshots_failed", "Snapshot files that could not be written (the log says why).")) : nil
        self.mqtt = mqtt ? (counter("mqtt_published", "Codes the MQTT broker acknowledged."),
                            counter("mqtt_dropped", "Codes dropped before the MQTT broker took them: past the memory queue and the spool."),
                            gauge("mqtt_queued_messages", "Messages waiting in memory for the MQTT broker."),
                            gauge("mqtt_spooled_messages", "Codes waiting in the spool file for the MQTT broker."),
                            gauge("mqtt_connected", "1 while connected to the MQTT broker, else 0.")) : nil
        scanDuration = registry.makeDurationHistogram(
            descriptor: .init(namespace: "syncscan", metricName: "scan_duration", unitName: "seconds", helpText: "Time to scan one frame, in seconds."),
            labels: [label], buckets: Self.scanDurationBuckets)
        published = LockedValue((baseline, 0))
    }

    /// Records one frame's scan duration (from any thread).
    public func recordScanDuration(_ duration: Duration) { scanDuration.record(duration) }

    /// Brings every counter and the gauge up to `counters`; `textfileWriteFailures` is the writer's count so far.
    public func update(_ counters: ServiceCounters, textfileWriteFailures failures: Int = 0) {
        // The registry hands back the one counter per label set; made outside the lock.
        let codes = counters.statistics.codesBySymbology.keys.map { symbology in
            (symbology, registry.makeCounter(descriptor: Self.codesTotal, labels: [("source", source), ("symbology", symbology.rawValue)]))
        }
        let increments = published.withLock { last -> [(Counter, Int)] in
            let (new, old) = (counters.statistics, last.counters.statistics)
            defer { last = (counters, failures) }
            return frames.map { outcome, counter in
                let count = { (s: CaptureStatistics) in outcome.map { s.dropped[$0, default: 0] } ?? s.scanned }
                return (counter, count(new) - count(old))
            } + codes.map { ($1, new.codesBySymbology[$0, default: 0] - old.codesBySymbology[$0, default: 0]) } + [
                (codesEmitted, counters.codesEmitted - last.counters.codesEmitted),
                (outputLinesDropped, counters.outputLinesDropped - last.counters.outputLinesDropped),
                (deviceReopens, counters.deviceReopens - last.counters.deviceReopens),
                (textfileWriteFailures, failures - last.writeFailures),
            ] + (snapshots.map { [
                ($0.written, counters.snapshotsWritten - last.counters.snapshotsWritten),
                ($0.skipped, counters.snapshotsSkipped - last.counters.snapshotsSkipped),
                ($0.failed, counters.snapshotsFailed - last.counters.snapshotsFailed),
            ] } ?? []) + (mqtt.map { [
                ($0.published, counters.mqttPublished - last.counters.mqttPublished),
                ($0.dropped, counters.mqttDropped - last.counters.mqttDropped),
            ] } ?? [])
        }
        for (counter, n) in increments where n > 0 { counter.increment(by: Int64(n)) }
        up.set(counters.streaming ? 1.0 : 0.0)
        if let mqtt {
            mqtt.queued.set(Double(counters.mqttQueued))
            mqtt.spooled.set(Double(counters.mqttSpooled))
            mqtt.connected.set(counters.mqttConnected ? 1.0 : 0.0)
        }
    }

    /// The text exposition format (node_exporter's textfile format), ending with a newline.
    public func render() -> [UInt8] { registry.emitToBuffer() }
}
