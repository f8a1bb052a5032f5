import Capture
import Decoders
import Media
import SystemCalls

/// A second look that reads what it was given, wherever it looks, and notes each code it was asked about.
final class ScriptedSecondLook: SecondLook, Sendable {
    private let readings: [MachineReadableCodeObject]
    private let asked = LockedValue<[MachineReadableCodeObject]>([])

    /// - Parameter readings: what every look reads (their frame is replaced by the looked-at frame's).
    init(reading readings: [MachineReadableCodeObject]) { self.readings = readings }

    /// The codes looked at so far, in order.
    var lookedAt: [MachineReadableCodeObject] { asked.withLock { $0 } }

    func read(around code: MachineReadableCodeObject, in frame: VideoFrame, symbologies: Set<Symbology>) -> [MachineReadableCodeObject] {
        asked.withLock { $0.append(code) }
        return readings.map { var reading = $0; reading.frame = frame.info; return reading }
    }
}
