import Decoders
import Foundation
import Media
import TestSupport
import Testing
import Capture
@testable import Y4M

/// The collections a synchronizer delivered, gathered from whichever thread delivers.
private final class Y4MCollectionRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [SynchronizedDataCollection] = []
    func append(_ collection: SynchronizedDataCollection) { lock.withLock { stored.append(collection) } }
    var collections: [SynchronizedDataCollection] { lock.withLock { stored } }
}

@Suite("Y4M source in a capture session", .offThePool)
struct Y4MSessionTests {
    /// A QR code rendered by qrencode, turned into a 4:2:0 Y4M file by ffmpeg, read by the
    /// session and scanned by zbar: every frame yields the code, paired with that frame.
    @Test func qrCodeInAY4MFileIsScannedInEveryFrame() async throws {
        guard let qrencode = y4mFindExecutable("qrencode") else {
            Issue.record("qrencode is not on PATH: install it (apt-get install qrencode)")
            return
        }
        guard let ffmpeg = y4mFindExecutable("ffmpeg") else {
            Issue.record("ffmpeg is not on PATH: install it (apt-get install ffmpeg)")
            return
        }
        let png = try Y4MTemporaryFile(bytes: [], suffix: ".png")
        _ = try y4mRun(qrencode, ["-s", "4", "-o", png.path, "syncscan y4m"])
        let y4m = try y4mRun(ffmpeg, ["-v", "error", "-loop", "1", "-i", png.path, "-frames:v", "4", "-r", "10",
                                      "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"])
        let file = try Y4MTemporaryFile(bytes: y4m)

        let source = Y4MSource(path: file.path, logger: y4mTestLogger)
        let session = CaptureSession(input: source, metadataOutput: MetadataOutput(settings: .init(engine: .zbar), scanningThreads: 2), logger: y4mTestLogger)
        let recorder = Y4MCollectionRecorder()
        try await session.run(synchronizer: DataOutputSynchronizer { recorder.append($0) })

        let collections = recorder.collections
        #expect(collections.map(\.sequenceNumber) == [0, 1, 2, 3])
        for collection in collections {
            #expect(collection.video.droppedReason == nil)
            #expect(collection.video.presentationTime == MediaTime(nanoseconds: Int64(collection.sequenceNumber) * 100_000_000))
            let codes = collection.metadata?.metadataObjects ?? []
            #expect(codes.map(\.text) == ["syncscan y4m"], "frame \(collection.sequenceNumber)")
            #expect(codes.allSatisfy { $0.frame.sequenceNumber == collection.sequenceNumber && $0.frame.format == .yuv420 })
        }
        #expect(!source.isOpen)
    }
}
