import Capture
import ConfigurationKeys
import Logging
import Media
import SystemCalls

/// Everything the syncscan service can be configured with, already validated.
///
/// Read by `SyncscanConfiguration.load(file:environment:overrides:components:)`: it composes the
/// registered components (`components`, each by its descriptor, which reads its own keys under its
/// prefix into `componentSettings`) with the service's own keys (`SyncscanConfiguration+Reading.swift`).
/// It names no component: each one's settings are reached through its `SettingsKey`
/// (`configuration[.webhook]`, or the property its descriptor's file adds: `configuration.webhook`).
/// That code is the schema; `config/syncscan.yaml` documents every key.
public struct SyncscanConfiguration: Sendable, Hashable {
    /// Which readings are reported: each physical code once as an item (the default), or a
    /// payload again only after a window of absence (a decoder's notion of a duplicate), or every reading.
    public struct DuplicateSuppression: Sendable, Hashable, ConfigurationSection {
        public enum Mode: String, Sendable, Hashable, CaseIterable {
            /// Each physical code an item, reported at its first reading and when it leaves.
            case items
            /// A payload again only after `windowSeconds` of absence.
            case window
            /// Every reading of every frame.
            case off
        }

        public var mode = Mode.items
        /// A code with the same symbology and bytes seen within this many seconds of frame time
        /// after its last report is not reported again (`window` mode).
        public var windowSeconds = 1.0
        /// Seconds of frame time an item unseen stays alive (`items` mode).
        public var itemGraceSeconds = 1.0
        /// Seconds of frame time a moving item unseen stays alive while its predicted place is in the frame.
        public var movingItemGraceSeconds = 1.0
        /// At most this many `item_updated` lines a second per item (`items` mode); 0: none.
        public var itemUpdatesPerSecond = 0.0
        /// Which items are reported only once confirmed, and by how many readings (`items` mode).
        public var confirmation = ItemConfirmation()

        public init(mode: Mode = .items, windowSeconds: Double = 1.0) { (self.mode, self.windowSeconds) = (mode, windowSeconds) }

        /// Reads `duplicate_suppression.*` (given `keys.scoped(to: "duplicate_suppression")`): `mode`
        /// when set; else `window` when `window_seconds` is (as before items), `off` when `enabled` is false.
        public init(reading keys: ConfigurationKeyReader) {
            let window = keys.double("window_seconds", in: 0...86_400)
            if let window { windowSeconds = window }
            if let v = keys.double("item_grace_seconds", in: 0...3600) { itemGraceSeconds = v }
            if let v = keys.double("moving_item_grace_seconds", in: 0...3600) { movingItemGraceSeconds = v }
            if let v = keys.double("item_updates_per_second", in: 0...1000) { itemUpdatesPerSecond = v }
            if let names = keys.list("confirm_symbologies", of: "a list of symbology names, \"all\" or \"none\"") {
                let parsed = names == ["none"] ? (symbologies: [], problems: []) : Symbology.parse(list: names, all: Set(Symbology.allCases))
                parsed.problems.forEach { keys.problem($0.index.map { "confirm_symbologies[\($0)]" } ?? "confirm_symbologies", $0.message) }
                confirmation.symbologies = parsed.symbologies
            }
            if let v = keys.int("confirm_readings", in: 1...100) { confirmation.readings = v }
            if let v = keys.bool("report_unconfirmed") { confirmation.reportsUnconfirmed = v }
            let explicit: Mode? = keys.choice("mode", "a reporting mode")
            mode = explicit ?? (window == nil ? .items : .window)
            if keys.bool("enabled") == false || (mode == .window && windowSeconds == 0) { mode = .off }
        }

        /// What the pipeline's delivery does.
        public var reporting: CodeReporting {
            switch mode {
            case .items:
                .items(ItemTracker.Settings(grace: MediaTime(seconds: itemGraceSeconds), movingGrace: MediaTime(seconds: movingItemGraceSeconds),
                                            updateInterval: itemUpdatesPerSecond > 0 ? MediaTime(seconds: 1 / itemUpdatesPerSecond) : nil,
                                            confirmation: confirmation))
            case .window: .window(MediaTime(seconds: windowSeconds))
            case .off: .everyReading
            }
        }
    }

