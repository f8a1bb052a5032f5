import Capture
import ConfigurationKeys

extension TriggerSettings: ConfigurationSection {
    /// Reads `trigger.*` (given `keys.scoped(to: "trigger")`): `mode` (`continuous`, the default,
    /// or `presentation`), `change_level` (grey levels, 1 to 128) and `change_blocks` (1 to 10000).
    public init(reading keys: ConfigurationKeyReader) {
        self.init()
        if let v: Mode = keys.choice("mode", "trigger mode") { mode = v }
        if let v = keys.double("change_level", in: 1...128, " (grey levels)") { changeLevel = v }
        if let v = keys.int("change_blocks", in: 1...10_000, " (8x8 blocks)") { changeBlocks = v }
    }
}
