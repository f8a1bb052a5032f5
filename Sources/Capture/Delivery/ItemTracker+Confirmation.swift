import Media

/// Tentative items: confirmed, contested or contradicted (see `ItemTracker`).
extension ItemTracker {
    /// Marks the new tentative item `id`, and every other tentative one of a payload it could be
    /// confused with where it lies (`Place.covers` either way, as predicted at `pts`) and read
    /// within `rivalWindow` of it, contested. One read only longer ago is another label that
    /// passed there (a lone reading at a belt's edge), not a second reading of this one.
    mutating func contest(_ id: UInt64, at pts: MediaTime) {
        guard let new = items[id] else { return }
        let rivals = items.values.filter { other in
            other.id != id && !other.confirmed && other.mainData != new.mainData && Self.comparable(other.symbology, new.symbology)
                && (pts - other.placeTime).seconds <= Self.rivalWindow
                && (other.place.covers(new.place.center, centeredAt: other.predicted(at: pts))
                    || new.place.covers(other.predicted(at: pts), centeredAt: new.place.center))
        }.map(\.id)
        guard !rivals.isEmpty else { return }
        for rival in rivals { items[rival]?.contested = true }
        items[id]?.contested = true
    }

    /// Seconds between two tentative items' readings within which they contest one place.
    static let rivalWindow = 0.2

    mutating func confirm(_ id: UInt64, counts: inout ReadingCheckCounts) {
        guard let item = items[id], !item.confirmed else { return }
        counts.confirmed += item.awaiting
        items[id]?.confirmed = true
        items[id]?.awaiting = 0
        tentativeCount -= 1
    }

    /// Whether frame `seq` read a reported item of another payload, of a symbology `symbology`
    /// could be misread as, where a reading at `place` lies (`Place.covers` either way; the
    /// tentative item where it is predicted at `pts`): the reading, unconfirmed in its own frame,
    /// is then a misread of that item. An item read there only before it is not: the label may
    /// have been replaced. But a reading whose payload is a part of a reported item's of its own
    /// symbology, where that item lies, is a part of it read (an ITF or Code 39 label read along
    /// a line its edge or a hand cut short), whenever the item was last read.
    func contradicted(_ place: Place, symbology: Symbology, data: [UInt8], readIn seq: UInt64, at pts: MediaTime,
                              predictedFrom tentative: Item? = nil) -> Bool {
        let center = tentative?.predicted(at: pts) ?? place.center
        for other in items.values where other.confirmed && !(other.symbology == symbology && other.mainData == data)
            && Self.comparable(other.symbology, symbology)
            && (other.lastRead == seq || other.symbology == symbology && Self.isPart(data, of: other.mainData)) {
            let otherCenter = other.predicted(at: pts)
            if other.place.covers(center, centeredAt: otherCenter) || place.covers(otherCenter, centeredAt: center) { return true }
        }
        return false
    }

    /// Whether `part` is a shorter run of `whole`'s bytes, in order and together.
    static func isPart(_ part: [UInt8], of whole: [UInt8]) -> Bool {
        guard !part.isEmpty, part.count < whole.count else { return false }
        return (0...(whole.count - part.count)).contains { start in whole[start..<(start + part.count)].elementsEqual(part) }
    }

    /// Whether a reading of `a` could be a misreading of a code of `b`: the same 1-D symbology,
    /// or two of the EAN/UPC family (zbar reads a UPC-E inside an EAN-13, a UPC-A as EAN-13).
    public static func comparable(_ a: Symbology, _ b: Symbology) -> Bool {
        guard !a.isTwoDimensional, !b.isTwoDimensional else { return false }
        let family: Set<Symbology> = [.ean13, .ean8, .upca, .upce, .isbn13]
        return a == b || family.contains(a) && family.contains(b)
    }

    /// The items that left unconfirmed since the last call, to report (`ItemConfirmation.reportsUnconfirmed`).
    public mutating func takeUnconfirmed() -> [(code: MachineReadableCodeObject, item: RemovedItem)] {
        defer { unconfirmedToReport.removeAll() }
        return unconfirmedToReport
    }

    mutating func leftUnconfirmed(_ item: RemovedItem, firstReading: MachineReadableCodeObject?) {
        unconfirmedItems += 1
        if let firstReading { unconfirmedToReport.append((firstReading, item)) }
    }
}
