import Capture
import Configuration
import Decoders
import Foundation
import HTTP
import Logging
import Media
import MQTT
import Results
import SystemPackage
import V4L2

extension SyncscanConfiguration {
    /// Loads and validates the configuration: `overrides` > `environment` > `file` > defaults.
    ///
    /// `run`, `check-config` and a SIGHUP reload all come through here, so they accept and refuse
    /// the same things, the source URI and the camera settings included.
    /// - Parameters:
    ///   - file: A YAML file path, or `nil`. A file with no document (empty, comments) sets nothing.
    ///   - environment: The process environment; `SYNCSCAN_*` variables are keys (`SYNCSCAN_CONFIG` aside).
    ///   - overrides: Typed values from command-line flags, by dotted key (`"device.max_width": 1920`).
    /// - Throws: `ConfigurationError` (and nothing else) naming every problem with its file and line, variable or flag.
    public static func load(file: String?, environment: [String: String],
                            overrides: [String: ConfigValue] = [:]) async throws -> SyncscanConfiguration {
        var layout = file.map(ConfigurationFileLayout.init(reading:))
        var fileProvider: FileProvider<YAMLSnapshot>?
        if let file, layout?.hasDocument == true, layout?.problems.isEmpty == true {
            do { fileProvider = try await FileProvider<YAMLSnapshot>(filePath: FilePath(file)) } catch { layout?.fail(nil, "\(error)") }
        }
        var keys = ConfigurationKeyReader(overrides: overrides, environment: environment, file: layout, fileProvider: fileProvider)
        let configuration = SyncscanConfiguration(reading: &keys)
        let problems = keys.finish()
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return configuration
    }

    /// Checks a configuration file alone (no environment, no flags), for `syncscan check-config FILE`.
    public static func checkConfig(path: String) async -> Result<SyncscanConfiguration, ConfigurationError> {
        do { return .success(try await load(file: path, environment: [:])) } catch {
            return .failure(error as? ConfigurationError ?? ConfigurationError(problems: [.init(origin: .file(path: path, line: nil), key: "", message: "\(error)")]))
        }
    }

