import Capture

/// Where and how the snapshot handler saves the frame each code was seen in (`snapshots.*`).
public struct SnapshotSettings: Sendable, Hashable {
    /// What part of the frame a snapshot shows.
    public enum Crop: String, Sendable, Hashable, CaseIterable {
        /// The whole frame.
        case frame
        /// The codes' bounds plus `margin` pixels on each side.
        case code
    }

    /// The directory snapshots are written to (created when missing).
    public var directory: String
    /// JPEG quality, 1–100.
    public var quality = 85
    public var crop = Crop.frame
    /// Pixels around the codes' bounds with `crop: code`.
    public var margin = 32
    /// Snapshots kept in the directory; the oldest are deleted first. 0: no limit.
    public var maxFiles = 10_000
    /// Bytes of snapshots kept in the directory; the oldest are deleted first. 0: no limit.
    public var maxBytes = 1_000_000_000
    /// Frames that may wait to be encoded and written.
    public var queueFrames = 8

    public init(directory: String) { self.directory = directory }

    /// The pixels the handler asks the session to copy.
    public var pixelsRequest: PixelsRequest { crop == .frame ? .frame : .codes(margin: margin) }
}
