import Capture
import ConfigurationKeys

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

extension SnapshotSettings: ConfigurationSection {
    /// Reads `snapshots.*` (given `keys.scoped(to: "snapshots")`); every key is read (so each is
    /// known) whether or not a directory is set. `nil`: no `snapshots.directory`.
    public init?(reading keys: ConfigurationKeyReader) {
        let directory = keys.string("directory")
        self.init(directory: directory ?? "")
        if let v = keys.int("quality", in: 1...100, " (JPEG quality)") { quality = v }
        if let v: Crop = keys.choice("crop", "crop") { crop = v }
        if let v = keys.int("margin", in: 0...4096, " (pixels around the codes with crop: code)") { margin = v }
        if let v = keys.int("max_files", in: 0...100_000_000, " (0: no limit)") { maxFiles = v }
        if let v = keys.int("max_bytes", in: 0...(1 << 50), " (0: no limit)") { maxBytes = v }
        guard let directory else { return nil }
        if directory.isEmpty {
            keys.problem("directory", "must name a directory; remove the key to save no snapshots")
            return nil
        }
    }
}