    /// Reads every key: this initializer is the schema. Each value is checked where it is read.
    init(reading keys: inout ConfigurationKeyReader) {
        if let source = keys.string("source") {
            do { _ = try InputRegistry.validate(source); self.source = source } catch { keys.problem("source", "\(error)") }
        }
        let sizes = V4L2CaptureSource.Configuration.sizeRange
        device.width = keys.int("device.width", in: sizes)
        device.height = keys.int("device.height", in: sizes)
        if (device.width == nil) != (device.height == nil) {
            keys.problem(device.width == nil ? "device.height" : "device.width", "device.width and device.height must be given together")
        }
        device.framesPerSecond = keys.double("device.fps", in: V4L2CaptureSource.Configuration.frameRateRange, lowerOpen: true)
        if let v = keys.double("device.min_fps", in: V4L2CaptureSource.Configuration.frameRateRange,
                               " (the floor under which a smaller, faster size is chosen; 0: none)") {
            device.minimumFramesPerSecond = v
        }
        device.pixelFormat = keys.choice("device.fourcc", "pixel format")
        if let v = keys.int("device.max_width", in: sizes) { device.maximumWidth = v }
        if let v = keys.int("device.max_height", in: sizes) { device.maximumHeight = v }
        if let v = keys.int("device.buffers", in: V4L2CaptureSource.Configuration.bufferCountRange,
                            " (streaming needs 2; V4L2 allows at most 32)") { device.bufferCount = v }
        if let v = keys.double("device.missing_timeout", in: 1...86_400, " (seconds a lost camera is waited for)") { device.missingTimeout = .seconds(v) }
        device.controls = keys.entries(of: "device.controls").compactMap { entry in
            let setting = V4L2ControlSetting(name: entry.name, value: entry.value)
            if let problem = setting.typeProblem { keys.problem("device.controls.\(entry.name)", problem); return nil }
            return setting
        }

        if let v: RTSPSettings.Transport = keys.choice("rtsp.transport", "RTSP transport") { rtsp.transport = v }
        if let v = keys.int("rtsp.latency_ms", in: RTSPSettings.latencyRange, " (milliseconds of RTSP jitter buffer)") { rtsp.latencyMilliseconds = v }
        if let v = keys.bool("rtsp.camera_time") { rtsp.cameraTime = v }

        alwaysDiscardLateVideoFrames = keys.bool("always_discard_late_video_frames")
        let threads = "auto or an integer from 1 to 64"
        if let text = keys.string("scanning_threads", threads), text.lowercased() != "auto" {
            if let v = Int(text), (1...64).contains(v) { scanningThreads = v } else { keys.problem("scanning_threads", "expected \(threads), found \"\(text)\"") }
        }

        if let v = keys.choice("engine", "engine", among: DecoderEngine.allCases, named: \.name) { engine = v }
        if let v: ScanEffort = keys.choice("effort", "effort") { effort = v }
        if let names = keys.list("symbologies", of: "a list of symbology names or \"all\"") {
            let parsed = Symbology.parse(list: names, all: engine.readable)
            parsed.problems.forEach { keys.problem($0.index.map { "symbologies[\($0)]" } ?? "symbologies", $0.message) }
            scanner.symbologies = parsed.symbologies
        }
        for symbology in Symbology.allCases where ZBarDecoder().readable.contains(symbology) {
            let prefix = "zbar.\(symbology.rawValue)."
            if let enable = keys.bool(prefix + "enable") {
                if enable { scanner.symbologies.insert(symbology) } else { scanner.symbologies.remove(symbology) }
            }
            let minLength = keys.int(prefix + "min-length", in: 0...100_000)
            let maxLength = keys.int(prefix + "max-length", in: 0...100_000)
            if let minLength, let maxLength, minLength > maxLength {
                keys.problem(prefix + "min-length", "\(minLength) is greater than \(prefix)max-length \(maxLength)")
            }
            if minLength != nil || maxLength != nil { scanner.settings[symbology] = .init(minLength: minLength, maxLength: maxLength) }
        }
        if scanner.symbologies.isEmpty {
            keys.problem("symbologies", "no symbology is left enabled (zbar.<name>.enable: false removed them all)")
        }
        for symbology in Symbology.allCases where scanner.symbologies.contains(symbology) && !engine.readable.contains(symbology) {
            let readers = DecoderEngine.engines(reading: symbology).map { "engine: \($0)" }.joined(separator: " or ")
            keys.problem("symbologies", "the \(engine) engine does not read \(symbology); \(readers) does, or remove \(symbology)")
        }
        if let names = keys.list("passes", of: "a list of decoder pass names") {
            let engines = DecoderPass.passes(for: engine, symbologies: scanner.symbologies)
            var chosen: Set<DecoderPass> = []
            for (index, name) in names.enumerated() {
                guard let pass = DecoderPass(rawValue: name.lowercased()) else {
                    keys.problem("passes[\(index)]", "unknown pass \"\(name)\" (known: \(DecoderPass.allCases.map(\.rawValue).joined(separator: ", ")))")
                    continue
                }
                if engines.contains(pass) { chosen.insert(pass) } else {
                    keys.problem("passes[\(index)]", "the \(engine) engine has no \(pass) pass for these symbologies; its passes: "
                                 + engines.map(\.rawValue).joined(separator: ", "))
                }
            }
            if names.isEmpty { keys.problem("passes", "names no pass; remove the key for all of the engine's passes") }
            passes = chosen
        }
        if let v = keys.bool("zxing.try-harder") { zxing.tryHarder = v }
        if let v = keys.bool("zxing.try-rotate") { zxing.tryRotate = v }
        if let v = keys.bool("zxing.try-downscale") { zxing.tryDownscale = v }
        if let v = keys.bool("zbar.test-inverted") { scanner.testInverted = v }
        if let v = keys.int("zbar.x-density", in: 0...100, " (0 skips columns, 1 scans every column)") { scanner.xDensity = v }
        if let v = keys.int("zbar.y-density", in: 0...100, " (0 skips rows, 1 scans every row)") { scanner.yDensity = v }
        if scanner.xDensity == 0 && scanner.yDensity == 0 {
            keys.problem("zbar.x-density", "zbar.x-density and zbar.y-density are both 0, so nothing would be scanned")
        }

        // Rect of interest: missing sides reach the frame's far edges.
        let roi = NormalizedRect.fitting(x: keys.double("rect_of_interest.x", in: 0...1) ?? 0, y: keys.double("rect_of_interest.y", in: 0...1) ?? 0,
                                         width: keys.double("rect_of_interest.width", in: 0...1, lowerOpen: true),
                                         height: keys.double("rect_of_interest.height", in: 0...1, lowerOpen: true))
        roi.problems.forEach { keys.problem("rect_of_interest." + $0.side, $0.message) }
        if let rect = roi.rect { rectOfInterest = rect }

        if let v = keys.bool("duplicate_suppression.enabled") { duplicateSuppression.enabled = v }
        if let v = keys.double("duplicate_suppression.window_seconds", in: 0...86_400) { duplicateSuppression.windowSeconds = v }
        if let v = keys.double("stats_interval_seconds", in: 0...86_400, " (0 turns statistics off)") { statsIntervalSeconds = v }
        if let v = keys.double("scan_timeout_seconds", in: 1...3_600) { scanTimeoutSeconds = v }
        if let v: Logger.Level = keys.choice("log_level", "log level") { logLevel = v }
        if let v = keys.int("output.queue_lines", in: 1...1_048_576) { output.queueLines = v }
        if let v = keys.bool("output.stdout") { output.stdout = v }
        readWebhook(&keys)
        readMQTT(&keys)
        readHTTP(&keys)

        // Snapshots: every key is read (so each is known) whether or not a directory is set.
        let directory = keys.string("snapshots.directory")
        var shots = SnapshotSettings(directory: directory ?? "")
        if let v = keys.int("snapshots.quality", in: 1...100, " (JPEG quality)") { shots.quality = v }
        if let v: SnapshotSettings.Crop = keys.choice("snapshots.crop", "crop") { shots.crop = v }
        if let v = keys.int("snapshots.margin", in: 0...4096, " (pixels around the codes with crop: code)") { shots.margin = v }
        if let v = keys.int("snapshots.max_files", in: 0...100_000_000, " (0: no limit)") { shots.maxFiles = v }
        if let v = keys.int("snapshots.max_bytes", in: 0...(1 << 50), " (0: no limit)") { shots.maxBytes = v }
        if let directory {
            if directory.isEmpty { keys.problem("snapshots.directory", "must name a directory; remove the key to save no snapshots") }
            else { snapshots = shots }
        }
        if let v = keys.string("metrics.textfile", "a file path ending in .prom") {
            if v.hasSuffix(".prom") && !v.hasSuffix("/.prom") { metricsTextfile = v } else {
                keys.problem("metrics.textfile", "\"\(v)\" does not end in .prom, and node_exporter's textfile collector reads only *.prom files")
            }
        }
    }

