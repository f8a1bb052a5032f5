import Media

/// Which items are reported only once their payload is confirmed, and by how many readings: a
/// symbology whose own error detection one wrong bar can pass (a mod-10 check digit, or none).
///
/// A reading of such a symbology is confirmed in its own frame when two decoder libraries read
/// it there (`hybrid`); otherwise its item waits, followed but not reported, until `readings`
/// readings of the same payload in different frames agree. Another payload read where it lies
/// is a misread, never an item. QR, DataMatrix, Aztec, MaxiCode (Reed-Solomon), Code 128 and
/// Code 93 (their check characters) need none.
public struct ItemConfirmation: Sendable, Hashable {
    /// The symbologies whose items need confirming.
    public var symbologies: Set<Symbology>
    /// Readings in different frames that confirm an item, its first included; 1: none needed.
    public var readings: Int
    /// An item that leaves unconfirmed is reported (its first reading, `"confirmed": false`, then
    /// its removal) instead of only counted (`items_unconfirmed`).
    public var reportsUnconfirmed: Bool

    /// EAN/UPC and their add-ons, ISBN (a mod-10 check digit), Interleaved 2 of 5, Codabar,
    /// Code 39 (no check character by default), DataBar (a mod-89 check of a few bits), and Micro
    /// QR and PDF417, whose error correction can be as little as two codewords (their version
    /// and level are not reported by the decoders, so every one is confirmed).
    public static let defaultSymbologies: Set<Symbology> = [
        .ean13, .ean8, .ean2, .ean5, .upca, .upce, .isbn10, .isbn13, .i25, .codabar, .code39,
        .databar, .databarExp, .databarLtd, .microqr, .pdf417,
    ]
    public static let defaultReadings = 2

    public init(symbologies: Set<Symbology> = ItemConfirmation.defaultSymbologies, readings: Int = ItemConfirmation.defaultReadings,
                reportsUnconfirmed: Bool = false) {
        (self.symbologies, self.readings, self.reportsUnconfirmed) = (symbologies, max(1, readings), reportsUnconfirmed)
    }

    /// No item waits for confirmation.
    public static let none = ItemConfirmation(symbologies: [], readings: 1)

    /// Whether an item of `symbology` is reported only once confirmed.
    public func confirms(_ symbology: Symbology) -> Bool { readings > 1 && symbologies.contains(symbology) }
}
