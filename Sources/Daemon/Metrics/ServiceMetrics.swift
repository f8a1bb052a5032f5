import Capture
import Foundation
import Media
import Prometheus
import Results
import SystemCalls

/// The service's counts since it started, taken at one moment: what the summary line and the metrics file both show.
public struct ServiceCounters: Sendable, Hashable {
    /// Frames by outcome and codes found by symbology, over every session.
    public var statistics = CaptureStatistics()
    /// Codes written out: items' first readings, or after duplicate suppression.
    public var codesEmitted = 0
    /// Items added, removed and alive (`duplicate_suppression.mode: items`).
    public var items = ItemStatistics()
    /// Result lines dropped because stdout's queue was full.
    public var outputLinesDropped = 0
    /// Source reopens after a fault or an unplug (`SourceHealth.reopens`: a camera's opens past its first, a stream's reconnects), over every session.
    public var deviceReopens = 0
    /// Camera controls (`device.controls`) that failed to apply at a reopen or a reload (`SourceControls.failures`).
    public var controlFailures = 0
    /// Scans that did not return within `scan_timeout_seconds`.
    public var scansStuck = 0
    /// Whether a source is streaming now (not between sessions, not waiting for a lost camera).
    public var streaming = false
    /// Each results handler's counters (snapshots, MQTT, …), handler by handler, in their order.
    public var handlers: [[ResultsCounter]] = []

    /// The handler counter named `name` (`snapshots_written`), if a handler has one.
    public func handlerCounter(_ name: String) -> Int? { handlers.joined().first { $0.name == name }?.value }

    public init() {}
}

/// The service's Prometheus metrics for one `source` label, fed from `ServiceCounters` snapshots
/// and from every scan duration; rendered in the text exposition format.
///
/// Counters increase by the difference from the previous snapshot, so after a snapshot they equal
/// its counts less `baseline` (the counts when this source's metrics began: zero unless a reload
/// changed the source).
public final class ServiceMetrics: Sendable {
    /// The `source` label: the source URI (`v4l2:/dev/video0`, `y4m:/path/clip.y4m`) as `label(_:)` gives it.
    public let source: String

