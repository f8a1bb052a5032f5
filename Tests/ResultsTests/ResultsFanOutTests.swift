import Capture
import LiveView
import Testing
import TestSupport
@testable import Results

@Suite struct ResultsFanOutTests {
    /// The session's pool makes room for what the handlers hold, whichever they are: a snapshot
    /// queue and a preview being made, counted by the handlers themselves.
    @Test func thePixelCopiesHeldAreEachHandlersTogether() {
        var settings = SnapshotSettings(directory: "/srv/snapshots")
        settings.queueFrames = 5
        let snapshots = SnapshotResultsHandler(settings: settings, directory: InMemorySnapshotDirectory(path: settings.directory),
                                               logger: LogRecorder().logger)
        let liveView = LiveViewResultsHandler(settings: LiveViewSettings(), source: "test", logger: LogRecorder().logger)
        #expect(snapshots.pixelCopiesHeld == 5)
        #expect(liveView.pixelCopiesHeld == 2)
        #expect(ResultsFanOut([snapshots, liveView]).pixelCopiesHeld == 7)
        #expect(ResultsFanOut([]).pixelCopiesHeld == 0)
    }
}
