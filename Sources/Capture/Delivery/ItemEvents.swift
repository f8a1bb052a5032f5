import Media

/// A frame an item was seen in: its sequence number and timestamp.
public struct ItemFrame: Sendable, Hashable {
    public var sequenceNumber: UInt64
    public var presentationTime: MediaTime

    public init(sequenceNumber: UInt64, presentationTime: MediaTime) {
        (self.sequenceNumber, self.presentationTime) = (sequenceNumber, presentationTime)
    }
}

/// An item that left the view (VisionKit's `didRemove`): what it carried, when it was first and
/// last seen, and how many of the frames it was present in read it.
public struct RemovedItem: Sendable, Hashable {
    public var id: UInt64
    public var symbology: Symbology
    public var data: [UInt8]
    public var text: String?
    public var first: ItemFrame
    public var last: ItemFrame
    /// Scanned frames from its first to its last sighting, both included.
    public var framesPresent: Int
    /// Of those, the frames in which its code was read.
    public var framesRead: Int
    /// Its outline when last read.
    public var corners: [PixelPoint]

    public init(id: UInt64, symbology: Symbology, data: [UInt8], text: String?, first: ItemFrame, last: ItemFrame,
                framesPresent: Int, framesRead: Int, corners: [PixelPoint]) {
        (self.id, self.symbology, self.data, self.text) = (id, symbology, data, text)
        (self.first, self.last, self.framesPresent, self.framesRead, self.corners) = (first, last, framesPresent, framesRead, corners)
    }

    /// How long it was in view, in frame time.
    public var dwell: MediaTime { last.presentationTime - first.presentationTime }
    /// Frames read of frames present.
    public var readRate: Double { framesPresent > 0 ? Double(framesRead) / Double(framesPresent) : 0 }
}

/// An item read again at a new place (VisionKit's `didUpdate`), for consumers that draw.
public struct ItemUpdate: Sendable, Hashable {
    public var id: UInt64
    public var frame: ItemFrame
    public var corners: [PixelPoint]
    public var framesRead: Int
}
