import Media

extension MetadataOutput {
    /// What one frame's scan found and did.
    public struct ScanReport: Sendable {
        /// The codes, one per symbology and payload.
        public var codes: [MachineReadableCodeObject]
        /// The passes that ran, in order.
        public var passesRun: [DecoderPass]
        /// The harder passes the evidence asked for that did not fit in the frame's time budget.
        public var passesCut: [DecoderPass]
        /// What each pass that ran read by itself, before one reading per code was kept.
        public var readings: [DecoderPass: [MachineReadableCodeObject]] = [:]
        /// The codes the first pass of a library that reports them (zxing-cpp's) detected but could not decode and no pass read
        /// (asked for with `effort: auto` on a live source, or `Settings.reportsUndecoded`).
        public var undecoded: [UndecodedCodeObject] = []
        /// What the engine's reading check did on this frame (`ReadingCheck`).
        public var readingCheck = ReadingCheckCounts()
        /// Readings the check could not confirm within the frame, passed on for the items to
        /// confirm (`Settings.confirmsByItem`); not among `codes`.
        public var unconfirmed: [MachineReadableCodeObject] = []
    }
}

extension MetadataOutput.ScanReport {
    /// Adds `readings` to `codes`, one reading per code: readings of one payload at one place
    /// (several passes, both libraries) are one code, the reading of the library `engine` prefers
    /// for its symbology; the same payload elsewhere in the frame is another label. A reading with
    /// an EAN/UPC add-on stands over one of the same code without.
    mutating func keepOnePerCode(_ readings: [MachineReadableCodeObject], engine: DecoderEngine) {
        var kept: [CodeIdentity: [Int]] = [:]
        for code in readings {
            let identity = CodeIdentity(code)
            if let index = kept[identity]?.first(where: { codes[$0].overlaps(code) }) {
                let preferred = engine.preferred(for: code.symbology)
                if (code.addOn != nil) != (codes[index].addOn != nil) {
                    if code.addOn != nil { codes[index] = code }
                } else if let preferred, code.engine == preferred && codes[index].engine != preferred { codes[index] = code }
            } else {
                kept[identity, default: []].append(codes.count)
                codes.append(code)
            }
        }
    }

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
