import Media

/// The video side of a collection: the frame, or notice that it was dropped and why
/// (AVFoundation's `AVCaptureSynchronizedSampleBufferData`).
public struct SynchronizedVideoData: Sendable, Hashable {
    public var sequenceNumber: UInt64
    /// The frame's timestamp; `nil` only for a frame lost before it reached us (a sequence gap).
    public var presentationTime: MediaTime?
    /// Geometry of the frame; `nil` when it was dropped before its pixels were seen.
    public var frame: FrameInfo?
    public var wasDropped: Bool { droppedReason != nil }
    public var droppedReason: DroppedReason?
    /// A copy of the frame's pixels, when a results handler asked for them, the frame had codes,
    /// and the session's pool had room (AVFoundation's sample buffer; the source's own buffer is
    /// already back with it).
    public var pixels: FramePixels?

    public init(sequenceNumber: UInt64, presentationTime: MediaTime?, frame: FrameInfo?, droppedReason: DroppedReason?,
                pixels: FramePixels? = nil) {
        self.sequenceNumber = sequenceNumber
        self.presentationTime = presentationTime
        self.frame = frame
        self.droppedReason = droppedReason
        self.pixels = pixels
    }
}

/// The metadata side of a collection: every code found in the frame, possibly none
/// (AVFoundation's `AVCaptureSynchronizedMetadataObjectData`).
public struct SynchronizedMetadataObjectData: Sendable, Hashable {
    public var presentationTime: MediaTime
    public var metadataObjects: [MachineReadableCodeObject]
    /// The harder passes `effort: auto` wanted on this frame that did not fit in its time budget.
    public var passesCut: [DecoderPass]
    /// Codes zxing-cpp detected in the frame and no pass read (`MetadataOutput.ScanReport.undecoded`):
    /// for the live view's outlines, never code lines.
    public var undecoded: [UndecodedCodeObject]
    /// What the engine's reading check did on this frame (`MetadataOutput.ScanReport.readingCheck`).
    public var readingCheck: ReadingCheckCounts
    /// Readings nothing in the frame confirmed (an engine's check, or `ItemConfirmation`), for
    /// the items to confirm (`MetadataOutput.ScanReport.unconfirmed`): codes found
    /// (`codes_found`), never a code line until an item confirms them.
    public var unconfirmed: [MachineReadableCodeObject]
    /// A frame of a read window that read nothing, copied as its most promising so far
    /// (`ReadWindows.offer`); `nil` for every other frame.
    public var diagnosis: DiagnosisFrame?

    public init(presentationTime: MediaTime, metadataObjects: [MachineReadableCodeObject], passesCut: [DecoderPass] = [],
                undecoded: [UndecodedCodeObject] = [], readingCheck: ReadingCheckCounts = ReadingCheckCounts(),
                unconfirmed: [MachineReadableCodeObject] = [], diagnosis: DiagnosisFrame? = nil) {
        self.diagnosis = diagnosis
        self.presentationTime = presentationTime
        self.metadataObjects = metadataObjects
        self.passesCut = passesCut
        self.undecoded = undecoded
        self.readingCheck = readingCheck
        self.unconfirmed = unconfirmed
    }
}

/// Everything the outputs produced for one frame, delivered once per sequence number, in order
/// (AVFoundation's `AVCaptureSynchronizedDataCollection`).
///
/// A dropped frame has video data with `wasDropped` and no metadata; a scanned frame has
/// metadata, with an empty list when nothing was found.
public struct SynchronizedDataCollection: Sendable, Hashable {
    public var video: SynchronizedVideoData
    public var metadata: SynchronizedMetadataObjectData?

    public init(video: SynchronizedVideoData, metadata: SynchronizedMetadataObjectData?) {
        self.video = video
        self.metadata = metadata
    }

    public var sequenceNumber: UInt64 { video.sequenceNumber }
}
