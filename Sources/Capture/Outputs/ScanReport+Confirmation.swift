import Media

extension MetadataOutput.ScanReport {
    /// Moves each code of a symbology `confirmation` confirms by its item from `codes` to
    /// `unconfirmed`, unless two decoder libraries read it in this frame (`readings`: the same
    /// payload, overlapping): one library's passes repeat one decoder's reading, not a second opinion.
    mutating func passOnUnconfirmed(_ confirmation: ItemConfirmation) {
        guard codes.contains(where: { confirmation.confirms($0.symbology) }) else { return }
        let all = readings.values.joined()
        var kept: [MachineReadableCodeObject] = []
        for code in codes {
            guard confirmation.confirms(code.symbology) else { kept.append(code); continue }
            let libraries = Set(all.filter { $0.symbology == code.symbology && $0.mainData == code.mainData && $0.overlaps(code) }.map(\.engine))
            if libraries.count >= 2 { kept.append(code) } else { unconfirmed.append(code) }
        }
        codes = kept
    }
}
