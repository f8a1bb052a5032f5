import Media

/// What the delivery has seen of the read window open now: its frames, codes and best
/// diagnosis frame, until it closes into a `ReadResult`.
struct ReadWindowTally {
    /// A code read in the window, told apart by symbology and bytes.
    private struct CodeKey: Hashable {
        var symbology: Symbology
        var data: [UInt8]
    }

    let number: UInt64
    let origin: String
    private var first: ItemFrame?
    private var last: ItemFrame?
    private var codes: Set<CodeKey> = []
    /// What the window read: each distinct code's first reading, and each item's first (reporting items).
    private var read: [ReadResult.Code] = []
    private var itemReadings: [ReadResult.Code] = []
    /// The items the window added, in order.
    var items: [UInt64] { itemReadings.compactMap(\.item) }
    private var framesScanned = 0
    private var best: DiagnosisFrame?

    init(number: UInt64, origin: String) { (self.number, self.origin) = (number, origin) }

    /// Codes read so far: items added, when reporting items, else distinct codes.
    func count(reportingItems: Bool) -> Int { reportingItems ? itemReadings.count : codes.count }

    /// Adds a frame of the window: its time, and when it was scanned, its codes, the items it
    /// added and its diagnosis copy (kept when more promising than the best so far).
    /// Only the codes `accepts` lets through count (`output.gs1_filter`; `nil`: every one).
    mutating func add(_ collection: SynchronizedDataCollection, addedItems: [(code: MachineReadableCodeObject, item: UInt64)],
                      accepts filter: CodeFilter? = nil) {
        if let pts = collection.video.presentationTime {
            let frame = ItemFrame(sequenceNumber: collection.sequenceNumber, presentationTime: pts)
            if first == nil { first = frame }
            last = frame
        }
        guard let metadata = collection.metadata else { return }
        framesScanned += 1
        for code in metadata.metadataObjects where filter?.accepts(code) ?? true {
            if codes.insert(CodeKey(symbology: code.symbology, data: code.data)).inserted { read.append(ReadResult.Code(item: nil, code: code)) }
        }
        itemReadings += addedItems.map { ReadResult.Code(item: $0.item, code: $0.code) }
        if let diagnosis = metadata.diagnosis, best.map({ $0.score < diagnosis.score }) ?? true { best = diagnosis }
    }

    /// The window's result when it closes now.
    func result(expected: Int, reportingItems: Bool) -> ReadResult {
        let codes = count(reportingItems: reportingItems)
        let kind = ReadResult.kind(codes: codes, expected: expected)
        let (opened, closed) = (first ?? ItemFrame(sequenceNumber: 0, presentationTime: .zero), last ?? first ?? ItemFrame(sequenceNumber: 0, presentationTime: .zero))
        var result = ReadResult(kind: kind, window: number, trigger: origin, opened: opened, closed: closed, codes: codes,
                                items: reportingItems ? items : [], framesScanned: framesScanned, diagnosis: kind == .noRead ? best : nil)
        result.read = reportingItems ? itemReadings : read
        return result
    }
}