    /// `http.*`: every key is read (so each is known) whether or not `http.listen` is set.
    private mutating func readHTTP(_ keys: inout ConfigurationKeyReader) {
        let form = "ADDRESS:PORT with a numeric address (127.0.0.1:8080, [::1]:8080, localhost:8080)"
        var listen: HTTPListenAddress?
        if let text = keys.string("http.listen", form) {
            listen = HTTPListenAddress(parsing: text)
            if listen == nil { keys.problem("http.listen", "\"\(text)\" is not \(form)") }
        }
        var settings = HTTPSettings(listen: listen ?? HTTPListenAddress(host: "127.0.0.1", port: 0))
        if let v = keys.bool("http.allow_remote") { settings.allowRemote = v }
        settings.passwordFile = keys.string("http.password_file", "a file path")
        settings.tlsCertificateFile = keys.string("http.tls_cert_file", "a file path (PEM certificate chain)")
        settings.tlsKeyFile = keys.string("http.tls_key_file", "a file path (PEM private key)")
        if (settings.tlsCertificateFile == nil) != (settings.tlsKeyFile == nil) {
            let (set, unset) = settings.tlsKeyFile == nil ? ("http.tls_cert_file", "http.tls_key_file") : ("http.tls_key_file", "http.tls_cert_file")
            keys.problem(set, "\(set) is set but \(unset) is not: HTTPS needs both the certificate and its private key")
        }
        if let v = keys.double("http.preview_fps", in: 0...60, lowerOpen: true, " (preview frames a second)") { settings.liveView.previewFPS = v }
        if let v = keys.int("http.preview_width", in: 16...7680, " (preview width in pixels)") { settings.liveView.previewWidth = v }
        if let v = keys.int("http.max_connections", in: 1...1024, " (requests served at once; more get 503)") { settings.maxConnections = v }
        if let v = keys.int("http.max_connections_per_address", in: 1...1024, " (connections one client address may hold; more are closed)") {
            settings.maxConnectionsPerAddress = v
        }
        if let listen, !listen.isLoopback {
            if !settings.allowRemote {
                keys.problem("http.listen", "\(listen) is not a loopback address: listen on 127.0.0.1, or set http.allow_remote: true "
                             + "and http.password_file (HTTP Basic) to serve other machines")
            } else if settings.passwordFile == nil {
                keys.problem("http.listen", "\(listen) is not a loopback address and http.password_file is not set: other machines "
                             + "would see the camera without a password; set http.password_file")
            }
        }
        if listen != nil { http = settings }
    }

