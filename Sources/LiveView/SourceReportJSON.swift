import Media
import Results

/// A source's report (`FrameSource.report`) as the live view's status shows it: whatever the
/// source says of itself, for any kind of source.
extension SourceReport {
    /// `{"kind":…,"label":…,"health":{"reopens":N,"missing_seconds":N|null},"controls":{…}|null}`:
    /// the status's `input` (its mode is the status's `mode`, `SourceMode.json`). `controls`:
    /// `{"settings":[{"name":…,"value":…},…],"failures":N}` for a source that has device controls.
    func json(now: ContinuousClock.Instant = .now) -> [UInt8] {
        let missing = health.missingSince.map { "\(max(0, ($0.duration(to: now)).components.seconds))" } ?? "null"
        var out = Array("{\"kind\":".utf8) + JSONLineEncoder.quoted(kind) + Array(",\"label\":".utf8) + JSONLineEncoder.quoted(label)
        out += Array(",\"health\":{\"reopens\":\(health.reopens),\"missing_seconds\":\(missing)},\"controls\":".utf8)
        if let controls {
            out += Array("{\"settings\":[".utf8)
            for (index, setting) in controls.settings.enumerated() {
                out += Array((index > 0 ? ",{\"name\":" : "{\"name\":").utf8) + JSONLineEncoder.quoted(setting.name)
                    + Array(",\"value\":".utf8) + JSONLineEncoder.quoted(setting.value) + Array("}".utf8)
            }
            out += Array("],\"failures\":\(controls.failures)}".utf8)
        } else {
            out += Array("null".utf8)
        }
        return out + Array("}".utf8)
    }
}

extension SourceMode {
    /// `{"width":…,"height":…,"format":…,"fps":…,"origin":…}` (`fps` `null` when unknown): the status's `mode`.
    var json: String {
        "{\"width\":\(width),\"height\":\(height),\"format\":\"\(format.filter { $0.isLetter || $0.isNumber || $0 == " " })\","
            + "\"fps\":\(framesPerSecond.map { DecimalText.string($0, fractionDigits: 3) } ?? "null"),"
            + "\"origin\":\"\(origin.filter { $0.isLetter || $0.isNumber || $0 == " " })\"}"
    }
}
