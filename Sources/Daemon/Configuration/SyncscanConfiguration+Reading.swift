import Capture
import Configuration
import ConfigurationKeys
import Logging

extension SyncscanConfiguration {
    /// Loads and validates the configuration: `overrides` > `environment` > `file` > defaults.
    ///
    /// `run`, `check-config` and a SIGHUP reload all come through here, so they accept and refuse
    /// the same things, the source URI and the camera settings included.
    /// - Parameters:
    ///   - file: A YAML file path, or `nil`. A file with no document (empty, comments) sets nothing.
    ///   - environment: The process environment; `SYNCSCAN_*` variables are keys (`SYNCSCAN_CONFIG` aside).
    ///   - overrides: Typed values from command-line flags, by dotted key (`"device.max_width": 1920`).
    ///   - components: the components whose keys are read (a program's or a test's own besides syncscan's).
    /// - Throws: `ConfigurationError` (and nothing else) naming every problem with its file and line, variable or flag.
    public static func load(file: String?, environment: [String: String], overrides: [String: ConfigValue] = [:],
                            components: Components = .standard) async throws -> SyncscanConfiguration {
        try await ConfigurationKeyReader.read(file: file, environment: environment, overrides: overrides) {
            SyncscanConfiguration(reading: $0, components: components)
        }
    }

    /// Checks a configuration file alone (no environment, no flags), for `syncscan check-config FILE`.
    public static func checkConfig(path: String, components: Components = .standard) async -> Result<SyncscanConfiguration, ConfigurationError> {
        do { return .success(try await load(file: path, environment: [:], components: components)) } catch {
            return .failure(error as? ConfigurationError ?? ConfigurationError(problems: [.init(origin: .file(path: path, line: nil), key: "", message: "\(error)")]))
        }
    }

    /// Every configuration key the daemon reads (`device.max_width`), in `config/syncscan.yaml`'s order: what
    /// `check-config` knows; zbar's per-symbology keys once per symbology (`zbar.qrcode.enable`). The camera's
    /// own control names under `device.controls` are not keys of syncscan's and are not listed.
    public static func allKeys(of components: Components) -> [String] {
        ConfigurationKeyReader.keys { _ = SyncscanConfiguration(reading: $0, components: components) }
    }
    public static var keys: [String] { allKeys(of: .standard) }

    /// Composes the components' settings, each read by its descriptor from its own keys
    /// (`SettingsSection`), and reads the service's own keys; checks what spans components. In the
    /// order of `config/syncscan.yaml`, which unknown-key messages list the known names in.
    init(reading keys: ConfigurationKeyReader, components: Components) {
        self.components = components
        if let source = keys.string("source") {
            do { _ = try InputRegistry.validate(source, families: components.inputs); self.source = source } catch { keys.problem("source", "\(error)") }
        }
        components.inputSections.forEach { $0.read(keys, &componentSettings) }
        alwaysDiscardLateVideoFrames = keys.bool("always_discard_late_video_frames")
        let threads = "auto or an integer from 1 to 64"
        if let text = keys.string("scanning_threads", threads), text.lowercased() != "auto" {
            if let v = Int(text), (1...64).contains(v) { scanningThreads = v } else { keys.problem("scanning_threads", "expected \(threads), found \"\(text)\"") }
        }
        components.decoderSections.forEach { $0.read(keys, &componentSettings) }
        readRectOfInterest(keys.scoped(to: "rect_of_interest"))
        duplicateSuppression = DuplicateSuppression(reading: keys.scoped(to: "duplicate_suppression"))
        trigger = TriggerSettings(reading: keys.scoped(to: "trigger"))
        if let v = keys.double("stats_interval_seconds", in: 0...86_400, " (0 turns statistics off)") { statsIntervalSeconds = v }
        if let v = keys.double("scan_timeout_seconds", in: 1...3_600) { scanTimeoutSeconds = v }
        if let v = keys.double("shutdown_timeout_seconds", in: 0...3_600, " (0: no limit)") { shutdownTimeoutSeconds = v }
        if let v: Logger.Level = keys.choice("log_level", "log level") { logLevel = v }
        output = Output(reading: keys.scoped(to: "output"))
        components.handlerSections.forEach { $0.read(keys, &componentSettings) }
        components.triggerSections.forEach { $0.read(keys, &componentSettings) }
        let sinks = components.handlers.filter { $0.sink != nil }
        if !output.stdout && !sinks.contains(where: { $0.isOn(self) }) {
            let turnOn = sinks.compactMap(\.sink).joined(separator: " or ")
            keys.problem("output.stdout", "false leaves no sink for the codes; " + (turnOn.isEmpty ? "" : "set \(turnOn) too, or ") + "remove output.stdout")
        }
        metrics = MetricsSettings(reading: keys.scoped(to: "metrics"))
    }

    /// `rect_of_interest.*`: missing sides reach the frame's far edges.
    private mutating func readRectOfInterest(_ keys: ConfigurationKeyReader) {
        let roi = NormalizedRect.fitting(x: keys.double("x", in: 0...1) ?? 0, y: keys.double("y", in: 0...1) ?? 0,
                                         width: keys.double("width", in: 0...1, lowerOpen: true),
                                         height: keys.double("height", in: 0...1, lowerOpen: true))
        roi.problems.forEach { keys.problem($0.side, $0.message) }
        if let rect = roi.rect { rectOfInterest = rect }
    }
}