    /// `mqtt.*`: every key is read (so each is known) whether or not `mqtt.url` is set.
    private mutating func readMQTT(_ keys: inout ConfigurationKeyReader) {
        let urlText = keys.string("mqtt.url", "mqtt://HOST:PORT or mqtts://HOST:PORT")
        var url: MQTTBrokerURL?
        if let urlText {
            do { url = try MQTTBrokerURL(parsing: urlText) } catch { keys.problem("mqtt.url", "\(error)") }
        }
        var settings = MQTTSettings(url: url ?? (try! MQTTBrokerURL(parsing: "mqtt://localhost")))
        if let v = keys.string("mqtt.topic_prefix") {
            if v.isEmpty || v.hasSuffix("/") || v.hasPrefix("/") || v.contains("+") || v.contains("#") {
                keys.problem("mqtt.topic_prefix", "\"\(v)\" is not a topic prefix: no leading or trailing /, no + or # wildcards (e.g. syncscan/dock1/video0)")
            } else { settings.topicPrefix = v }
        }
        if let v = keys.string("mqtt.client_id") {
            if v.isEmpty || v.utf8.count > 65535 { keys.problem("mqtt.client_id", "must be 1 to 65535 bytes; remove the key for syncscan-<hostname>-<source>") }
            else { settings.clientID = v }
        }
        if let v = keys.int("mqtt.qos", in: 0...2, " (MQTT QoS: 0 at most once, 1 at least once, 2 exactly once)") { settings.qos = v }
        if let v = keys.int("mqtt.keepalive_seconds", in: 5...65535) { settings.keepaliveSeconds = v }
        settings.username = keys.string("mqtt.username")
        settings.passwordFile = keys.string("mqtt.password_file", "a file path")
        if settings.passwordFile != nil && settings.username == nil {
            keys.problem("mqtt.password_file", "needs mqtt.username too")
        }
        settings.caFile = keys.string("mqtt.ca_file", "a file path")
        if let v = keys.int("mqtt.queue_messages", in: 1...10_000_000) { settings.queueMessages = v }
        // "" turns the spool off; the default is the unit's state directory (systemd's $STATE_DIRECTORY).
        let spool = keys.string("mqtt.spool_directory", "a directory path, or \"\" for none") ?? keys.systemdStateDirectory
        settings.spoolDirectory = spool?.isEmpty == false ? spool : nil
        if let v = keys.int("mqtt.spool_max_bytes", in: 4096...(1 << 40)) { settings.spoolMaxBytes = v }
        if let v = keys.bool("mqtt.homeassistant.discovery") { settings.homeAssistantDiscovery = v }
        if let v = keys.string("mqtt.homeassistant.prefix") {
            if v.isEmpty || v.hasSuffix("/") || v.hasPrefix("/") || v.contains("+") || v.contains("#") {
                keys.problem("mqtt.homeassistant.prefix", "\"\(v)\" is not a discovery prefix: no leading or trailing /, no + or # wildcards (Home Assistant's default is homeassistant)")
            } else { settings.homeAssistantPrefix = v }
        }
        if let url, url.tls, settings.caFile == nil {
            keys.problem("mqtt.url", "mqtts:// needs mqtt.ca_file (the CA certificates that verify the broker)")
        }
        if url != nil { mqtt = settings }
        if !output.stdout && url == nil && webhook == nil {
            keys.problem("output.stdout", "false leaves no sink for the codes; set mqtt.url or webhook.url too, or remove output.stdout")
        }
    }
}
