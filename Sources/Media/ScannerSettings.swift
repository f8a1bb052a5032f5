/// Which symbologies to read and their add-ons (every engine), and zbar's own settings (`zbar.*` keys, zbar's `ImageScanner`).
///
/// Setting names follow `zbarcam -S` (`enable`, `min-length`, `max-length`, `test-inverted`,
/// `x-density`, `y-density`) so zbar users recognise them.
public struct ScannerSettings: Sendable, Hashable {
    /// Settings of one symbology; `nil` leaves zbar's default.
    public struct SymbologySettings: Sendable, Hashable {
        public var minLength: Int?
        public var maxLength: Int?
        public init(minLength: Int? = nil, maxLength: Int? = nil) {
            self.minLength = minLength
            self.maxLength = maxLength
        }
    }

    public var symbologies: Set<Symbology>
    public var settings: [Symbology: SymbologySettings]
    /// Retry a frame inverted (light on dark) when nothing decodes; costs a second pass.
    public var testInverted: Bool
    /// Scan every n-th column (x) and row (y); 1 is every line, 0 disables that direction.
    public var xDensity: Int
    public var yDensity: Int
    /// EAN/UPC add-ons (`ean.addon`), for every engine.
    public var eanAddOn: EANAddOn

    public init(symbologies: Set<Symbology> = Symbology.defaults,
                settings: [Symbology: SymbologySettings] = [:],
                testInverted: Bool = false, xDensity: Int = 1, yDensity: Int = 1, eanAddOn: EANAddOn = .read) {
        self.symbologies = symbologies
        self.settings = settings
        self.testInverted = testInverted
        self.xDensity = xDensity
        self.yDensity = yDensity
        self.eanAddOn = eanAddOn
    }
}
