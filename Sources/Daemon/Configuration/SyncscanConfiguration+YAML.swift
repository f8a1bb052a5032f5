import Capture
import Media
import ZBar

extension SyncscanConfiguration {
    /// The configuration as a YAML file in the layout of `config/syncscan.yaml`.
    ///
    /// Loading the text gives this configuration back, so `syncscan check-config` can print the
    /// effective values and the service can log them at startup. Unset optional keys are left out.
    public var yamlDescription: String {
        var lines: [String] = []
        func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) + ".0" : String(v) }
        func quoted(_ s: String) -> String {
            "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }

        lines.append("source: \(quoted(source))")
        lines.append("device:")
        if let width = device.width { lines.append("  width: \(width)") }
        if let height = device.height { lines.append("  height: \(height)") }
        if let fps = device.fps { lines.append("  fps: \(number(fps))") }
        if let fourcc = device.fourcc { lines.append("  fourcc: \(quoted(fourcc.rawValue))") }
        lines.append("  max_width: \(device.maxWidth)")
        lines.append("  max_height: \(device.maxHeight)")
        lines.append("  buffers: \(device.buffers)")
        if let discard = alwaysDiscardLateVideoFrames { lines.append("always_discard_late_video_frames: \(discard)") }
        lines.append("scanning_threads: \(scanningThreads)")
        let symbologyNames = Symbology.allCases.filter(scanner.symbologies.contains).map(\.rawValue)
        lines.append("symbologies: [\(symbologyNames.joined(separator: ", "))]")
        lines.append("zbar:")
        lines.append("  test-inverted: \(scanner.testInverted)")
        lines.append("  x-density: \(scanner.xDensity)")
        lines.append("  y-density: \(scanner.yDensity)")
        for symbology in Symbology.allCases {
            guard let settings = scanner.settings[symbology], settings.minLength != nil || settings.maxLength != nil else { continue }
            lines.append("  \(symbology.rawValue):")
            if let v = settings.minLength { lines.append("    min-length: \(v)") }
            if let v = settings.maxLength { lines.append("    max-length: \(v)") }
        }
        lines.append("rect_of_interest:")
        lines.append("  x: \(number(rectOfInterest.x))")
        lines.append("  y: \(number(rectOfInterest.y))")
        lines.append("  width: \(number(rectOfInterest.width))")
        lines.append("  height: \(number(rectOfInterest.height))")
        lines.append("duplicate_suppression:")
        lines.append("  enabled: \(duplicateSuppression.enabled)")
        lines.append("  window_seconds: \(number(duplicateSuppression.windowSeconds))")
        lines.append("stats_interval_seconds: \(number(statsIntervalSeconds))")
        lines.append("log_level: \(logLevel.rawValue)")
        lines.append("output:")
        lines.append("  queue_lines: \(output.queueLines)")
        return lines.joined(separator: "\n") + "\n"
    }
}
