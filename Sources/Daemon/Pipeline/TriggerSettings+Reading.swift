import Capture
import ConfigurationKeys
import Media

extension TriggerSettings: ConfigurationSection {
    /// Reads `trigger.*` (given `keys.scoped(to: "trigger")`): `mode` (`continuous`, the default,
    /// `presentation` or `triggered`), `change_level` (grey levels, 1 to 128) and `change_blocks`
    /// (1 to 10000); for triggered reads `window.duration_ms` (1 to 3600000), `window.codes`
    /// (0 to 1000, 0: no limit), `window.until_release`, `motion`, `expected` (1 to 1000),
    /// `no_read_directory` (a path) and `no_read_keep` (1 to 1000000 files).
    public init(reading keys: ConfigurationKeyReader) {
        self.init()
        if let v: Mode = keys.choice("mode", "trigger mode") { mode = v }
        if let v = keys.double("change_level", in: 1...128, " (grey levels)") { changeLevel = v }
        if let v = keys.int("change_blocks", in: 1...10_000, " (8x8 blocks)") { changeBlocks = v }
        let window = keys.scoped(to: "window")
        if let v = window.int("duration_ms", in: 1...3_600_000, " (milliseconds)") { self.window.duration = MediaTime(nanoseconds: Int64(v) * 1_000_000) }
        if let v = window.int("codes", in: 0...1000, " (codes; 0: no limit)") { self.window.codes = v }
        if let v = window.bool("until_release") { self.window.untilRelease = v }
        if let v = keys.bool("motion") { motion = v }
        if let v = keys.int("expected", in: 1...1000, " (codes a window is expected to read)") { expected = v }
        if let v = keys.string("no_read_directory", "a directory path"), !v.isEmpty { noReadDirectory = v }
        if let v = keys.int("no_read_keep", in: 1...1_000_000, " (no-read images kept)") { noReadKeep = v }
    }
}
