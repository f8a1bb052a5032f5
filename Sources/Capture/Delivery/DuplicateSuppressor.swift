import Media

/// Reports a code once while it stays in view, and again only after it was absent for a window
/// of frame time (never the wall clock, so a paused or slow pipeline does not re-report).
///
/// "Absent" means not seen in any delivered frame for longer than `window`: a code seen at
/// pts t is suppressed if the same symbology and bytes were last seen at t' with t − t' ≤ window.
/// Identical payloads at several places of one frame are one: the decoder's notion of a duplicate
/// (items, `ItemTracker`, count them apart). An EAN/UPC code is its main code
/// (`MachineReadableCodeObject.mainData`): read without its add-on after it was read with one, it is
/// suppressed; read with an add-on other than the one last seen (a periodical's next issue, or the
/// add-on read at last), it is new.
/// Memory is bounded by the codes seen within the window.
public struct DuplicateSuppressor: Sendable {
    struct Key: Hashable, Sendable { var symbology: Symbology; var data: [UInt8] }

    /// Suppression window; zero or negative turns suppression off.
    public var window: MediaTime
    private var lastSeen: [Key: (pts: MediaTime, addOn: [UInt8]?)] = [:]
    private var lastPrune = MediaTime.zero

    public init(window: MediaTime) { self.window = window }

    public var isEnabled: Bool { window.nanoseconds > 0 }

    /// The codes of one frame (all stamped with `pts`) that are new or back after an absence.
    public mutating func filter(_ codes: [MachineReadableCodeObject], at pts: MediaTime) -> [MachineReadableCodeObject] {
        guard isEnabled else { return codes }
        var fresh: [MachineReadableCodeObject] = []
        var seenNow: [Key: [UInt8]?] = [:]
        for code in codes {
            let key = Key(symbology: code.symbology, data: code.mainData)
            // Identical labels in one frame are one payload: reported once.
            guard seenNow.index(forKey: key) == nil else { continue }
            seenNow[key] = code.addOn
            if let last = lastSeen[key], pts >= last.pts, pts - last.pts <= window, code.addOn == nil || code.addOn == last.addOn {
                seenNow[key] = last.addOn
                continue
            }
            fresh.append(code)
        }
        for (key, addOn) in seenNow { lastSeen[key] = (pts, addOn) }
        if pts - lastPrune > window {
            lastSeen = lastSeen.filter { pts < $0.value.pts || pts - $0.value.pts <= window }
            lastPrune = pts
        }
        return fresh
    }

    /// Codes remembered; bounded by what was seen within the window.
    public var trackedCount: Int { lastSeen.count }
}