    /// The `source` label of `source`: its identity (`SecretRedaction.identity`), without userinfo,
    /// query or fragment (`rtsp://cam:554/live` for `rtsp://u:pw@cam:554/live?token=…`).
    public static func label(_ source: String) -> String { SecretRedaction.identity(source) }
    /// Upper bounds of the scan-duration histogram's buckets.
    public static let scanDurationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
        .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1), .seconds(2),
    ]

    static var framesTotal: MetricNameDescriptor { .init(namespace: "syncscan", metricName: "frames", unitName: "total",
                                                  helpText: "Frames that left the pipeline, by outcome: scanned, or dropped and why.") }
    static var passCodesTotal: MetricNameDescriptor { .init(namespace: "syncscan", metricName: "pass_codes", unitName: "total",
                                                     helpText: "Codes found in scanned frames, by the decoder pass that read them.") }
    static var passesCutTotal: MetricNameDescriptor { .init(namespace: "syncscan", metricName: "passes_cut", unitName: "total",
                                                     helpText: "Harder decoder passes effort auto wanted on a live frame that did not fit in its time budget.") }
    static var passDuration: MetricNameDescriptor { .init(namespace: "syncscan", metricName: "pass_duration", unitName: "seconds",
                                                   helpText: "Time of one decoder pass over one frame, in seconds.") }
    static var codesTotal: MetricNameDescriptor { .init(namespace: "syncscan", metricName: "codes", unitName: "total",
                                                 helpText: "Codes found in scanned frames, by symbology (before duplicate suppression).") }

    private let registry = PrometheusCollectorRegistry()
    private let frames: [(outcome: DroppedReason?, counter: Counter)]
    private let itemsAdded: Counter, itemsRemoved: Counter, itemsUnconfirmed: Counter, itemResets: Counter, itemsAlive: Gauge, itemReadRate: ValueHistogram
    private let codesEmitted: Counter, outputLinesDropped: Counter, deviceReopens: Counter, controlFailures: Counter, scansStuck: Counter, textfileWriteFailures: Counter
    private let up: Gauge
    /// `syncscan_checked_readings_total{check=…}`: `hybrid`'s zbar-only 1-D readings by what the check did.
    private let checkedReadings: [(count: @Sendable (ReadingCheckCounts) -> Int, counter: Counter)]
    private let scanDuration: DurationHistogram
    /// `syncscan_pass_duration_seconds{pass=…}`, made on a pass's first duration.
    private let passDurations: LockedValue<[DecoderPass: DurationHistogram]>
    private let published: LockedValue<(counters: ServiceCounters, writeFailures: Int)>

    /// - Parameters:
    ///   - baseline: the service's counts when this source's metrics begin. The results
    ///     handlers' counters and gauges are made from the first `update` on (`ResultsCounter`
    ///     names them), so their series appear in the first rendering.
    public init(source: String, baseline: ServiceCounters = ServiceCounters()) {
        self.source = Self.label(source)
        let label = ("source", self.source)
        frames = ([nil] + DroppedReason.allCases).map { [registry] reason in
            (reason, registry.makeCounter(descriptor: Self.framesTotal, labels: [label, ("outcome", reason?.rawValue ?? "scanned")]))
        }
        let counter = { [registry] (name: String, help: String) in
            registry.makeCounter(descriptor: .init(namespace: "syncscan", metricName: name, unitName: "total", helpText: help), labels: [label])
        }
        codesEmitted = counter("codes_emitted", "Codes written out: items' first readings, or after duplicate suppression.")
        itemsAdded = counter("items_added", "Codes that came into view as items (duplicate_suppression.mode items).")
        itemsRemoved = counter("items_removed", "Items that left the view, or were present when the source ended.")
        itemsUnconfirmed = counter("items_unconfirmed", "Items that left before their payload was confirmed (duplicate_suppression.confirm_*): never reported.")
        itemResets = counter("item_resets", "Times a frame's timestamp went back and every item was removed.")
        itemsAlive = registry.makeGauge(descriptor: .init(namespace: "syncscan", metricName: "items_alive", unitName: "", helpText: "Items in view now."),
                                        labels: [label])
        itemReadRate = registry.makeValueHistogram(
            descriptor: .init(namespace: "syncscan", metricName: "item_read_rate", unitName: "",
                              helpText: "Of the frames an item was present in, the share that read its code; one observation per item removed."),
            labels: [label], buckets: ItemStatistics.readRateBounds)
        outputLinesDropped = counter("output_lines_dropped", "Result lines dropped because the stdout queue was full.")
        deviceReopens = counter("device_reopens", "Camera reopens after a fault or an unplug.")
        controlFailures = counter("control_failures", "Camera controls (device.controls) that failed to apply at a reopen or a reload.")
        scansStuck = counter("scans_stuck", "Scans of one frame that did not return within scan_timeout_seconds.")
        textfileWriteFailures = counter("metrics_textfile_write_failures", "Failed replacements of this metrics file.")
        let checked = MetricNameDescriptor(namespace: "syncscan", metricName: "checked_readings", unitName: "total",
                                           helpText: "zbar-only 1-D readings of engine hybrid, by what their check did: confirmed, settled, held, dropped, misread.")
        let checks: [(@Sendable (ReadingCheckCounts) -> Int, String)] = [({ $0.confirmed }, "confirmed"), ({ $0.settled }, "settled"),
                                                                          ({ $0.held }, "held"), ({ $0.dropped }, "dropped"),
                                                                          ({ $0.misread }, "misread")]
        checkedReadings = checks.map { [registry] count, name in (count, registry.makeCounter(descriptor: checked, labels: [label, ("check", name)])) }
        up = registry.makeGauge(descriptor: .init(namespace: "syncscan", metricName: "up", unitName: "", helpText: "1 while the source is streaming, else 0."),
                                labels: [label])
        scanDuration = registry.makeDurationHistogram(
            descriptor: .init(namespace: "syncscan", metricName: "scan_duration", unitName: "seconds", helpText: "Time to scan one frame, in seconds."),
            labels: [label], buckets: Self.scanDurationBuckets)
        published = LockedValue((baseline, 0))
        passDurations = LockedValue([:])
    }

    /// Records one frame's scan duration (from any thread).
    public func recordScanDuration(_ duration: Duration) { scanDuration.record(duration) }

    /// Records the read rate of an item removed (from the delivery's thread).
    public func recordItemRemoved(_ item: RemovedItem) { itemReadRate.record(item.readRate) }

    /// Records one decoder pass's duration over a frame (from any thread).
    public func recordPassDuration(_ pass: DecoderPass, _ duration: Duration) {
        let histogram = passDurations.withLock { histograms in
            if let existing = histograms[pass] { return existing }
            let made = registry.makeDurationHistogram(descriptor: Self.passDuration, labels: [("source", source), ("pass", pass.rawValue)],
                                                      buckets: Self.scanDurationBuckets)
            histograms[pass] = made
            return made
        }
        histogram.record(duration)
    }

    /// Brings every counter and the gauge up to `counters`; `textfileWriteFailures` is the writer's count so far.
    public func update(_ counters: ServiceCounters, textfileWriteFailures failures: Int = 0) {
        // The registry hands back the one counter per label set; made outside the lock.
        let codes = counters.statistics.codesBySymbology.keys.map { symbology in
            (symbology, registry.makeCounter(descriptor: Self.codesTotal, labels: [("source", source), ("symbology", symbology.rawValue)]))
        }
        let passCodes = counters.statistics.codesByPass.keys.map { pass in
            (pass, registry.makeCounter(descriptor: Self.passCodesTotal, labels: [("source", source), ("pass", pass.rawValue)]))
        }
        let passesCut = counters.statistics.passesCut.keys.map { pass in
            (pass, registry.makeCounter(descriptor: Self.passesCutTotal, labels: [("source", source), ("pass", pass.rawValue)]))
        }
        let handlerCounters = counters.handlers.joined()
        let handlerMetrics = handlerCounters.map { [registry, source] counter -> (ResultsCounter, Counter?, Gauge?) in
            let descriptor = MetricNameDescriptor(namespace: "syncscan", metricName: counter.metric,
                                                  unitName: counter.kind == .counter ? "total" : "", helpText: counter.help)
            return switch counter.kind {
            case .counter: (counter, registry.makeCounter(descriptor: descriptor, labels: [("source", source)]), nil)
            case .gauge: (counter, nil, registry.makeGauge(descriptor: descriptor, labels: [("source", source)]))
            }
        }
        let increments = published.withLock { last -> [(Counter, Int)] in
            let (new, old) = (counters.statistics, last.counters.statistics)
            defer { last = (counters, failures) }
            return frames.map { outcome, counter in
                let count = { (s: CaptureStatistics) in outcome.map { s.dropped[$0, default: 0] } ?? s.scanned }
                return (counter, count(new) - count(old))
            } + codes.map { ($1, new.codesBySymbology[$0, default: 0] - old.codesBySymbology[$0, default: 0]) }
                + Self.increments(passCodes, new.codesByPass, old.codesByPass) + Self.increments(passesCut, new.passesCut, old.passesCut) + [
                (codesEmitted, counters.codesEmitted - last.counters.codesEmitted),
                (itemsAdded, counters.items.added - last.counters.items.added),
                (itemsRemoved, counters.items.removed - last.counters.items.removed),
                (itemsUnconfirmed, counters.items.unconfirmed - last.counters.items.unconfirmed),
                (itemResets, counters.items.resets - last.counters.items.resets),
                (outputLinesDropped, counters.outputLinesDropped - last.counters.outputLinesDropped),
                (deviceReopens, counters.deviceReopens - last.counters.deviceReopens),
                (controlFailures, counters.controlFailures - last.counters.controlFailures),
                (scansStuck, counters.scansStuck - last.counters.scansStuck),
                (textfileWriteFailures, failures - last.writeFailures),
            ] + checkedReadings.map { count, counter in (counter, count(new.readingCheck) - count(old.readingCheck)) } + handlerMetrics.compactMap { counter, metric, _ in
                metric.map { ($0, counter.value - (last.counters.handlerCounter(counter.name) ?? 0)) }
            }
        }
        for (counter, n) in increments where n > 0 { counter.increment(by: Int64(n)) }
        up.set(counters.streaming ? 1.0 : 0.0)
        itemsAlive.set(Double(counters.items.alive))
        for (counter, _, gauge) in handlerMetrics { gauge?.set(Double(counter.value)) }
    }

    /// Each pass's counter with its count's increase from `old` to `new`.
    private static func increments(_ counters: [(DecoderPass, Counter)], _ new: [DecoderPass: Int],
                                   _ old: [DecoderPass: Int]) -> [(Counter, Int)] {
        counters.map { pass, counter in (counter, new[pass, default: 0] - old[pass, default: 0]) }
    }

    /// The text exposition format (node_exporter's textfile format), ending with a newline.
    public func render() -> [UInt8] { registry.emitToBuffer() }
}