    /// The results writer: lines its bounded queue holds before results are dropped (and counted).
    public struct Output: Sendable, Hashable, ConfigurationSection {
        public var queueLines = 1024
        /// JSON lines on stdout; false when another sink (MQTT) is the only one.
        public var stdout = true
        /// Only codes with a valid GS1 element of one of these AIs are emitted, to every sink
        /// (`output.gs1_filter`, `GS1CodeFilter`); `nil`: every code.
        public var gs1Filter: [String]?
        public init(queueLines: Int = 1024, stdout: Bool = true) { (self.queueLines, self.stdout) = (queueLines, stdout) }

        /// Reads `output.*` (given `keys.scoped(to: "output")`).
        public init(reading keys: ConfigurationKeyReader) {
            if let v = keys.int("queue_lines", in: 1...1_048_576) { queueLines = v }
            if let v = keys.bool("stdout") { stdout = v }
            if let ais = keys.list("gs1_filter", of: "a list of GS1 Application Identifiers (01, 00, 8004)") {
                if let problem = GS1CodeFilter.problem(ais) { keys.problem("gs1_filter", problem) } else { gs1Filter = ais }
            }
        }

        /// The filter `gs1Filter` makes; `nil`: none.
        public var codeFilter: CodeFilter? { gs1Filter.map(GS1CodeFilter.make) }
    }

    /// The registered input families, decoder libraries and results handlers (`Components.standard`,
    /// or a program's or a test's own), whose settings this configuration holds.
    public var components = Components.standard
    /// Every component's settings, by its `SettingsKey` (`self[key]`).
    public internal(set) var componentSettings = ComponentSettingsStore()

    /// The frame source URI (`/dev/video0`, `y4m:PATH`, `-`); always one `SourceFactory` can open.
    public var source = "/dev/video0"
    /// `nil`: on for live sources (camera, pipe), off for files (`VideoDataOutput`'s rule).
    public var alwaysDiscardLateVideoFrames: Bool?
    /// Threads scanning frames in parallel, each with its own scanners; `auto` (the default) is the
    /// processors this process may run on, at most 8.
    public var scanningThreads = min(8, schedulableProcessorCount())
    /// The part of the frame scanned, normalized 0–1 from the top-left corner.
    public var rectOfInterest = NormalizedRect.full
    public var duplicateSuppression = DuplicateSuppression()
    /// Which frames are scanned: every one, or those in which something changed (`trigger.mode: presentation`).
    public var trigger = TriggerSettings()
    /// Seconds between statistics log lines; 0 turns them off.
    public var statsIntervalSeconds = 60.0
    /// Seconds a scan of one frame may take before it counts as stuck (`scan_timeout_seconds`):
    /// logged, counted, in STATUS=, and the watchdog pings stop (without a watchdog, the run ends).
    public var scanTimeoutSeconds = 10.0
    /// Seconds a graceful shutdown may take, from SIGTERM or the end of the source to the last
    /// flush (`shutdown_timeout_seconds`); past it the run ends, non-zero, with what was not
    /// written named. 0: no limit. `nil` (the default): `defaultSupervisedShutdownTimeoutSeconds`
    /// under systemd, none otherwise.
    public var shutdownTimeoutSeconds: Double?

    /// The shutdown limit under systemd when `shutdown_timeout_seconds` is not set: under the
    /// shipped units' `TimeoutStopSec=15s`, so the run says what it had left before systemd's
    /// SIGKILL would.
    public static let defaultSupervisedShutdownTimeoutSeconds = 10.0
    public var logLevel = Logger.Level.info
    public var output = Output()
    /// The node_exporter textfile (`metrics.textfile`).
    public var metrics = MetricsSettings()

    /// The defaults: `/dev/video0`, zxing-cpp, QR codes only, whole frame, a scanning thread per processor.
    public init(components: Components = .standard) { self.components = components }

    /// A component's settings (`configuration[.webhook]`): its key's default when it read none.
    public subscript<Value>(key: SettingsKey<Value>) -> Value {
        get { componentSettings[key] }
        set { componentSettings[key] = newValue }
    }

    /// The video data output's late-frame policy.
    public var videoDataOutput: VideoDataOutput {
        VideoDataOutput(alwaysDiscardsLateVideoFrames: alwaysDiscardLateVideoFrames)
    }
}
