import Logging
import ServiceLifecycle
import SystemCalls
import SystemPackage

/// `metrics.textfile` every `stats_interval_seconds` (when set; a reload may set or change it),
/// and once more at the run's end (`finish`), once the results handlers have flushed.
///
/// A service of the daemon's group, stopped once the scan has returned; the writes go through
/// the scan's `MetricsTextfileWriter` (its failures are counted in `/metrics` too).
struct MetricsTextfilePublisher: Service {
    let scan: any ScanReadings
    let writer: MetricsTextfileWriter

    func run() async throws {
        try await cancelWhenGracefulShutdown { await everyStatsInterval(scan) { publish(scan.counters()) } }
    }

    /// Brings the metrics up to `counters` and, with `metrics.textfile` set, hands the file's new
    /// content to the writer's thread.
    func publish(_ counters: ServiceCounters) {
        let (metrics, path) = (scan.metrics, scan.configuration.metrics.textfile)
        metrics.update(counters, textfileWriteFailures: writer.failures)
        guard let path else { return }
        writer.submit(metrics.render(), to: FilePath(path))
    }

    /// The run's last write, with `final` (the counts after the flush), then the writer's thread
    /// ended once it is written (a thread of its own waits for it).
    func finish(_ final: ServiceCounters) async {
        publish(final)
        guard writer.used else { return }
        await runOnThread(name: "syncscan-metric") { writer.finish() }
    }
}
