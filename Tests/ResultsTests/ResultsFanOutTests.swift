import Capture
import Testing
import TestSupport
@testable import Results

@Suite struct ResultsFanOutTests {
    /// The session's pool makes room for what the handlers hold, whichever they are, counted by
    /// the handlers themselves: here two snapshot queues of 5 and 2 frames.
    @Test func thePixelCopiesHeldAreEachHandlersTogether() {
        func snapshots(queueFrames: Int) -> SnapshotResultsHandler {
            var settings = SnapshotSettings(directory: "/srv/snapshots")
            settings.queueFrames = queueFrames
            return SnapshotResultsHandler(settings: settings, directory: InMemorySnapshotDirectory(path: settings.directory),
                                          logger: LogRecorder().logger)
        }
        let (five, two) = (snapshots(queueFrames: 5), snapshots(queueFrames: 2))
        #expect(five.pixelCopiesHeld == 5 && two.pixelCopiesHeld == 2)
        #expect(ResultsFanOut([five, two]).pixelCopiesHeld == 7)
        #expect(ResultsFanOut([]).pixelCopiesHeld == 0)
    }
}
